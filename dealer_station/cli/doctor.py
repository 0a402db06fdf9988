"""``dealer-station doctor``: check this station's installation and say, in plain words, what
is wrong and what to do.

Checks, in order: the config files validate; the journal key file is private; the database
opens and is at the latest migration; the journal's hash chain verifies; each configured
serial device exists, opens and answers QUERY (HELLO) within ``--timeout``; the clock is in
sync; the installed software matches its manifest.

Each check is ``ok``, ``warn`` or ``FAIL``. The exit status is 1 when any check FAILs, else 0:
a warning (a clock that cannot be checked on this computer, a simulated device, a development
build without a manifest) says something a technician should know but does not stop a table.
Stop the station before running doctor with real devices: a serial port is read by one program
at a time.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer_station.cli.audit import store_options

if TYPE_CHECKING:
    from dealer_station.audit.db import Database
    from dealer_station.audit.keys import JournalKey
    from dealer_station.hardware.config import DeviceConfig
    from dealer_station.tomlconfig import Section

OK, WARN, FAIL = "ok", "warn", "FAIL"
DEFAULT_TIMEOUT = 5.0
CLOCK_COMMAND_TIMEOUT = 5.0
STATION_FILE = "station.toml"
DEVICES_FILE = "devices.toml"
UDEV_ROLES = ("shoe", "reader")
_HEX4 = re.compile(r"^[0-9a-fA-F]{4}$")
_SERIAL = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


@dataclass(frozen=True)
class Check:
    name: str
    status: str
    detail: str

    def line(self) -> str:
        return f"  {self.status:<5} {self.name:<9} {self.detail}"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("doctor", parents=[store_options()],
                       help="check this station's installation (config, journal, key, "
                            "devices, clock, software)",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="DIR",
                   help="the configuration folder (default: $DEALER_STATION_CONFIG or the "
                        "station's own config/)")
    p.add_argument("--devices", metavar="FILE",
                   help="the devices file (default: devices.toml in the configuration folder)")
    p.add_argument("--bundle", metavar="DIR",
                   help="the installed software to verify (default: the build this command "
                        "runs from, e.g. /opt/dealer-station)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"how long a device may take to open and answer QUERY "
                        f"(default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--skip", action="append", default=[], metavar="CHECK",
                   choices=("config", "key", "database", "journal", "devices", "clock",
                            "software"),
                   help="leave a check out (repeatable); it is listed as skipped")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError

    if args.timeout <= 0:
        raise StationError(f"--timeout must be above 0 seconds, got {args.timeout}")
    print("dealer-station doctor", flush=True)
    results: list[Check] = []
    for check in run_checks(args):
        results.append(check)
        print(check.line(), flush=True)
    failed = [c for c in results if c.status == FAIL]
    warned = [c for c in results if c.status == WARN]
    if failed:
        names = ", ".join(dict.fromkeys(c.name for c in failed))
        print(f"{len(failed)} of {len(results)} checks FAILED ({names}); "
              f"{len(warned)} warning(s)", flush=True)
        return 1
    print(f"all {len(results)} checks passed" + (f", {len(warned)} warning(s)" if warned else ""),
          flush=True)
    return 0


def run_checks(args: argparse.Namespace) -> Iterator[Check]:
    from dealer_station.gameconfig import config_dir

    conf = Path(args.config) if args.config else config_dir()
    devices_file = Path(args.devices) if args.devices else conf / DEVICES_FILE
    skip = set(args.skip)
    devices: dict[str, DeviceConfig] = {}
    if "config" in skip:
        yield Check("config", WARN, "skipped")
    else:
        found: dict[str, DeviceConfig] | None = None
        for check, result in check_config(conf, devices_file, named=bool(args.devices)):
            yield check
            if result is not None:
                found = result
        devices = found or {}
    if "config" in skip and "devices" not in skip and devices_file.exists():
        devices = _quiet_devices(devices_file)

    key: JournalKey | None = None
    if "key" in skip:
        yield Check("key", WARN, "skipped")
    else:
        check, key = check_key(args.key)
        yield check
        if key is not None:
            yield check_signing_key(key)

    db: Database | None = None
    try:
        if "database" in skip:
            yield Check("database", WARN, "skipped")
        else:
            check, db = check_database(args.db)
            yield check
        if "journal" in skip:
            yield Check("journal", WARN, "skipped")
        else:
            yield from check_journal(db, key, database_skipped="database" in skip)
    finally:
        if db is not None:
            db.close()

    if "devices" in skip:
        yield Check("devices", WARN, "skipped")
    else:
        yield from check_devices(devices, devices_file, args.timeout)
    yield Check("clock", WARN, "skipped") if "clock" in skip else check_clock()
    yield Check("software", WARN, "skipped") if "software" in skip else \
        check_software(args.bundle)


# --- config ---------------------------------------------------------------------------------

def check_config(conf: Path, devices_file: Path, *, named: bool = False
                 ) -> Iterator[tuple[Check, dict[str, DeviceConfig] | None]]:
    """One check per configuration file; the devices file's result is passed along.
    ``named``: the devices file was given by name, so it must exist."""
    from dealer_station import registry
    from dealer_station.cli._parts import CONFIG_CHECK
    from dealer_station.reports.printing import load_print_settings

    if not conf.is_dir():
        yield Check("config", FAIL, f"no configuration folder {conf} (install the default "
                                    f"configuration, or name the folder with --config)"), None
        return

    def attempt(name: str, path: Path, load: Callable[[Path], Any], good: Callable[[Any], str]
                ) -> tuple[Check, Any]:
        if not path.exists():
            return Check("config", FAIL, f"{path}: missing (the station needs it; copy it "
                                         f"from the default configuration)"), None
        try:
            value = load(path)
        except Exception as exc:  # ConfigError and anything a loader raises: report, go on
            text = str(exc) or type(exc).__name__
            if not text.startswith(str(path)):  # every failure names its file
                text = f"{path}: {text}"
            return Check("config", FAIL, text), None
        return Check("config", OK, f"{path}: valid ({good(value)})"), value

    # Each game's own file, checked by the game (the registry names how).
    for g in registry.REGISTRY.values():
        yield attempt(g.config_file, conf / g.config_file, g.part(CONFIG_CHECK),
                      lambda words: words)[0], None
    if devices_file.exists() or named:
        check, devices = attempt(DEVICES_FILE, devices_file, load_devices_file,
                                 lambda d: "devices: " + (", ".join(
                                     f"{r} {c.backend} {c.url or ''}".strip()
                                     for r, c in d.items()) or "none"))
        yield check, devices if devices is not None else {}
    else:
        yield Check("config", WARN, f"{devices_file}: no devices file; the station runs "
                                    f"without a shoe or reader (cards entered by hand)"), {}
    station = conf / STATION_FILE
    if station.exists():
        def load_station(path: Path) -> str:
            from dealer_station.gameconfig import load_gaming_calendar
            from dealer_station.reasons import ACTIONS, load_reasons

            printing = load_print_settings(path)
            udev = load_udev_matches(path)
            from dealer_station.monitor.settings import load_monitor_settings

            cal = load_gaming_calendar(path)
            reasons = load_reasons(path)
            monitor = load_monitor_settings(path)
            zone = str(cal.zone) if cal.zone is not None else "local time"
            return (f"printer {printing.printer or 'off'}, paper {printing.paper}; "
                    f"game protection: at most 1 false alarm per "
                    f"{monitor.rounds_per_false_alarm:,} rounds at a table, {monitor.seats} "
                    f"seats; "
                    f"udev: {', '.join(udev) or 'none'}; gaming day from "
                    f"{cal.day_starts:%H:%M} {zone}, shifts "
                    f"{', '.join(f'{s.name} {s.starts:%H:%M}' for s in cal.shifts)}; "
                    f"reasons: {sum(len(reasons.of(a)) for a in ACTIONS)} for "
                    f"{len(ACTIONS)} actions")

        yield attempt(STATION_FILE, station, load_station, lambda s: s)[0], None
    else:
        yield Check("config", WARN, f"{station}: none (printing off, no udev names)"), None
    from dealer_station.gameconfig import ACCOUNTING_FILE, load_accounting_settings

    accounting = conf / ACCOUNTING_FILE
    if accounting.exists():
        yield attempt(ACCOUNTING_FILE, accounting, load_accounting_settings,
                      lambda a: f"chips {', '.join(str(d) for d in a.denominations)}; "
                                f"variance threshold {a.variance_threshold}, inventory "
                                f"tolerance {a.inventory_tolerance}")[0], None
    else:
        yield Check("config", WARN, f"{accounting}: none (accounting uses the default chips "
                                    f"and no exception threshold)"), None


def load_devices_file(path: Path) -> dict[str, DeviceConfig]:
    """The devices file as ``dealer-station run`` reads it (unknown keys refused), without
    importing the window's package."""
    from dealer_station.hardware.config import parse_devices
    from dealer_station.tomlconfig import Section, load_toml

    root = Section(load_toml(path), str(path))
    devices = parse_devices(root)
    root.finish()
    return devices


def _quiet_devices(path: Path) -> dict[str, DeviceConfig]:
    try:
        return load_devices_file(path)
    except Exception:
        return {}


@dataclass(frozen=True)
class UsbMatch:
    """How udev recognises one device (the ``[udev.<role>]`` table of ``station.toml``)."""

    role: str
    vendor: str
    product: str
    serial: str = ""


def load_udev_matches(path: Path | str) -> dict[str, UsbMatch]:
    """The ``[udev.shoe]`` / ``[udev.reader]`` tables of the station file (install.sh writes
    the udev rule from them); ConfigError naming the file and key for a bad value."""
    from dealer_station.tomlconfig import ConfigError, Section, load_toml

    p = Path(path)
    root = Section(load_toml(p), str(p))
    if not root.has("udev"):
        return {}
    found: dict[str, UsbMatch] = {}
    for role, sec in root.sections("udev"):
        if role not in UDEV_ROLES:
            raise ConfigError(str(p), sec.path, f"unknown device {role!r}: expected "
                                                f"{' or '.join(UDEV_ROLES)}")
        found[role] = _usb_match(sec, role)
    pairs = [(m.vendor.lower(), m.product.lower(), m.serial) for m in found.values()]
    if len(pairs) == 2 and pairs[0] == pairs[1]:
        raise ConfigError(str(p), "udev", "the shoe and the reader have the same vendor, "
                                          "product and serial: udev could not tell them "
                                          "apart; set usb_serial for each (udevadm info "
                                          "/dev/ttyUSB0 shows ATTRS{serial})")
    return found


USB_KEYS = ("usb_vendor", "usb_product", "usb_serial")


def _usb_match(sec: Section, role: str) -> UsbMatch:
    unknown = sorted(set(sec.data) - set(USB_KEYS))
    if unknown:   # before "is required": a misspelt key is the likelier mistake
        raise sec.error(unknown[0], f"unknown key ({', '.join(USB_KEYS)})")
    vendor = sec.str("usb_vendor")
    product = sec.str("usb_product")
    serial = sec.str("usb_serial", "")
    for key, value in (("usb_vendor", vendor), ("usb_product", product)):
        if not _HEX4.match(value):
            raise sec.error(key, f"must be 4 hexadecimal digits as lsusb shows them "
                                 f"(e.g. \"0403\"), got {value!r}")
    if serial and not _SERIAL.match(serial):
        raise sec.error("usb_serial", f"must be 1-64 letters, digits, '.', '_', ':' or '-', "
                                      f"got {serial!r}")
    sec.finish()
    return UsbMatch(role, vendor.lower(), product.lower(), serial)


# --- key, database, journal -----------------------------------------------------------------

def check_key(path_arg: str | None) -> tuple[Check, JournalKey | None]:
    from dealer_station.audit.keys import KeyFileError, default_key_path, load_key

    path = Path(path_arg) if path_arg else default_key_path()
    try:
        key = load_key(path)
    except KeyFileError as exc:
        return Check("key", FAIL, str(exc)), None
    info = path.stat()
    mode = stat.S_IMODE(info.st_mode)
    return Check("key", OK, f"{path}: mode {mode:04o}, owner {_owner(info.st_uid)}; readable "
                            f"by its owner only"), key


def check_signing_key(key: JournalKey) -> Check:
    """The station's signing key beside the journal key: private, and whose it is."""
    from dealer_station.audit.keys import KeyFileError, load_signing_key

    try:
        signer = load_signing_key(key.path)
    except KeyFileError as exc:
        return Check("signing key", FAIL, str(exc))
    if signer is None:
        return Check("signing key", WARN, f"none yet beside {key.path}: the station makes it "
                                          f"at its next start (named from "
                                          f"$DEALER_STATION_NAME)")
    return Check("signing key", OK, f"{key.signing_path}: {signer.name}, readable by its "
                                    f"owner only; its public key (audit public-key) is what "
                                    f"the regulator verifies with")


def _owner(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return f"uid {uid}"


def check_database(url_arg: str | None) -> tuple[Check, Database | None]:
    from dealer_station.audit.db import (
        DatabaseError,
        current_revision,
        default_db_url,
        head_revision,
        mask_url,
        open_database,
    )

    url = url_arg or default_db_url()
    try:
        db = open_database(url, upgrade=False)
    except DatabaseError as exc:
        return Check("database", FAIL, f"{exc} (the station creates and upgrades it when it "
                                       f"starts)"), None
    try:
        with db.read() as conn:
            current = current_revision(conn)
        head = head_revision()
    except Exception as exc:
        db.close()
        return Check("database", FAIL, f"{mask_url(url)}: cannot read its schema ({exc})"), None
    if current != head:
        return Check("database", FAIL, f"{db.url}: schema revision {current}, the latest is "
                                       f"{head}; start the station once to upgrade it"), db
    return Check("database", OK, f"{db.url}: opens, schema at the latest revision ({head})"), db


def check_journal(db: Database | None, key: JournalKey | None, *,
                  database_skipped: bool = False) -> Iterator[Check]:
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.whole_check import Finding, check_everything

    if database_skipped:
        yield Check("journal", WARN, "skipped with the database check")
        return
    if db is None or key is None:
        missing = " and ".join(w for w, v in (("database", db), ("key", key)) if v is None)
        yield Check("journal", FAIL, f"cannot verify the chain without the {missing} (see "
                                     f"above)")
        return
    try:
        check = check_everything(Journal(db, key))
    except Exception as exc:
        yield Check("journal", FAIL, f"cannot be read: {exc}")
        return
    if not check.results:
        yield Check("journal", OK, "empty (no records yet)")
        return
    # One line per table (its chain, then its projections), per anchor file and for users.
    scopes: dict[str, list[Finding]] = {}
    for f in check.findings:
        scopes.setdefault(f.scope, []).append(f)
    for found in scopes.values():
        text = "; ".join(str(f).removeprefix(f"{found[0].scope}: ") if i else str(f)
                         for i, f in enumerate(found))
        if all(f.ok for f in found):
            yield Check("journal", WARN if any(f.warning for f in found) else OK, text)
        else:
            yield Check("journal", FAIL, f"{text}. Keep this database as it is and call the "
                                         f"operator: the journal, or a table the station acts "
                                         f"on, has been altered or damaged")


# --- devices --------------------------------------------------------------------------------

def check_devices(devices: dict[str, DeviceConfig], devices_file: Path,
                  timeout: float) -> Iterator[Check]:
    if not devices:
        yield Check("devices", WARN, f"none configured in {devices_file}")
        return
    for role in sorted(devices, key=lambda r: UDEV_ROLES.index(r) if r in UDEV_ROLES else 9):
        yield check_device(devices[role], timeout)


def check_device(cfg: DeviceConfig, timeout: float) -> Check:
    """Open the device as the station would and wait for its HELLO in answer to QUERY."""
    from dealer_station.hardware.backends import open_device
    from dealer_station.hardware.errors import DeviceInitError
    from dealer_station.hardware.events import (
        ConnectionState,
        DeviceEvent,
        DeviceFault,
        DeviceIdentified,
        FaultKind,
    )

    name = cfg.role
    if cfg.backend != "serial":
        return Check(name, WARN, f"{cfg.backend} backend: a simulated {cfg.role}, not real "
                                 f"hardware; nothing to check")
    url = cfg.url or ""
    if url.startswith("/") and not os.path.exists(url):
        hint = (" (is it plugged in? `udevadm info` on its /dev/ttyUSB port shows the "
                "vendor, product and serial to put in station.toml [udev."
                f"{cfg.role}], then re-run install.sh)" if url.startswith("/dev/") else "")
        return Check(name, FAIL, f"{url}: no such device{hint}")
    events: queue.Queue[DeviceEvent] = queue.Queue()
    try:
        handle = open_device(cfg.role, "serial", url=url, device_id=cfg.device_id or None,
                             baudrate=cfg.baudrate, on_event=events.put,
                             heartbeat_timeout=max(cfg.heartbeat_timeout, timeout),
                             reconnect_interval=timeout)
    except DeviceInitError as exc:
        return Check(name, FAIL, str(exc))
    faults: list[str] = []
    try:
        if not handle.driver.wait_state(ConnectionState.CONNECTED, timeout):
            detail = handle.driver.state_detail or handle.state.value
            hint = (" (the station's user must be in the dialout group)"
                    if "ermission" in detail else "")
            return Check(name, FAIL, f"{url}: cannot be opened: {detail}{hint}")
        handle.query()
        # The device has the whole timeout to answer, from the QUERY on (opening the port
        # may itself have taken part of it on a busy machine).
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = events.get(timeout=left)
            except queue.Empty:
                break
            if isinstance(event, DeviceIdentified):
                return Check(name, OK, f"{url}: opened, answered QUERY: {event.device_id} "
                                       f"model {event.model}, firmware {event.firmware}, "
                                       f"serial {event.serial_no}")
            if isinstance(event, DeviceFault):
                faults.append(event.detail)
                if event.kind == FaultKind.WRONG_DEVICE:
                    # Another device answers on this port: known now, no need to wait.
                    return Check(name, FAIL, f"{url}: opened, but it is not the device "
                                             f"configured (expected HELLO from "
                                             f"{cfg.device_id}): {event.detail}")
    finally:
        handle.close()
    heard = f"; it reported: {faults[-1]}" if faults else ""
    return Check(name, FAIL, f"{url}: opened, but no answer to QUERY within {timeout:g} s "
                             f"(expected HELLO from {cfg.device_id}){heard}. Check the device's "
                             f"power, cable and baud rate ({cfg.baudrate})")


# --- clock ----------------------------------------------------------------------------------

def check_clock() -> Check:
    """NTP synchronisation by timedatectl, else chronyc; neither answering is a warning.

    A clock the system says is NOT synchronised fails: every journal record carries the time,
    and a regulator compares them across tables.
    """
    answer = _run_tool(["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
    if answer is not None:
        value = answer.strip().lower()
        if value == "yes":
            return Check("clock", OK, "synchronised (timedatectl: NTPSynchronized=yes)")
        if value == "no":
            return Check("clock", FAIL, "NOT synchronised (timedatectl: NTPSynchronized=no); "
                                        "journal times may be wrong. Enable time sync: "
                                        "timedatectl set-ntp true, and check the network "
                                        "time server")
    answer = _run_tool(["chronyc", "-n", "tracking"])
    if answer is not None:
        leap = next((line.split(":", 1)[1].strip() for line in answer.splitlines()
                     if line.lower().startswith("leap status")), "")
        if leap.lower() == "normal":
            return Check("clock", OK, "synchronised (chronyc: leap status Normal)")
        if leap:
            return Check("clock", FAIL, f"NOT synchronised (chronyc: leap status {leap}); "
                                        f"journal times may be wrong. Check chronyd's time "
                                        f"servers (chronyc sources)")
    return Check("clock", WARN, "cannot be checked here (neither timedatectl nor chronyc "
                                "answered); make sure the computer's time is synchronised")


def _run_tool(command: list[str]) -> str | None:
    exe = shutil.which(command[0])
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, *command[1:]], capture_output=True, text=True,
                              timeout=CLOCK_COMMAND_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


# --- software -------------------------------------------------------------------------------

def check_software(bundle_arg: str | None) -> Check:
    from dealer_station.integrity import (
        APPROVED_ENV,
        DEVELOPMENT_TEXT,
        approved_hash,
        running_bundle,
        verify_bundle,
    )

    root = Path(bundle_arg) if bundle_arg else running_bundle()
    if root is None:
        return Check("software", WARN, f"{DEVELOPMENT_TEXT} ({Path(sys.argv[0]).name} runs "
                                       f"from a development checkout; --bundle DIR checks an "
                                       f"installed build)")
    approved = approved_hash()
    report = verify_bundle(root, approved)
    if report.ok:
        version = f" version {report.version}," if report.version else ""
        pinned = (f", the approved build's ({APPROVED_ENV})" if approved else
                  f" (not pinned: set {APPROVED_ENV} to refuse any other build)")
        return Check("software", OK, f"{root}:{version} {report.files} files match the "
                                     f"manifest; overall hash {report.overall}{pinned}")
    problems = report.problems()
    shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more"
                                       if len(problems) > 5 else "")
    return Check("software", FAIL, f"{root}: does NOT match its manifest: {shown}. Reinstall "
                                   f"the approved build")
