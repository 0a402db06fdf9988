"""A label that keeps its height whatever it is given to say.

The message bar under the felt and the demo strip's last card are such labels: a long text
is cut with an ellipsis at the end of its last line (the tooltip holds it in full) rather
than wrapping onto a new line, so the felt above them never moves.
"""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

ELLIPSIS = "…"


class FixedLinesLabel(QLabel):
    """``lines`` lines of text, fixed in height; ``text()`` is the whole text given."""

    def __init__(self, lines: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lines = lines
        self._full = ""
        self.setWordWrap(lines > 1)
        self.setMinimumWidth(1)     # a long text never widens the window either
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def fix_height(self) -> None:
        """Take the height of ``lines`` lines in the label's style (call once it is
        styled)."""
        self.ensurePolished()
        super().setText("\n".join(["Xg"] * self.lines))
        self.setFixedHeight(super().sizeHint().height())
        self._fit()

    def text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self.setToolTip(text if text else "")
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def shown(self) -> str:
        """The text as it is drawn now (cut to fit, if it had to be)."""
        return super().text()

    def _fits(self, text: str) -> bool:
        if not self.wordWrap():
            return self.fontMetrics().horizontalAdvance(text) <= self.contentsRect().width()
        return self.heightForWidth(self.width()) <= self.height()

    def _fit(self) -> None:
        full = self._full
        super().setText(full)
        if not full or self.width() <= 1 or self._fits(full):
            return
        # The longest beginning of the text, cut at a word if it can be, that fits.
        lo, hi = 0, len(full)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            super().setText(full[:mid].rstrip() + ELLIPSIS)
            if self._fits(super().text()):
                lo = mid
            else:
                hi = mid - 1
        cut = full[:lo]
        space = cut.rfind(" ")
        if space > lo * 2 // 3:
            cut = cut[:space]
        super().setText(cut.rstrip() + ELLIPSIS)
