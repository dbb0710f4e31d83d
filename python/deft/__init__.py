"""Deft from Python: desktop actions that check their own effect.

    import deft

    with deft.Desktop() as d:
        d.click("Submit")                  # verified; a press that did nothing is retried
        d.type("Ada", target="Name")       # raises deft.ActionFailed with the outcome if not

Every method is one of Deft's tools (the same names and parameters as over MCP and on the
command line), returns a typed result, and runs in one long-lived `agent-cli mcp` process.
`AsyncDesktop` has the same methods as coroutines.
"""

from ._desktop import AsyncDesktop, Desktop
from ._result import ToolResult
from ._tools import (
    TOOL_NAMES,
    Attempt,
    DoctorReport,
    Evidence,
    FindResult,
    OcrResult,
    Outcome,
    ReadResult,
    Screenshot,
    WaitResult,
)
from .errors import ActionFailed, CallTimeout, DeftError, ToolError

__all__ = [
    "TOOL_NAMES",
    "ActionFailed",
    "AsyncDesktop",
    "CallTimeout",
    "Attempt",
    "DeftError",
    "Desktop",
    "DoctorReport",
    "Evidence",
    "FindResult",
    "OcrResult",
    "Outcome",
    "ReadResult",
    "Screenshot",
    "ToolError",
    "ToolResult",
    "WaitResult",
]
