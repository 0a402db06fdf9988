"""The frozen station's entry point: the ``dealer-station`` command line.

Bytecode is never written at run time: the bundle's files are exactly what its manifest lists
(Alembic loads the migrations from source files, and a ``__pycache__`` folder appearing beside
them would be an extra file at the next integrity check).
"""

import sys

sys.dont_write_bytecode = True

from dealer_station.cli.main import main  # noqa: E402  (after the bytecode switch)

raise SystemExit(main())
