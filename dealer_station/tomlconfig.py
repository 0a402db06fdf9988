"""Reading TOML configuration with errors that name the file, the key and the reason.

Pure (stdlib only) so that the settlement packages can validate their own config data.
A ``Section`` wraps one TOML table: every read is typed, and ``finish()`` refuses any key the
code never asked for, so a misspelt option is an error instead of a silent default.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dealer_station.errors import StationError

# Section has methods named str/int/bool/list; these aliases keep the annotations meaning the
# built-in types inside the class body.
_Str = str
_Int = int
_Bool = bool
_List = list


class ConfigError(StationError):
    """A configuration file that cannot be used. ``str()`` reads ``file: key: reason``."""

    def __init__(self, file: str, key: str, reason: str) -> None:
        self.file = file
        self.key = key
        self.reason = reason
        where = f"{file}: {key}" if key else file
        super().__init__(f"{where}: {reason}")


def load_toml(path: Path | str) -> dict[str, Any]:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError(str(p), "", "file not found") from None
    except IsADirectoryError:
        raise ConfigError(str(p), "", "is a folder, not a file") from None
    except OSError as exc:
        raise ConfigError(str(p), "", f"cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(str(p), "", f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at line "
                                      f"{line}, column {column} (TOML files are UTF-8; save it "
                                      f"as UTF-8)") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(p), "", f"not valid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError(str(p), "", "not valid TOML (nested too deeply)") from None
    except ValueError:  # a number of thousands of digits: Python refuses to convert it
        raise ConfigError(str(p), "", "holds a number too long to read (thousands of "
                                      "digits); no setting needs one") from None


class Section:
    """Typed access to one TOML table, remembering which keys were read."""

    def __init__(self, data: dict[str, Any], file: _Str, path: _Str = "") -> None:
        if not isinstance(data, dict):
            raise ConfigError(file, path, f"must be a table, got {type(data).__name__}")
        self.data = data
        self.file = file
        self.path = path
        self._used: set[_Str] = set()

    def key(self, name: _Str) -> _Str:
        return f"{self.path}.{name}" if self.path else name

    def error(self, name: _Str, reason: _Str) -> ConfigError:
        return ConfigError(self.file, self.key(name), reason)

    def has(self, name: _Str) -> _Bool:
        return name in self.data

    def _get(self, name: _Str, default: Any, required: _Bool) -> Any:
        self._used.add(name)
        if name not in self.data:
            if required:
                raise self.error(name, "is required")
            return default
        return self.data[name]

    def str(
        self, name: _Str, default: _Str | None = None, *, choices: tuple[_Str, ...] = ()
    ) -> _Str:
        value = self._get(name, default, default is None)
        if not isinstance(value, str):
            raise self.error(name, f"must be text, got {value!r}")
        if choices and value not in choices:
            raise self.error(name, f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    def int(
        self,
        name: _Str,
        default: _Int | None = None,
        *,
        minimum: _Int | None = None,
        maximum: _Int | None = None,
    ) -> _Int:
        value = self._get(name, default, default is None)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, f"must be a whole number, got {value!r}")
        if minimum is not None and maximum is not None:
            if not minimum <= value <= maximum:
                raise self.error(name, f"must be from {minimum} to {maximum}, got {value}")
        elif minimum is not None and value < minimum:
            raise self.error(name, f"must be at least {minimum}, got {value}")
        elif maximum is not None and value > maximum:
            raise self.error(name, f"must be at most {maximum}, got {value}")
        return value

    def positive_int(self, name: _Str, default: _Int | None = None) -> _Int:
        return self.int(name, default, minimum=1)

    def bool(self, name: _Str, default: _Bool | None = None) -> _Bool:
        value = self._get(name, default, default is None)
        if not isinstance(value, bool):
            raise self.error(name, f"must be true or false, got {value!r}")
        return value

    def list(self, name: _Str, default: _List[Any] | None = None) -> _List[Any]:
        value = self._get(name, default, default is None)
        if not isinstance(value, list):
            raise self.error(name, f"must be a list, got {value!r}")
        return value

    def section(self, name: _Str, *, required: _Bool = True) -> Section:
        value = self._get(name, {} if not required else None, required)
        if not isinstance(value, dict):
            raise self.error(name, f"must be a table, got {type(value).__name__}")
        return Section(value, self.file, self.key(name))

    def sections(self, name: _Str) -> Iterator[tuple[_Str, Section]]:
        """Each sub-table of table ``name`` as (key, Section)."""
        table = self.section(name, required=False)
        table.mark_all_used()
        for key, value in table.data.items():
            yield key, Section(value, self.file, table.key(key))

    def raw(self, name: _Str, default: Any = None) -> Any:
        return self._get(name, default, False)

    def mark_all_used(self) -> None:
        self._used.update(self.data)

    def finish(self) -> None:
        """Refuse keys that nothing read: they are misspellings or options this version lacks."""
        unknown = sorted(set(self.data) - self._used)
        if unknown:
            raise self.error(
                unknown[0],
                "unknown key (check the spelling; see the README's "
                "configuration section for the keys allowed here)",
            )
