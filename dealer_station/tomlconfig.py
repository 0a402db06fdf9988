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
        with p.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(str(p), "", "file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(p), "", f"not valid TOML ({exc})") from None
    except OSError as exc:
        raise ConfigError(str(p), "", f"cannot be read ({exc.strerror})") from None


class Section:
    """Typed access to one TOML table, remembering which keys were read."""

    def __init__(self, data: dict[str, Any], file: str, path: str = "") -> None:
        if not isinstance(data, dict):
            raise ConfigError(file, path, f"must be a table, got {type(data).__name__}")
        self.data = data
        self.file = file
        self.path = path
        self._used: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def error(self, name: str, reason: str) -> ConfigError:
        return ConfigError(self.file, self.key(name), reason)

    def has(self, name: str) -> bool:
        return name in self.data

    def _get(self, name: str, default: Any, required: bool) -> Any:
        self._used.add(name)
        if name not in self.data:
            if required:
                raise self.error(name, "is required")
            return default
        return self.data[name]

    def str(self, name: str, default: str | None = None, *, choices: tuple[str, ...] = ()
            ) -> str:
        value = self._get(name, default, default is None)
        if not isinstance(value, str):
            raise self.error(name, f"must be text, got {value!r}")
        if choices and value not in choices:
            raise self.error(name, f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    def int(self, name: str, default: int | None = None, *, minimum: int | None = None,
            maximum: int | None = None) -> int:
        value = self._get(name, default, default is None)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, f"must be a whole number, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.error(name, f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise self.error(name, f"must be at most {maximum}, got {value}")
        return value

    def positive_int(self, name: str, default: int | None = None) -> int:
        return self.int(name, default, minimum=1)

    def bool(self, name: str, default: bool | None = None) -> bool:
        value = self._get(name, default, default is None)
        if not isinstance(value, bool):
            raise self.error(name, f"must be true or false, got {value!r}")
        return value

    def list(self, name: str, default: list[Any] | None = None) -> list[Any]:
        value = self._get(name, default, default is None)
        if not isinstance(value, list):
            raise self.error(name, f"must be a list, got {value!r}")
        return value

    def section(self, name: str, *, required: bool = True) -> Section:
        value = self._get(name, {} if not required else None, required)
        if not isinstance(value, dict):
            raise self.error(name, f"must be a table, got {type(value).__name__}")
        return Section(value, self.file, self.key(name))

    def sections(self, name: str) -> Iterator[tuple[str, Section]]:
        """Each sub-table of table ``name`` as (key, Section)."""
        table = self.section(name, required=False)
        table.mark_all_used()
        for key, value in table.data.items():
            yield key, Section(value, self.file, table.key(key))

    def raw(self, name: str, default: Any = None) -> Any:
        return self._get(name, default, False)

    def mark_all_used(self) -> None:
        self._used.update(self.data)

    def finish(self) -> None:
        """Refuse keys that nothing read: they are misspellings or options this version lacks."""
        unknown = sorted(set(self.data) - self._used)
        if unknown:
            raise self.error(unknown[0], "unknown key (check the spelling; see the README's "
                                         "configuration section for the keys allowed here)")
