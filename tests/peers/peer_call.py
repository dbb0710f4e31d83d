"""Actions on the fixture app through one tool's MCP server, for `cargo xtask bench peers`.

Written with the official MCP Python SDK (`mcp`, the client the tests use). It starts the
tool's stdio server once and keeps it, as an agent keeps its tools for a session; then,
for each request line on stdin (a JSON object: "pid", and "click": NAME, "type": [NAME,
TEXT] or "key": KEYS), it reads what the tool needs to find its target (untimed: each
tool's own lookup), makes the one call that acts (timed), and prints one JSON line:

  {"ok": bool, "claim": "verified" | "sent" | "failed", "said": str, "ms": float}

`claim` is what the tool itself says: "verified" when it says it checked the effect
(Deft: `seen` verified; cua-driver: `effect` "confirmed"; computer-use-linux: `verified`
true), "received" (Deft: the app showed it took the input, its effect not seen), "sent"
when it says only that the input went, "failed" when it says it failed. The bench judges every action by the fixture's own log, never by this.

Usage: peer_call.py TOOL SERVER
TOOL: deft | cua-driver | computer-use-linux; SERVER: the tool's binary.
"""

import argparse
import asyncio
import json
import os
import sys
import time

from mcp import Client, StdioServerParameters

# The desktop's variables, and no more (a user's client configuration gives a server few).
PASS_ENV = ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "HOME", "PATH")
# cua-driver sends telemetry and checks for updates by default: both off.
QUIET = {"DO_NOT_TRACK": "1", "CUA_DRIVER_RS_TELEMETRY_ENABLED": "0", "CUA_DRIVER_RS_UPDATE_CHECK": "false"}
# computer-use-linux fills missing desktop variables from its parents: pin the X11 ones.
X11 = {
    "XDG_SESSION_TYPE": "x11",
    "XDG_CURRENT_DESKTOP": "openbox",
    "XDG_SESSION_DESKTOP": "openbox",
    "DESKTOP_SESSION": "openbox",
    "COMPUTER_USE_LINUX_INDICATOR": "0",
    "COMPUTER_USE_LINUX_SCREENSHOT_BACKEND": "x11",
}


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def timed(client, name, args):
    started = time.monotonic()
    result = await client.call_tool(name, args)
    return result, (time.monotonic() - started) * 1000


def outcome(ok, claim, said, ms):
    return {"ok": ok, "claim": claim, "said": said[:300], "ms": round(ms, 1)}


async def deft(client, a):
    if a.click:
        name, args = "click", {"name": a.click}
    elif a.type:
        name, args = "type", {"target": a.type[0], "text": a.type[1]}
    else:
        name, args = "key", {"keys": a.key}
    result, ms = await timed(client, name, args)
    s = result.structured_content or {}
    ok = not result.is_error and s.get("ok") is True
    seen = s.get("seen")
    claim = "failed" if not ok else (seen if seen in ("verified", "received") else "sent")
    return outcome(ok, claim, s.get("observed") or text_of(result), ms)


def cua_claim(result):
    s = result.structured_content or {}
    if result.is_error or s.get("status") == "refused" or s.get("code"):
        return False, "failed", s
    return True, ("verified" if s.get("effect") == "confirmed" else "sent"), s


async def cua(client, a):
    windows, _ = await timed(client, "list_windows", {"pid": a.pid})
    listed = (windows.structured_content or {}).get("windows") or []
    if not listed:
        return outcome(False, "failed", "no window of pid %d: %s" % (a.pid, text_of(windows)), 0)
    window = listed[0]["window_id"]
    if a.key:
        keys = [k.lower() for k in a.key.split("+")]
        args = {"pid": a.pid, "window_id": window, "keys": keys, "delivery_mode": "foreground"}
        result, ms = await timed(client, "hotkey", args)
    else:
        label = a.click or a.type[0]
        state, _ = await timed(
            client,
            "get_window_state",
            {"pid": a.pid, "window_id": window, "include_screenshot": False, "tree_format": "elements", "query": label},
        )
        rows = (state.structured_content or {}).get("elements") or []
        row = next((r for r in rows if r.get("label") == label), None)
        if row is None:
            return outcome(False, "failed", "no element labelled %r" % label, 0)
        if a.click:
            result, ms = await timed(client, "click", {"element_token": row["element_token"]})
        else:
            # Its targeted insert (accessibility, read back): the fixture's fields start empty.
            result, ms = await timed(client, "type_text", {"element_token": row["element_token"], "text": a.type[1]})
    ok, claim, s = cua_claim(result)
    return outcome(ok, claim, s.get("summary") or text_of(result), ms)


async def computer_use_linux(client, a):
    # Its selectors resolve against the tree this call caches.
    await timed(client, "get_app_state", {"pid": a.pid, "include_screenshot": False})
    if a.click:
        result, ms = await timed(client, "click", {"name": a.click})
    elif a.type:
        result, ms = await timed(client, "set_value", {"role": "text", "name": a.type[0], "value": a.type[1]})
    else:
        result, ms = await timed(client, "press_key", {"key": a.key, "pid": a.pid})
    s = result.structured_content or {}
    ok = not result.is_error and s.get("ok") is True
    claim = "failed" if not ok else ("verified" if s.get("verified") is True else "sent")
    return outcome(ok, claim, s.get("message") or text_of(result), ms)


async def serve(client, act):
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        r = json.loads(line)
        a = argparse.Namespace(pid=r["pid"], click=r.get("click"), type=r.get("type"), key=r.get("key"))
        try:
            answer = await act(client, a)
        except Exception as e:  # a call that raised still gets its line
            answer = outcome(False, "failed", "%s: %s" % (type(e).__name__, e), 0)
        print(json.dumps(answer), flush=True)


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("tool", choices=["deft", "cua-driver", "computer-use-linux"])
    p.add_argument("server")
    a = p.parse_args()
    env = {k: os.environ[k] for k in PASS_ENV if k in os.environ}
    env.update(QUIET if a.tool == "cua-driver" else X11 if a.tool == "computer-use-linux" else {})
    params = StdioServerParameters(command=a.server, args=["mcp"], env=env)
    act = {"deft": deft, "cua-driver": cua, "computer-use-linux": computer_use_linux}[a.tool]
    async with Client(params) as client:
        await serve(client, act)


asyncio.run(main())
