"""``python -m dealer_station`` is the same CLI as ``dealer-station``."""

from dealer_station.cli.main import main

raise SystemExit(main())
