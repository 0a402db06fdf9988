"""Write the bundle's manifest: ``python installer/write_manifest.py DIST_DIR [--version ...]``.

Hashes every file of the one-folder build (SHA-256), writes ``SHA256SUMS`` and
``manifest.json`` into it and prints the overall hash. The code is
``dealer_station.integrity.write_manifest``, the same module that verifies at every start.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dealer_station.integrity import IntegrityError, write_manifest  # after sys.path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bundle", type=Path, help="the one-folder build, e.g. dist/dealer-station")
    p.add_argument("--version", default="", help="the product version recorded")
    p.add_argument("--commit", default="", help="the source commit recorded")
    p.add_argument("--source-date-epoch", type=int, help="the build's SOURCE_DATE_EPOCH")
    args = p.parse_args(argv)
    try:
        manifest = write_manifest(args.bundle, version=args.version, commit=args.commit,
                                  source_date_epoch=args.source_date_epoch)
    except IntegrityError as exc:
        print(f"write_manifest: error: {exc}", file=sys.stderr)
        return 2
    print(f"{len(manifest.files)} files hashed; overall hash {manifest.overall}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
