"""What a call raises.

- `ActionFailed`: an action was carried out as far as it could be and failed, or a wait
  timed out; `.outcome` says what was expected, what was observed and every attempt. A
  target that never appeared (after the action's wait) is one: its outcome's
  `failure.candidates` are the closest elements. With `check=False` the outcome is
  returned instead.
- `ToolError`: the call could not be carried out: bad parameters, no desktop, a stale
  ref, a `find` or `read` that matched nothing (nothing was sent), or, with `kind`
  `failed`, the server failing while it carried the call out (input may have been sent).
  Raised whatever `check` says (there is no outcome to return).
- `CallTimeout`: no answer within the Desktop's `timeout`; the request was cancelled, but
  an action the server had already started may still complete (look before repeating it).
- `DeftError`: the server itself could not be started or ended (its last messages are in
  the text).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._result import ToolResult


class DeftError(Exception):
    """The Deft server could not be reached or ended (its last messages are in the text)."""


class ToolError(DeftError):
    """A call that could not be carried out (raised whatever `check` says): nothing was
    sent to the desktop, unless `kind` is `failed` (the server failed mid-call).

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


class CallTimeout(DeftError):
    """No answer within the Desktop's `timeout`. The request was cancelled, but an action
    the server had already started may still complete: look before repeating it."""
