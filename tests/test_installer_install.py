"""install.sh and uninstall.sh in a scratch root (``--prefix``), with the systemd and udev
folders elsewhere: what they write is checked file by file, and uninstall keeps the journal."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from installer_support import INSTALLER, ROOT, make_bundle, station_config, tree

from dealer_station.audit.db import open_database
from dealer_station.audit.keys import load_key
from dealer_station.cli.doctor import load_udev_matches
from dealer_station.integrity import verify_bundle
from dealer_station.tomlconfig import ConfigError

UNIT = "dealer-station.service"
RULES = "70-dealer-station.rules"
ETC = "etc/dealer-station"
VAR = "var/lib/dealer-station"
#: Every file the station ships in config/ is installed (games, devices, station, accounting,
#: tournaments...).
CONFIG_FILES = sorted(p.name for p in (ROOT / "config").glob("*.toml"))
assert {"bourre.toml", "devices.toml", "lapaire.toml", "station.toml"} <= set(CONFIG_FILES)


@dataclass
class Scratch:
    root: Path
    systemd: Path
    udev: Path
    bundle: Path
    overall: str

    def dirs(self) -> list[str]:
        return ["--prefix", str(self.root), "--systemd-dir", str(self.systemd),
                "--udev-dir", str(self.udev)]

    def install(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(["bash", str(INSTALLER / "install.sh"), "--bundle",
                               str(self.bundle), *self.dirs(), *args],
                              capture_output=True, text=True, timeout=60, check=False)
        if ok:
            assert done.returncode == 0, done.stdout + done.stderr
        return done

    def uninstall(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(["bash", str(INSTALLER / "uninstall.sh"), *self.dirs(), *args],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    def path(self, rel: str) -> Path:
        return self.root / rel


@pytest.fixture
def scratch(tmp_path: Path) -> Scratch:
    bundle, manifest = make_bundle(tmp_path / "build")
    root = tmp_path / "root"
    root.mkdir()
    return Scratch(root, tmp_path / "fake-systemd", tmp_path / "fake-udev", bundle,
                   manifest.overall)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def unit_settings(text: str) -> dict[str, list[str]]:
    """``Key=value`` lines of a unit file, as ``{"Section.Key": [values]}``."""
    found: dict[str, list[str]] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        found.setdefault(f"{section}.{key}", []).append(value)
    return found


def test_install_writes_each_file(scratch: Scratch, tmp_path: Path) -> None:
    conf = station_config(tmp_path)
    done = scratch.install("--config", str(conf))
    assert f"overall hash {scratch.overall}" in done.stdout

    # Exactly these files, and nothing in the scratch root's own systemd or udev folders.
    bundle_files = [f"opt/dealer-station/{p}" for p in tree(scratch.bundle)]
    assert tree(scratch.root) == sorted(
        [f"{ETC}/{f}" for f in [*CONFIG_FILES, "install.log", "station.env"]]
        + bundle_files + ["usr/local/bin/dealer-station", f"{VAR}/journal.key"])
    assert tree(scratch.systemd) == [UNIT]
    assert tree(scratch.udev) == [RULES]

    # The build: byte for byte, and still matching its manifest where it now lives.
    opt = scratch.path("opt/dealer-station")
    for rel in tree(scratch.bundle):
        assert (opt / rel).read_bytes() == (scratch.bundle / rel).read_bytes(), rel
    report = verify_bundle(opt)
    assert report.ok and report.overall == scratch.overall
    assert os.path.islink(opt / "_internal/libstation.so.1")
    assert mode(opt / "dealer-station") == 0o755

    # The configuration: the table's files, readable by the station's group only.
    etc = scratch.path(ETC)
    assert mode(etc) == 0o750
    for name in CONFIG_FILES:
        assert (etc / name).read_bytes() == (conf / name).read_bytes(), name
        assert mode(etc / name) == 0o640
    env = (etc / "station.env").read_text()
    assert [line for line in env.splitlines() if not line.startswith("#")] == [
        "DEALER_STATION_CONFIG=/etc/dealer-station",
        "DEALER_STATION_DB=sqlite:////var/lib/dealer-station/journal.db",
        "DEALER_STATION_KEY=/var/lib/dealer-station/journal.key"]

    # The journal key: generated, private, and what the station's key loader accepts.
    var = scratch.path(VAR)
    key = var / "journal.key"
    assert mode(var) == 0o700 and mode(key) == 0o600
    assert re.fullmatch(r"[0-9a-f]{64}\n", key.read_text())
    assert len(load_key(key).secret) == 32

    # udev: one line per device, from station.toml's [udev.*] tables.
    rules = (scratch.udev / RULES).read_text().splitlines()
    assert [r for r in rules if not r.startswith("#")] == [
        'SUBSYSTEM=="tty", ATTRS{idVendor}=="0403", ATTRS{idProduct}=="6001", '
        'ATTRS{serial}=="SHOE0001", SYMLINK+="dealer-shoe", GROUP="dialout", MODE="0660"',
        'SUBSYSTEM=="tty", ATTRS{idVendor}=="10c4", ATTRS{idProduct}=="ea60", '
        'SYMLINK+="dealer-reader", GROUP="dialout", MODE="0660"']
    assert mode(scratch.udev / RULES) == 0o644

    # systemd: the station full-screen under the kiosk compositor, restarted whenever it dies.
    unit_text = (scratch.systemd / UNIT).read_text()
    unit = unit_settings(unit_text)
    assert unit["Service.ExecStart"] == [
        "/usr/bin/cage -- /opt/dealer-station/dealer-station run --fullscreen"]
    assert unit["Service.Restart"] == ["always"]
    assert unit["Unit.StartLimitIntervalSec"] == ["0"]
    assert unit["Service.User"] == ["dealer-station"]
    assert unit["Service.SupplementaryGroups"] == ["dialout"]
    assert unit["Service.EnvironmentFile"] == ["/etc/dealer-station/station.env"]
    assert unit["Service.Environment"] == ["QT_QPA_PLATFORM=wayland"]
    assert unit["Service.PAMName"] == ["login"] and unit["Service.TTYPath"] == ["/dev/tty1"]
    assert unit["Service.ReadWritePaths"] == ["/var/lib/dealer-station"]
    assert unit["Service.ProtectSystem"] == ["full"]
    assert unit["Install.WantedBy"] == ["multi-user.target"]
    assert "Kiosk note" in unit_text

    # The command, with the installed settings.
    wrapper = scratch.path("usr/local/bin/dealer-station")
    assert mode(wrapper) == 0o755
    assert wrapper.read_text().splitlines()[-1] == 'exec /opt/dealer-station/dealer-station "$@"'

    # What was not done in a scratch root is recorded, as it would be run.
    log = (etc / "install.log").read_text()
    assert ("skipped (the prefix is not /): useradd --system --user-group --home-dir "
            "/var/lib/dealer-station --no-create-home --shell /usr/sbin/nologin --groups "
            "dialout dealer-station") in log
    assert ("would run: chown dealer-station:dealer-station /var/lib/dealer-station/journal.key"
            in log)
    assert "would run: systemctl enable dealer-station.service" in log
    assert "would run: udevadm control --reload-rules" in log
    assert f"overall {scratch.overall}" in log


def test_x11_kiosk_and_another_user(scratch: Scratch) -> None:
    scratch.install("--display", "x11", "--user", "table7", "--no-start")
    unit = unit_settings((scratch.systemd / UNIT).read_text())
    assert unit["Service.ExecStart"] == [
        "/usr/bin/xinit /opt/dealer-station/dealer-station run --fullscreen -- :0 vt1 "
        "-nolisten tcp -s 0 -dpms"]
    assert unit["Service.Environment"] == ["QT_QPA_PLATFORM=xcb"]
    assert unit["Service.User"] == ["table7"]
    log = scratch.path(f"{ETC}/install.log").read_text()
    assert "--groups dialout table7" in log and "restart" not in log
    # The bundle's default station.toml has no [udev] tables: no rule, and it says why.
    assert tree(scratch.udev) == []
    assert "no udev rule" in log


def test_reinstall_keeps_the_key_and_a_technicians_edits(scratch: Scratch) -> None:
    scratch.install()
    key = scratch.path(f"{VAR}/journal.key")
    secret = key.read_bytes()
    lapaire = scratch.path(f"{ETC}/lapaire.toml")
    edited = lapaire.read_text() + "\n# edited at the table\n"
    lapaire.write_text(edited)
    done = scratch.install()
    assert key.read_bytes() == secret                       # generated once
    assert "kept the existing journal key" in done.stdout
    assert lapaire.read_text() == edited
    dist = scratch.path(f"{ETC}/lapaire.toml.dist")
    assert dist.read_bytes() == (scratch.bundle / "_internal/config/lapaire.toml").read_bytes()
    assert "kept your /etc/dealer-station/lapaire.toml" in done.stdout
    # A key someone loosened is made private again, loudly.
    key.chmod(0o644)
    done = scratch.install()
    assert mode(key) == 0o600 and key.read_bytes() == secret
    assert "was mode 644" in done.stdout and "may have been copied" in done.stdout


def test_a_table_config_replaces_the_installed_one_with_a_backup(scratch: Scratch,
                                                                 tmp_path: Path) -> None:
    scratch.install()
    before = scratch.path(f"{ETC}/station.toml").read_bytes()
    conf = station_config(tmp_path)
    done = scratch.install("--config", str(conf))
    assert scratch.path(f"{ETC}/station.toml").read_bytes() == (conf / "station.toml").read_bytes()
    assert scratch.path(f"{ETC}/station.toml.old").read_bytes() == before
    assert "previous one is /etc/dealer-station/station.toml.old" in done.stdout


def test_a_changed_bundle_is_refused_and_nothing_installed(scratch: Scratch) -> None:
    target = scratch.bundle / "_internal/config/lapaire.toml"
    target.write_text(target.read_text() + "# edited\n")
    done = scratch.install(ok=False)
    assert done.returncode == 2
    assert "does not match its manifest" in done.stderr
    assert "_internal/config/lapaire.toml: FAILED" in done.stderr
    assert tree(scratch.root) == [] and not scratch.systemd.exists()


def test_an_extra_file_in_the_bundle_is_refused(scratch: Scratch) -> None:
    (scratch.bundle / "_internal/extra.so").write_bytes(b"not approved")
    done = scratch.install(ok=False)
    assert done.returncode == 2
    assert "files its manifest does not list: _internal/extra.so" in done.stderr
    assert tree(scratch.root) == []


def test_expect_hash_pins_the_approved_build(scratch: Scratch) -> None:
    done = scratch.install("--expect-hash", "0" * 64, ok=False)
    assert done.returncode == 2
    assert f"overall hash is {scratch.overall}, not the approved {'0' * 64}" in done.stderr
    assert tree(scratch.root) == []
    scratch.install("--expect-hash", scratch.overall)
    assert verify_bundle(scratch.path("opt/dealer-station")).ok


UDEV_PROBLEMS = [
    ('[udev.shoe]\nusb_vendor = "04031"\nusb_product = "6001"\n',
     "udev.shoe.usb_vendor: must be 4 hexadecimal digits"),
    ('[udev.reader]\nusb_vendor = "0403"\nusb_product = "6001"\nusb_serial = "A B"\n',
     "udev.reader.usb_serial: must be 1-64 letters"),
    ('[udev.shoe]\nusb_vendor = "0403"\nusb_prodcut = "6001"\n',
     "udev.shoe.usb_prodcut: unknown key"),
    ('[udev.shoe]\nusb_vendor = "0403"\n', "udev.shoe.usb_product: is required"),
    ('[udev.shoe]\nusb_vendor = "0403"\nusb_product = "6001"\n'
     '[udev.reader]\nusb_vendor = "0403"\nusb_product = "6001"\n',
     "udev: the shoe and the reader have the same vendor, product and serial"),
]


@pytest.mark.parametrize(("tables", "message"), UDEV_PROBLEMS)
def test_a_bad_udev_table_is_refused_by_install_and_by_doctor(
        scratch: Scratch, tmp_path: Path, tables: str, message: str) -> None:
    conf = station_config(tmp_path, tables)
    done = scratch.install("--config", str(conf), ok=False)
    assert done.returncode == 2
    assert f"{conf / 'station.toml'}: {message}" in done.stderr
    assert tree(scratch.root) == []
    with pytest.raises(ConfigError) as caught:       # doctor's reading says the same
        load_udev_matches(conf / "station.toml")
    assert message in str(caught.value)


def test_install_reads_only_plain_udev_lines(scratch: Scratch, tmp_path: Path) -> None:
    conf = station_config(tmp_path, '[udev.shoe]\nusb_vendor = 0x0403\n')
    done = scratch.install("--config", str(conf), ok=False)
    assert done.returncode == 2
    assert 'in [udev.shoe] write key = "text"' in done.stderr and "line " in done.stderr


def test_uninstall_removes_everything_but_the_journal(scratch: Scratch, tmp_path: Path) -> None:
    scratch.install("--config", str(station_config(tmp_path)))
    var = scratch.path(VAR)
    secret = (var / "journal.key").read_bytes()
    open_database(f"sqlite:///{var / 'journal.db'}").close()     # the station's first start
    (var / "journal.anchors").write_text("anchor\n")
    done = scratch.uninstall()
    assert tree(scratch.root) == [f"{VAR}/journal.anchors", f"{VAR}/journal.db",
                                  f"{VAR}/journal.key"]
    assert tree(scratch.systemd) == [] and tree(scratch.udev) == []
    assert (var / "journal.key").read_bytes() == secret
    assert "KEPT the journal in /var/lib/dealer-station" in done.stdout
    assert "would run: userdel dealer-station" in done.stdout
    assert "would run: systemctl disable --now dealer-station.service" in done.stdout
    # Installing again finds the journal and its key as they were.
    again = scratch.install()
    assert "kept the existing journal key" in again.stdout
    assert (var / "journal.key").read_bytes() == secret


def test_installed_station_passes_doctor(scratch: Scratch, tmp_path: Path) -> None:
    scratch.install("--config", str(station_config(tmp_path)))
    var = scratch.path(VAR)
    open_database(f"sqlite:///{var / 'journal.db'}").close()
    opt = scratch.path("opt/dealer-station")
    done = subprocess.run(
        [str(opt / "dealer-station"), "doctor", "--config", str(scratch.path(ETC)),
         "--db", f"sqlite:///{var / 'journal.db'}", "--key", str(var / "journal.key"),
         "--bundle", str(opt), "--skip", "devices"],
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "udev: shoe, reader" in done.stdout
    assert f"overall hash {scratch.overall}" in done.stdout


def test_the_command_takes_station_env_unless_already_set(scratch: Scratch) -> None:
    """The installed command names /etc and /opt; here it is pointed at the scratch root to
    run it."""
    scratch.install()
    wrapper = scratch.path("usr/local/bin/dealer-station").read_text()
    env_file = scratch.path(f"{ETC}/station.env")
    env_file.write_text(env_file.read_text().replace("/var/lib", str(scratch.path("var/lib"))))
    local = scratch.root / "run-wrapper"
    local.write_text(wrapper.replace("/etc/dealer-station", str(scratch.path(ETC)))
                     .replace("/opt/dealer-station", str(scratch.path("opt/dealer-station"))))
    local.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALER_STATION_")}
    args = [str(local), "doctor", "--skip", "config", "--skip", "database",
            "--skip", "journal", "--skip", "devices", "--skip", "clock", "--skip", "software"]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{scratch.path(VAR)}/journal.key: mode 0600" in done.stdout
    # A variable already set wins over the file.
    other = scratch.root / "other.key"
    other.write_text("0" * 64 + "\n")
    other.chmod(0o600)
    done = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False,
                          env={**env, "DEALER_STATION_KEY": str(other)})
    assert f"{other}: mode 0600" in done.stdout


def test_bad_options_are_refused(scratch: Scratch) -> None:
    done = scratch.install("--user", "Root Bad", ok=False)
    assert done.returncode == 2 and "--user Root Bad" in done.stderr
    done = scratch.install("--display", "vnc", ok=False)
    assert done.returncode == 2 and "wayland or x11" in done.stderr
    done = subprocess.run(["bash", str(INSTALLER / "install.sh"), "--bundle",
                           str(scratch.root / "none"), *scratch.dirs()],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "no bundle at" in done.stderr
    assert tree(scratch.root) == []


def test_the_scripts_explain_themselves() -> None:
    for script in ("install.sh", "uninstall.sh", "build.sh"):
        done = subprocess.run(["bash", str(INSTALLER / script), "--help"], capture_output=True,
                              text=True, check=False, cwd=ROOT)
        assert done.returncode == 0 and "--" in done.stdout, script
        assert not done.stdout.startswith("#!"), script



def test_an_approved_hash_is_pinned_and_sticks(scratch: Scratch, tmp_path: Path) -> None:
    scratch.install("--expect-hash", scratch.overall)
    env = scratch.path(f"{ETC}/station.env")
    assert f"DEALER_STATION_APPROVED_HASH={scratch.overall}" in env.read_text().splitlines()
    # A floor database named by the technician survives the next install.
    env.write_text(env.read_text().replace(
        "sqlite:////var/lib/dealer-station/journal.db", "postgresql+psycopg://station@floor/db"))
    scratch.install()                                  # the same build: the pin holds
    text = env.read_text()
    assert "DEALER_STATION_DB=postgresql+psycopg://station@floor/db" in text
    assert f"DEALER_STATION_APPROVED_HASH={scratch.overall}" in text
    # Another build is refused until it is named as the newly approved one.
    newer, manifest = make_bundle(tmp_path / "newer", version="10.0.0")
    scratch.bundle = newer
    assert manifest.overall != scratch.overall
    done = scratch.install(ok=False)
    assert done.returncode == 2
    assert f"pinned to the approved build {scratch.overall}" in done.stderr
    assert f"--expect-hash {manifest.overall}" in done.stderr
    assert verify_bundle(scratch.path("opt/dealer-station")).version == "9.9.9"   # untouched
    scratch.install("--expect-hash", manifest.overall)
    assert f"DEALER_STATION_APPROVED_HASH={manifest.overall}" in env.read_text()
    assert verify_bundle(scratch.path("opt/dealer-station")).version == "10.0.0"


def test_the_signing_keys_name_is_set_at_install_and_kept(
        scratch: Scratch, monkeypatch: pytest.MonkeyPatch) -> None:
    done = scratch.install("--name", "casino example/t1", ok=False)
    assert done.returncode == 2 and "--name casino example/t1" in done.stderr
    scratch.install("--name", "casino.example/pit3-t7")
    env = scratch.path(f"{ETC}/station.env").read_text()
    assert "DEALER_STATION_NAME=casino.example/pit3-t7" in env
    scratch.install()                                     # run again without it: kept
    assert "DEALER_STATION_NAME=casino.example/pit3-t7" in \
        scratch.path(f"{ETC}/station.env").read_text()
    # The station's first write makes the signing key under that name.
    from dealer_station.audit.keys import NAME_ENV, load_or_create_key, load_signing_key

    key = scratch.path(f"{VAR}/journal.key")
    monkeypatch.setenv(NAME_ENV, "casino.example/pit3-t7")
    load_or_create_key(key)
    signer = load_signing_key(key)
    assert signer is not None and signer.name == "casino.example/pit3-t7"
