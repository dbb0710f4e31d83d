"""One long-lived `agent-cli mcp` process and the MCP protocol over its stdin and stdout
(JSON-RPC, one message per line), so a call costs what an MCP call costs, not a process.
Requests may overlap (the server runs actions one at a time); a reader thread hands each
reply to its caller."""

from __future__ import annotations

import collections
import itertools
import json
import os
import subprocess
import threading
from typing import Any, Deque, Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import CallTimeout, DeftError

PROTOCOL_VERSION = "2025-11-25"
# The handshake needs no desktop: a server that does not answer it in this long is not coming.
START_TIMEOUT = 30.0


class _Pending:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.reply: Optional[Dict[str, Any]] = None


class Session:
    """An initialized MCP session with one `agent-cli mcp` process."""

    def __init__(self, command: Sequence[str], env: Optional[Mapping[str, str]] = None) -> None:
        self._command = list(command)
        try:
            self._proc = subprocess.Popen(
                self._command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env) if env is not None else None,
                # Our own session and process group: a Ctrl+C meant for the caller's
                # program reaches the server only through close().
                start_new_session=True,
            )
        except OSError as e:
            raise DeftError(f"could not start {self._command[0]}: {e}") from e
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._pending: Dict[int, _Pending] = {}
        self._stderr: Deque[str] = collections.deque(maxlen=40)
        self._ended = False
        threading.Thread(target=self._read, name="deft-mcp-reader", daemon=True).start()
        threading.Thread(target=self._drain_stderr, name="deft-mcp-stderr", daemon=True).start()
        info = {"name": "deft-python", "version": _version()}
        try:
            init = self.request(
                "initialize",
                {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": info},
                START_TIMEOUT,
            )
        except BaseException:
            # A server that did not start right (or a Ctrl+C meanwhile) is not left running.
            self.close(timeout=2.0)
            raise
        self.server_info: Dict[str, Any] = init.get("serverInfo", {})
        self.instructions: str = init.get("instructions", "")
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    @property
    def pid(self) -> int:
        """The server process's id."""
        return self._proc.pid

    def request(self, method: str, params: Dict[str, Any], timeout: Optional[float] = None) -> Dict[str, Any]:
        """Send a request and wait for its result; a JSON-RPC error or the server ending
        raises DeftError with what the server said."""
        ident, pending = self.start(method, params)
        return self.wait(ident, pending, method, timeout)

    def start(self, method: str, params: Dict[str, Any]) -> Tuple[int, "_Pending"]:
        """Send a request; its reply is awaited with `wait` (or given up with `cancel`)."""
        ident = next(self._ids)
        pending = _Pending()
        with self._lock:
            if self._ended:
                raise DeftError(self._ended_message())
            self._pending[ident] = pending
        try:
            self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        except BaseException:
            with self._lock:
                self._pending.pop(ident, None)
            raise
        return ident, pending

    def wait(self, ident: int, pending: "_Pending", method: str, timeout: Optional[float]) -> Dict[str, Any]:
        """The reply to `start`'s request. Interrupted (Ctrl+C) or past `timeout`, the
        request is cancelled before the exception leaves: the server stops it if it has
        not started acting, and an action already under way runs to its end unwatched."""
        try:
            answered = pending.done.wait(timeout)
        except BaseException:
            self.cancel(ident)
            raise
        if not answered:
            self.cancel(ident)
            raise CallTimeout(
                f"{method} got no answer within {timeout} s; the request was cancelled, but an action the "
                "server had already started may still complete: look before you repeat it"
            )
        reply = pending.reply
        if reply is None:
            raise DeftError(self._ended_message())
        if "error" in reply:
            err = reply["error"]
            raise DeftError(f"{method}: {err.get('message', err)} (JSON-RPC error {err.get('code')})")
        result: Dict[str, Any] = reply.get("result", {})
        return result

    def cancel(self, ident: int) -> None:
        """Give up on a request: no reply is awaited and the server is told."""
        with self._lock:
            pending = self._pending.pop(ident, None)
        if pending is not None:
            pending.done.set()
            self._send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": ident}})

    @property
    def returncode(self) -> Optional[int]:
        """The server's exit status once it has ended (0: it ended by itself)."""
        return self._proc.poll()

    def close(self, timeout: float = 10.0) -> None:
        """End the session as MCP says over stdio: close the server's input, wait for it
        to exit, and only then terminate it."""
        with self._lock:
            self._ended = True
        try:
            if self._proc.stdin:
                self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._fail_pending()

    def _send(self, message: Dict[str, Any]) -> None:
        line = json.dumps(message) + "\n"
        with self._lock:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write(line.encode())
                self._proc.stdin.flush()
            except (OSError, ValueError):
                self._ended = True

    def _read(self) -> None:
        assert self._proc.stdout is not None
        try:
            for raw in self._proc.stdout:
                self._dispatch(raw)
        finally:
            # However reading ended, no caller waits for a reply that cannot come.
            with self._lock:
                self._ended = True
            self._fail_pending()

    def _dispatch(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            return  # stdout carries only the protocol; anything else is not ours to parse
        if not isinstance(message, dict):
            return
        ident = message.get("id")
        if "method" in message and ident is not None:
            if message["method"] == "ping":
                self._send({"jsonrpc": "2.0", "id": ident, "result": {}})
                return
            # Another request from the server (elicitation, roots): this client declared
            # no capability for any, so it answers that it has none.
            self._send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "error": {"code": -32601, "message": "the Python client has no handler for this request"},
                }
            )
            return
        if isinstance(ident, int):
            with self._lock:
                pending = self._pending.pop(ident, None)
            if pending is not None:
                pending.reply = message
                pending.done.set()

    def _drain_stderr(self) -> None:
        assert self._proc.stderr is not None
        for raw in self._proc.stderr:
            self._stderr.append(raw.decode(errors="replace").rstrip())

    def _fail_pending(self) -> None:
        with self._lock:
            waiting: List[_Pending] = list(self._pending.values())
            self._pending.clear()
        for p in waiting:
            p.done.set()

    def _ended_message(self) -> str:
        code = self._proc.poll()
        status = f"exited with status {code}" if code is not None else "closed its output"
        tail = "\n".join(self._stderr) or "(nothing on stderr)"
        return f"the Deft server ({' '.join(self._command)}) {status}; its last messages:\n{tail}"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("deft-desktop")
    except Exception:
        return os.environ.get("DEFT_VERSION", "0")
