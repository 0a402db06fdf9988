"""The reasons an operator configures (``[reasons]`` of ``config/station.toml``): the shipped
file reads, an action left out keeps its defaults, and every mistake is refused with the file,
the key and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer_station.reasons import ACTIONS, DEFAULT_REASONS, load_reasons
from dealer_station.tomlconfig import ConfigError
from tests.conftest import CONFIG_DIR


def test_the_shipped_file_offers_a_list_for_every_action() -> None:
    reasons = load_reasons(CONFIG_DIR / "station.toml")
    for action in ACTIONS:
        assert reasons.of(action), action
    assert reasons.of("resume")[0] == "shoe jam cleared"
    assert "player dispute" in reasons.of("void")
    assert "misread corrected" in reasons.of("correction")


def test_a_missing_file_or_table_gives_the_defaults_and_an_empty_list_only_other(
        tmp_path: Path) -> None:
    assert load_reasons(tmp_path / "none.toml").of("unlock") == DEFAULT_REASONS["unlock"]
    f = tmp_path / "station.toml"
    f.write_text('[printing]\nprinter = ""\n')
    assert load_reasons(f).of("void") == DEFAULT_REASONS["void"]
    f.write_text('[reasons]\nvoid = []\nunlock = ["  badge   checked "]\n')
    reasons = load_reasons(f)
    assert reasons.of("void") == () and reasons.of("unlock") == ("badge checked",)
    assert reasons.of("resume") == DEFAULT_REASONS["resume"]
    with pytest.raises(KeyError, match="not an action"):
        reasons.of("launch")


@pytest.mark.parametrize(("body", "key", "words"), [
    ('resume = "shoe jam cleared"', "reasons.resume", "must be a list"),
    ('void = ["dealer error", 3]', "reasons.void[1]", "must be text, got 3"),
    ('void = ["dealer error", "  "]', "reasons.void[1]", "must not be empty"),
    ('void = ["dealer error", "Dealer  Error"]', "reasons.void[1]", "listed twice"),
    ('unlock = ["Other…"]', "reasons.unlock[0]", "the keyboard's own button"),
    ('unlock = ["other..."]', "reasons.unlock[0]", "the keyboard's own button"),
    (f'unlock = ["{"x" * 61}"]', "reasons.unlock[0]", "at most 60"),
    ("unlock = [" + ", ".join(f'"r{i}"' for i in range(9)) + "]", "reasons.unlock",
     "at most 8 fit"),
    ('resum = ["shoe jam cleared"]', "reasons.resum", "unknown key"),
    ("reasons = 3", "reasons", "must be a table"),
])
def test_a_mistake_names_the_file_and_the_key(tmp_path: Path, body: str, key: str,
                                              words: str) -> None:
    f = tmp_path / "station.toml"
    f.write_text(body + "\n" if body.startswith("reasons =") else f"[reasons]\n{body}\n")
    with pytest.raises(ConfigError) as caught:
        load_reasons(f)
    err = caught.value
    assert (err.file, err.key) == (str(f), key)
    assert words in err.reason
    assert str(err).startswith(f"{f}: {key}: ")


def test_a_file_that_is_not_toml_is_refused_in_words(tmp_path: Path) -> None:
    f = tmp_path / "station.toml"
    f.write_text("[reasons\nresume = [\n")
    with pytest.raises(ConfigError, match=r"station\.toml: not valid TOML"):
        load_reasons(f)


def test_doctor_checks_the_reasons(tmp_path: Path) -> None:
    from dealer_station.cli.doctor import check_config

    conf = tmp_path / "config"
    conf.mkdir()
    for name in ("lapaire.toml", "bourre.toml", "station.toml", "accounting.toml"):
        (conf / name).write_text((CONFIG_DIR / name).read_text())
    checks = [c for c, _ in check_config(conf, conf / "devices.toml")]
    station = next(c for c in checks if "station.toml" in c.detail)
    assert station.status == "ok" and "reasons: 26 for 9 actions" in station.detail
    (conf / "station.toml").write_text(
        (CONFIG_DIR / "station.toml").read_text().replace('unlock = ["identity checked"',
                                                          'unlock = [7, "identity checked"'))
    checks = [c for c, _ in check_config(conf, conf / "devices.toml")]
    station = next(c for c in checks if "station.toml" in c.detail)
    assert station.status == "FAIL"
    assert station.detail == f"{conf / 'station.toml'}: reasons.unlock[0]: must be text, got 7"
