"""What the game-protection tests share: a simulated journal's files, as the command line takes
them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Files:
    """A SQLite journal and its key."""

    db: Path
    key: Path

    @property
    def args(self) -> list[str]:
        return ["--db", f"sqlite:///{self.db}", "--key", str(self.key)]
