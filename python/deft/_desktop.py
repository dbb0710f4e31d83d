"""`Desktop` and `AsyncDesktop`: Deft's tools as Python methods over one MCP session."""

from __future__ import annotations

import asyncio
import functools
from types import TracebackType
from typing import Any, Dict, List, Mapping, Optional, Sequence, Type, TypeVar

from ._binary import agent_cli
from ._result import ToolResult, build, content
from ._session import Session
from ._tools import AsyncTools, SyncTools
from .errors import ActionFailed, ToolError

R = TypeVar("R", bound=ToolResult)


class _Base:
    def __init__(
        self,
        *,
        binary: Optional[str] = None,
        args: Sequence[str] = (),
        env: Optional[Mapping[str, str]] = None,
        check: bool = True,
        timeout: Optional[float] = None,
    ) -> None:
        self.check = check
        self.timeout = timeout
        self._session = Session([binary or agent_cli(), "mcp", *args], env)
        self._tools: Optional[List[Dict[str, Any]]] = None

    @property
    def server(self) -> Dict[str, Any]:
        """The server's name and version, as it introduced itself."""
        return self._session.server_info

    @property
    def pid(self) -> int:
        """The `agent-cli mcp` process's id."""
        return self._session.pid

    @property
    def returncode(self) -> Optional[int]:
        """The server's exit status once closed (0: it ended by itself when its input closed)."""
        return self._session.returncode

    def list_tools(self) -> List[Dict[str, Any]]:
        """The tools as the server lists them over MCP (name, description, input and output
        schemas, annotations): what the methods of this class were generated from."""
        if self._tools is None:
            self._tools = list(self._session.request("tools/list", {}, self.timeout).get("tools", []))
        return self._tools

    @staticmethod
    def _params(tool: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        # None means "not given": the server applies its own default.
        given = {k: (list(v) if isinstance(v, tuple) else v) for k, v in arguments.items() if v is not None}
        return {"name": tool, "arguments": given}

    def _call_now(self, tool: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        return self._session.request("tools/call", self._params(tool, arguments), self.timeout)

    def _result(self, tool: str, kind: Type[R], reply: Dict[str, Any], check: Optional[bool]) -> R:
        if reply.get("isError") and not isinstance(reply.get("structuredContent"), dict):
            raise ToolError(tool, content(reply)[0])
        result = build(kind, reply)
        if result.is_error and (self.check if check is None else check):
            raise ActionFailed(tool, result)
        return result


class Desktop(_Base, SyncTools):
    """Deft's verified tools on this desktop, as methods: one `agent-cli mcp` process
    underneath for the object's life.

        with deft.Desktop() as d:
            d.click("Submit")                 # verified, retried; raises ActionFailed if not
            outcome = d.type("Ada", target="Name")
            print(outcome.seen, outcome.attempts)

    `binary` is the agent-cli to run (default: the one installed with this package),
    `args` extra options for `agent-cli mcp` (e.g. `["--trace", "traces/"]`), `env` its
    environment (default: this process's: DISPLAY, WAYLAND_DISPLAY, the session bus).
    With `check=False` a failed action returns its outcome instead of raising.
    """

    def _call(self, tool: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        return self._call_now(tool, arguments)

    def close(self) -> None:
        """End the session and wait for the server to exit."""
        self._session.close()

    def __enter__(self) -> "Desktop":
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], value: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()


class AsyncDesktop(_Base, AsyncTools):
    """`Desktop` for asyncio: the same methods as coroutines; cancelling one cancels its
    request. `await AsyncDesktop.open(...)` starts the server off the event loop.

        async with await deft.AsyncDesktop.open() as d:
            await d.click("Submit")
    """

    @classmethod
    async def open(cls, **options: Any) -> "AsyncDesktop":
        """`AsyncDesktop(**options)` with the server's start off the event loop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, functools.partial(cls, **options))

    async def _call(self, tool: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        ident, pending = self._session.start("tools/call", self._params(tool, arguments))
        loop = asyncio.get_running_loop()
        wait = functools.partial(self._session.wait, ident, pending, "tools/call", self.timeout)
        try:
            reply = await loop.run_in_executor(None, wait)
        except asyncio.CancelledError:
            # The task was cancelled: so is the request (the waiting thread wakes at once).
            self._session.cancel(ident)
            raise
        return reply

    async def aclose(self) -> None:
        """End the session and wait for the server to exit."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self._session.close)

    async def __aenter__(self) -> "AsyncDesktop":
        return self

    async def __aexit__(
        self, kind: Optional[Type[BaseException]], value: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        await self.aclose()
