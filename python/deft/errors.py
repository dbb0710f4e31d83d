"""What a call raises: `ActionFailed` carries the outcome of an action that was carried out
and failed (or a wait that timed out); `ToolError` a call that could not be carried out
(bad parameters, nothing found, no desktop); `DeftError` the server itself."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._result import ToolResult


class DeftError(Exception):
    """The Deft server could not be reached or ended (its last messages are in the text)."""


class ToolError(DeftError):
    """A call that could not be carried out: nothing was sent to the desktop.

    `kind` is the server's class of error (`usage`, `not_found`, `ambiguous`, `stale_ref`,
    `unavailable`, `failed`), `message` says what was wrong and what to do."""

    def __init__(self, tool: str, text: str) -> None:
        found = re.match(r"error \(([^)]+)\): (.*)", text, re.S)
        self.tool = tool
        self.kind = found.group(1) if found else "failed"
        self.message = (found.group(2) if found else text).strip()
        self.text = text
        super().__init__(f"{tool}: {self.message}")


class ActionFailed(DeftError):
    """An action that was carried out and failed: its `outcome` says what was expected,
    what was observed, and every attempt of the fallback chain."""

    def __init__(self, tool: str, outcome: "ToolResult") -> None:
        self.tool = tool
        self.outcome = outcome
        first = outcome.text.strip().splitlines()[0] if outcome.text.strip() else "failed"
        super().__init__(f"{tool}: {first}")
