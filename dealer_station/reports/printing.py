"""Sending a report to the system's print queue (CUPS ``lp``), with messages a supervisor can act
on. Qt-free: the supervisor screen calls :func:`print_pdf` as the command line does.

The printer's name and the paper size are in ``config/station.toml``::

    [printing]
    printer = "PitOffice"   # a CUPS queue (lpstat -p); empty: printing is off
    paper = "A4"            # or "letter"
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from dealer_station.errors import StationError
from dealer_station.gameconfig import config_dir
from dealer_station.tomlconfig import ConfigError, Section, load_toml

STATION_FILE = "station.toml"
PAPERS = ("A4", "letter")
#: How long ``lp`` may take to hand the file to the queue (it does not wait for the printer).
LP_TIMEOUT_SECONDS = 30
_BAD_QUEUE_CHARS = frozenset(" \t\r\n/#\\\"'")


class PrintError(StationError):
    """The report could not be handed to the print queue; the PDF file is still there."""


@dataclass(frozen=True)
class PrintSettings:
    printer: str = ""
    paper: str = "A4"
    file: str = ""


def load_print_settings(path: Path | str | None = None) -> PrintSettings:
    """The ``[printing]`` section of the station file (other sections are not read here).

    A station without the file has printing off; a file with a bad value is refused with the
    file, key and reason.
    """
    p = Path(path) if path is not None else config_dir() / STATION_FILE
    if path is None and not p.exists():
        return PrintSettings(file=str(p))
    data = load_toml(p)
    if "printing" not in data:
        return PrintSettings(file=str(p))
    sec = Section(data, str(p)).section("printing")
    printer = sec.str("printer", "").strip()
    paper = sec.str("paper", "A4", choices=PAPERS)
    sec.finish()
    if printer:
        check_queue_name(printer, str(p))
    return PrintSettings(printer, paper, str(p))



def configured_printer(path: Path | str | None = None) -> str:
    """The station's printer, or "" where none is set or the file cannot be read (a screen
    then saves its slips as PDFs)."""
    try:
        return load_print_settings(path).printer
    except StationError:
        return ""

def check_queue_name(name: str, file: str = "<printer>") -> None:
    if name.startswith("-") or any(c in _BAD_QUEUE_CHARS for c in name) or len(name) > 127:
        raise ConfigError(file, "printing.printer",
                          f"{name!r} is not a CUPS queue name (no spaces, '/', '#' or quotes, "
                          f"not starting with '-'); `lpstat -p` lists the queues")


def print_pdf(path: Path | str, printer: str | None, *, title: str | None = None,
              copies: int = 1, lp: str = "lp") -> str:
    """Queue the PDF at ``path`` on ``printer`` with CUPS ``lp``; returns what lp answered
    (``request id is PitOffice-12 (1 file(s))``). Raises PrintError saying what to do."""
    path = Path(path)
    saved = f"the report is saved as {path}"
    if not printer or not printer.strip():
        raise PrintError(f"no printer is configured: set [printing] printer in "
                         f"{config_dir() / STATION_FILE} to a CUPS queue name (`lpstat -p` "
                         f"lists them); {saved}")
    printer = printer.strip()
    try:
        check_queue_name(printer)
    except ConfigError as e:
        raise PrintError(f"{e.reason}; {saved}") from None
    if not path.is_file():
        raise PrintError(f"there is no report file at {path} to print")
    if not 1 <= copies <= 99:
        raise PrintError(f"copies must be 1 to 99, got {copies}")
    exe = shutil.which(lp)
    if exe is None:
        raise PrintError(f"the print command '{lp}' is not installed (the CUPS client: on "
                         f"Debian or Ubuntu, apt-get install cups-client); {saved}")
    cmd = [lp, "-d", printer, "-n", str(copies)]
    if title:
        cmd += ["-t", title]
    cmd += ["--", str(path)]
    try:
        done = subprocess.run(cmd, executable=exe, capture_output=True, text=True,
                              timeout=LP_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise PrintError(f"the print queue did not answer within {LP_TIMEOUT_SECONDS} s "
                         f"(is the CUPS service running?); {saved}") from None
    except OSError as e:
        raise PrintError(f"could not run {exe}: {e.strerror}; {saved}") from None
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        raise PrintError(f"printing on '{printer}' failed: "
                         f"{why[-1] if why else f'lp exit status {done.returncode}'}; {saved}")
    return done.stdout.strip() or f"sent to {printer}"


def printed_if(path: Path | str, printer: str | None, title: str) -> str:
    """``"; "`` and what the printer answered when a screen has a printer, else nothing: the
    tail of a screen's "saved as ..." message."""
    return "; " + print_pdf(path, printer, title=title) if printer else ""
