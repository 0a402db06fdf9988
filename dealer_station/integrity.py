"""Software integrity ("program verification"): the build's manifest and its check at start.

The build (``installer/build.sh``) writes two files into the bundle's top folder:

- ``SHA256SUMS``: one line per shipped file, ``<sha-256 hex>  <path>``, sorted by path, paths
  relative to the bundle with ``/``. It is the format of ``sha256sum``, so anyone can check a
  bundle with ``cd /opt/dealer-station && sha256sum -c SHA256SUMS``.
- ``manifest.json``: the same hashes, the product version, the source commit and the overall
  hash.

The **overall hash** is the SHA-256 of the ``SHA256SUMS`` text, so it is also
``sha256sum SHA256SUMS``: one number naming every byte the station ships. The regulator approves
that number; the station recomputes it at every start, shows it on the supervisor screen and
journals it.

Verification recomputes every file's hash and names each changed, missing and extra file. The
two manifest files are the only files outside the listing. A development checkout (not a
frozen build) has no manifest: that is reported as "no manifest (development build)", which is
not a failure.

This module imports only the standard library at the top; the journal and table are imported
inside :class:`IntegrityGate`, so the build's manifest writer and ``doctor`` stay light.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer_station.errors import StationError
from dealer_station.events.station import (
    SoftwareMatched,
    SoftwareMismatchAcknowledged,
    SoftwareMismatched,
)

if TYPE_CHECKING:
    from dealer_station.audit.journal import Record
    from dealer_station.audit.users import User
    from dealer_station.table.base import TableService

MANIFEST_NAME = "manifest.json"
SUMS_NAME = "SHA256SUMS"
#: Files in the bundle's top folder that are not themselves listed.
MANIFEST_FILES = frozenset({MANIFEST_NAME, SUMS_NAME})
MANIFEST_FORMAT = 1
_CHUNK = 1 << 20
#: Characters a shipped path may not hold: they would make the SHA256SUMS line ambiguous.
_BAD_PATH_CHARS = ("\n", "\r", "\\")

#: Journal kinds (significant whole: see ``SIGNIFICANT_FAMILIES`` in events/kinds.py).
#: The approved build's overall hash, when the installation pins it (install.sh
#: --expect-hash writes it into station.env): any other overall hash is a mismatch, even if
#: the bundle agrees with a manifest someone rewrote.
APPROVED_ENV = "DEALER_STATION_APPROVED_HASH"

KIND_OK = "integrity.ok"
KIND_MISMATCH = "integrity.mismatch"
KIND_ACK = "integrity.ack"

OK = "ok"
MISMATCH = "mismatch"
DEVELOPMENT = "development"
DEVELOPMENT_TEXT = "no manifest (development build): the software is not verified"


class IntegrityError(StationError):
    """A manifest that cannot be written or read; the message names the file and the reason."""


# --- hashing --------------------------------------------------------------------------------

def hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _walk(root: Path) -> Iterator[str]:
    """Every regular file under ``root`` as a ``/``-separated relative path (symbolic links
    followed when they stay inside the bundle, so what is hashed is what is loaded)."""
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        here = Path(dirpath)
        # A folder that is (a link to) one of its own ancestors is a loop: not entered, as
        # `find -L` does (install.sh lists the bundle with it), so both list the same files.
        real = os.path.realpath(here)
        ancestors = {os.path.realpath(root / p) for p in here.relative_to(root).parents}
        if real in ancestors:
            dirnames[:] = []
            continue
        dirnames.sort()
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if not path.resolve().is_relative_to(real_root):
                raise IntegrityError(f"{path}: a link out of the bundle (to "
                                     f"{path.resolve()}); a bundle must hold its own files")
            yield rel


def scan(root: Path | str) -> dict[str, str]:
    """``{relative path: sha-256 hex}`` for every file under ``root`` except the manifest."""
    root = Path(root)
    files: dict[str, str] = {}
    for rel in _walk(root):
        if rel in MANIFEST_FILES:
            continue
        if any(c in rel for c in _BAD_PATH_CHARS):
            raise IntegrityError(f"{root / rel}: a file name with a line break or backslash "
                                 f"cannot be listed in {SUMS_NAME}; rename it")
        path = root / rel
        if not path.is_file():
            continue                     # a dangling link or a device: nothing to ship
        files[rel] = hash_file(path)
    return files


def sums_text(files: Mapping[str, str]) -> str:
    """The ``SHA256SUMS`` text: ``<hex>  <path>`` lines sorted by path (by UTF-8 bytes)."""
    rows = sorted(files.items(), key=lambda kv: kv[0].encode("utf-8"))
    return "".join(f"{digest}  {rel}\n" for rel, digest in rows)


def overall_hash(files: Mapping[str, str]) -> str:
    """The one number for the whole bundle: SHA-256 of its ``SHA256SUMS`` text."""
    return hashlib.sha256(sums_text(files).encode("utf-8")).hexdigest()


# --- the manifest ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Manifest:
    files: dict[str, str]
    overall: str
    version: str = ""
    commit: str = ""
    source_date_epoch: int | None = None

    def to_json(self) -> str:
        data = {"format": MANIFEST_FORMAT, "product": "dealer-station", "version": self.version,
                "commit": self.commit, "source_date_epoch": self.source_date_epoch,
                "algorithm": "sha256", "overall": self.overall, "file_count": len(self.files),
                "files": dict(sorted(self.files.items(), key=lambda kv: kv[0].encode()))}
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_manifest(root: Path | str, *, version: str = "", commit: str = "",
                   source_date_epoch: int | None = None) -> Manifest:
    """Hash every file under ``root`` and write ``SHA256SUMS`` and ``manifest.json`` there
    (replacing earlier ones). Run by the build after PyInstaller, before anything else."""
    root = Path(root)
    if not root.is_dir():
        raise IntegrityError(f"{root}: no such bundle folder (build it first)")
    files = scan(root)
    if not files:
        raise IntegrityError(f"{root}: the bundle folder is empty")
    manifest = Manifest(files, overall_hash(files), version, commit, source_date_epoch)
    (root / SUMS_NAME).write_text(sums_text(files), encoding="utf-8", newline="\n")
    (root / MANIFEST_NAME).write_text(manifest.to_json(), encoding="utf-8", newline="\n")
    return manifest


def load_manifest(root: Path | str) -> Manifest:
    """Read ``manifest.json`` from ``root``; IntegrityError naming the file and the reason."""
    path = Path(root) / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IntegrityError(f"{path}: the manifest is missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IntegrityError(f"{path}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise IntegrityError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise IntegrityError(f"{path}: not a format-{MANIFEST_FORMAT} manifest")
    files = data.get("files")
    overall = data.get("overall")
    if (not isinstance(files, dict) or not isinstance(overall, str)
            or not all(isinstance(k, str) and _is_hex(v) for k, v in files.items())
            or not _is_hex(overall)):
        raise IntegrityError(f"{path}: 'files' must map paths to SHA-256 hashes and "
                             f"'overall' must be one")
    epoch = data.get("source_date_epoch")
    return Manifest(dict(files), overall, str(data.get("version", "")),
                    str(data.get("commit", "")), epoch if isinstance(epoch, int) else None)


def _is_hex(value: Any) -> bool:
    return (isinstance(value, str) and len(value) == 64
            and all(c in "0123456789abcdef" for c in value))


# --- verifying ------------------------------------------------------------------------------

@dataclass(frozen=True)
class IntegrityReport:
    """The outcome of checking a bundle against its manifest."""

    status: str                      # OK, MISMATCH or DEVELOPMENT
    root: Path | None
    overall: str = ""                # recomputed now ("" in development)
    expected: str = ""               # from the manifest
    version: str = ""
    commit: str = ""
    files: int = 0
    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    problem: str = ""                # a manifest that cannot be used
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def development(self) -> bool:
        return self.status == DEVELOPMENT

    @property
    def tilt(self) -> bool:
        """Whether the station must stop until a supervisor acknowledges."""
        return self.status == MISMATCH

    def problems(self) -> list[str]:
        """One line per problem, each naming the file."""
        lines = [self.problem] if self.problem else []
        lines += [f"changed: {p}" for p in self.changed]
        lines += [f"missing: {p}" for p in self.missing]
        lines += [f"extra (not in the manifest): {p}" for p in self.extra]
        if (self.status == MISMATCH and not lines and self.expected
                and self.overall != self.expected):
            lines.append(f"the manifest's own overall hash {self.expected} does not match "
                         f"its file list ({SUMS_NAME} or {MANIFEST_NAME} was edited)")
        return lines

    @property
    def first_file(self) -> str:
        """The first file named by a problem ("" when the problem is not one file's)."""
        for group in (self.changed, self.missing, self.extra):
            if group:
                return group[0]
        return ""

    def headline(self) -> str:
        """What the tilt screen says first."""
        if self.first_file:
            return f"The file {self.first_file} does not match the approved build's manifest."
        return self.problem or "The software does not match its manifest."

    def summary(self) -> str:
        """One line in plain words."""
        if self.status == DEVELOPMENT:
            return DEVELOPMENT_TEXT
        if self.status == OK:
            return (f"software verified: {self.files} files match the manifest, overall hash "
                    f"{self.overall}")
        problems = self.problems()
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return f"software does NOT match its manifest: {problems[0]}{more}"

    def payload(self) -> dict[str, Any]:
        """What the journal records (lists cut to a readable length)."""
        data: dict[str, Any] = {"overall": self.overall, "expected": self.expected,
                                "version": self.version, "commit": self.commit,
                                "files": self.files,
                                "root": str(self.root) if self.root else ""}
        if self.status == MISMATCH:
            data.update(changed=list(self.changed[:50]), missing=list(self.missing[:50]),
                        extra=list(self.extra[:50]), problem=self.problem,
                        problems=len(self.problems()))
        return data


def verify_bundle(root: Path | str, approved: str | None = None) -> IntegrityReport:
    """Recompute every file's hash under ``root`` and compare with its manifest, and with
    ``approved`` (the approved build's overall hash) when given."""
    root = Path(root)
    started = time.perf_counter()
    try:
        manifest = load_manifest(root)
    except IntegrityError as exc:
        return IntegrityReport(MISMATCH, root, problem=str(exc),
                               seconds=time.perf_counter() - started)
    try:
        now = scan(root)
    except (IntegrityError, OSError) as exc:
        return IntegrityReport(MISMATCH, root, expected=manifest.overall,
                               version=manifest.version, commit=manifest.commit,
                               problem=f"cannot read the bundle: {exc}",
                               seconds=time.perf_counter() - started)
    expected = manifest.files
    changed = tuple(sorted(p for p in now.keys() & expected.keys() if now[p] != expected[p]))
    missing = tuple(sorted(expected.keys() - now.keys()))
    extra = tuple(sorted(now.keys() - expected.keys()))
    overall = overall_hash(now)
    problem = ""
    sums = root / SUMS_NAME
    try:
        if sums.read_text(encoding="utf-8") != sums_text(expected):
            problem = f"{sums}: does not agree with {MANIFEST_NAME}"
    except (OSError, UnicodeDecodeError):
        problem = f"{sums}: missing or unreadable"
    if not problem and overall_hash(expected) != manifest.overall:
        problem = (f"{root / MANIFEST_NAME}: its overall hash does not match its own file "
                   f"list (the manifest was edited)")
    if not problem and approved is not None and approved.strip().lower() != overall:
        problem = (f"the overall hash {overall} is not the approved build's "
                   f"{approved.strip()} ({APPROVED_ENV}): this is another build, or its "
                   f"manifest was rewritten")
    bad = bool(changed or missing or extra or problem)
    return IntegrityReport(MISMATCH if bad else OK, root, overall=overall,
                           expected=manifest.overall, version=manifest.version,
                           commit=manifest.commit, files=len(now), changed=changed,
                           missing=missing, extra=extra, problem=problem,
                           seconds=time.perf_counter() - started)


def running_bundle() -> Path | None:
    """The folder of the running frozen build, or None in a development checkout."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve().parent
    return None


def approved_hash() -> str | None:
    """The approved overall hash from ``$DEALER_STATION_APPROVED_HASH`` (None: not pinned)."""
    value = os.environ.get(APPROVED_ENV, "").strip()
    return value or None


def check_running() -> IntegrityReport:
    """Verify the software that is running now (a frozen build), against the approved hash
    when one is pinned; a development checkout has no manifest and says so."""
    root = running_bundle()
    if root is None:
        return IntegrityReport(DEVELOPMENT, None)
    return verify_bundle(root, approved_hash())


# --- at start: journal, tilt and acknowledgement -------------------------------------------

@dataclass
class IntegrityGate:
    """The start-up check's consequences for one table (Qt-free; the window shows them).

    ``record_start()`` journals ``integrity.ok`` or ``integrity.mismatch`` (nothing for a
    development build, which has nothing to attest). A mismatch leaves the gate *tilted* until
    a supervisor ``acknowledge``s with a reason, which journals ``integrity.ack``. The next
    start checks again.
    """

    table: TableService
    report: IntegrityReport
    acknowledged_by: str | None = None
    records: list[Record] = field(default_factory=list)

    @property
    def tilted(self) -> bool:
        return self.report.tilt and self.acknowledged_by is None

    def record_start(self) -> Record | None:
        if self.report.development:
            return None
        said = self.report.payload()
        event = SoftwareMatched(said) if self.report.ok else SoftwareMismatched(said)
        with self.table.lock:
            record = self.table.record(event)
        self.records.append(record)
        return record

    def acknowledge(self, user: User, reason: str) -> Record:
        """A supervisor (or operator) takes responsibility for running this software."""
        from dealer_station.table.base import TableError

        if not self.report.tilt:
            raise TableError("the software matches its manifest: there is nothing to "
                             "acknowledge")
        if self.acknowledged_by is not None:
            raise TableError(f"already acknowledged by {self.acknowledged_by}")
        self.table.require_supervisor(user, "acknowledge a software mismatch")
        why = self.table.require_reason(reason)
        event = SoftwareMismatchAcknowledged(why, {
            "overall": self.report.overall, "expected": self.report.expected,
            "file": self.report.first_file or self.report.headline(),
            "problems": self.report.problems()[:50]})
        with self.table.lock:
            record = self.table.record(event, user.actor)
        self.acknowledged_by = user.actor
        self.records.append(record)
        return record


def start_gate(table: TableService, report: IntegrityReport | None = None) -> IntegrityGate:
    """Check the running software (or take ``report``), journal the result, return the gate."""
    gate = IntegrityGate(table, report if report is not None else check_running())
    gate.record_start()
    return gate


__all__ = [
    "APPROVED_ENV", "DEVELOPMENT_TEXT", "KIND_ACK", "KIND_MISMATCH", "KIND_OK", "MANIFEST_NAME",
    "SUMS_NAME", "IntegrityError", "IntegrityGate", "IntegrityReport", "Manifest",
    "approved_hash", "check_running", "hash_file", "load_manifest", "overall_hash",
    "running_bundle", "scan", "start_gate", "sums_text", "verify_bundle", "write_manifest",
]
