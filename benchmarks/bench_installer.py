"""How long the software check at every start takes: ``verify_bundle`` over the PyInstaller
bundle (build it first with ``installer/build.sh``), warm (files in the page cache, as on a
restart) and cold (each file's cached pages dropped first with posix_fadvise, as at boot).

    .venv/bin/python benchmarks/bench_installer.py [BUNDLE]     # default dist/dealer-station
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer_station.integrity import load_manifest, verify_bundle  # noqa: E402

RUNS = 5


def drop_cache(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def main() -> int:
    bundle = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "dist" / "dealer-station"
    if not (bundle / "manifest.json").exists():
        print(f"no bundle with a manifest at {bundle}: run installer/build.sh first")
        return 2
    manifest = load_manifest(bundle)
    size = sum((bundle / rel).stat().st_size for rel in manifest.files)
    mib = size / 2**20
    print(f"bundle {bundle}: {len(manifest.files)} files, {mib:.0f} MiB")
    for label, before in (("warm", None), ("cold", drop_cache)):
        times = []
        for _ in range(RUNS):
            if before is not None:
                before(bundle)
            started = time.perf_counter()
            report = verify_bundle(bundle)
            times.append(time.perf_counter() - started)
            assert report.ok, report.summary()
        median = statistics.median(times)
        print(f"verify_bundle {label}: median {median * 1000:.0f} ms over {RUNS} runs "
              f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}), "
              f"{mib / median:.0f} MiB/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
