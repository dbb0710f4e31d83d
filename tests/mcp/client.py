"""An MCP client for `agent-cli mcp`, written with the official MCP Python SDK (`mcp`).

The Rust tests in crates/agent-cli/tests/mcp.rs run this script on a headless desktop
with the fixture app, then judge the app by its ground-truth log. This script checks what
only a client can see: the protocol (schemas that are valid JSON Schema, structured
results the SDK validates against the tools' output schemas, isError, image blocks,
progress notifications, cancellation) and prints a JSON report of every call on stdout.

Usage:  client.py SERVER_BINARY SCENARIO [--mode auto|legacy] [-- SERVER_ARGS...]

Scenarios:
  list    list the tools; the report carries them as listed
  every-tool
          every tool once (every_tool.json), each result checked against its output schema
  faults  (fixture with --drop-clicks 1 and --ignore-keys) find, click through a dropped
          click, type into the field that ignores keys, a wait with progress, a wait
          cancelled by the client, a screenshot, bad arguments, then calls that still work
  popup   (fixture with --popup) a click a popup blocks, dismissing it, the click again
  hang-wait, hang-action
          start a long call, print CALLING, and wait to be killed
  task-elicit
          (fixture with --ambiguous, the harness's test model) run_task; the agent's question
          is answered through elicitation ("the one in Billing")
  task-defer
          the same with a client without elicitation: needs_input, then run_task again with
          run_id and answer

The server gets only the variables a user's client configuration would give it (the SDK
passes HOME, PATH and a few others): DISPLAY and the session bus address, plus the test
harness's marker and config home.

A failed check exits 1 after printing `FAIL: ...` lines on stderr.
"""

import argparse
import asyncio
import base64
import json
import os
import sys
import time

from jsonschema.validators import validator_for
from mcp import Client, StdioServerParameters
from mcp_types import ElicitResult

PASS_ENV = (
    "DISPLAY",
    "DBUS_SESSION_BUS_ADDRESS",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "DEFT_DESKTOP_ID",
    "DEFT_MODEL_PROVIDER",
    "DEFT_MODEL",
    "DEFT_MODEL_BASE_URL",
    "ANTHROPIC_API_KEY",
)
TOOLS = [
    "click", "type", "fill", "set_value", "action", "key", "scroll", "wait_for", "read", "find", "screenshot", "ocr",
    "doctor", "run_flow", "run_task",
]
ACTS = TOOLS[:7] + ["run_flow", "run_task"]
# The tools whose results have no output schema (a flow's steps are each tool's own results).
NO_OUTPUT_SCHEMA = ("run_flow", "run_task")
AMBIGUOUS_GOAL = 'Type "Ada" into Name, then press Submit.'


failures = []
report = {"calls": []}


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr, flush=True)
    return ok


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def call(client, name, args, **kw):
    """Call a tool and record what came back (the SDK has already validated structured
    content against the tool's output schema when the result is not an error)."""
    progress = []

    async def on_progress(value, total, message):
        progress.append({"progress": value, "total": total, "message": message})

    started = time.monotonic()
    result = await client.call_tool(name, args, progress_callback=on_progress, **kw)
    entry = {
        "tool": name,
        "args": args,
        "is_error": bool(result.is_error),
        "text": text_of(result),
        "structured": result.structured_content,
        "content_types": [c.type for c in result.content],
        "progress": progress,
        "ms": round((time.monotonic() - started) * 1000),
    }
    report["calls"].append(entry)
    return result, entry


def check_tools(listed):
    names = [t.name for t in listed]
    check(names == TOOLS, f"tools listed as {names}, expected {TOOLS}")
    for t in listed:
        for kind, schema in (("input", t.input_schema), ("output", t.output_schema)):
            if schema is None:
                continue
            try:
                validator_for(schema).check_schema(schema)
            except Exception as e:  # jsonschema.SchemaError, or a bad $schema
                check(False, f"{t.name}: the {kind} schema is not valid JSON Schema: {e}")
            check(schema.get("type") == "object", f"{t.name}: the {kind} schema is not an object schema")
        a = t.annotations
        check(a is not None, f"{t.name} has no annotations")
        if a is not None:
            acts = t.name in ACTS
            check(a.read_only_hint == (not acts), f"{t.name}: readOnlyHint {a.read_only_hint}")
            has_output = t.name not in NO_OUTPUT_SCHEMA
            check((t.output_schema is not None) == has_output, f"{t.name}: an output schema for every tool")
    report["tools"] = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]


async def scenario_list(client):
    listed = (await client.list_tools()).tools
    check_tools(listed)


async def scenario_faults(client):
    check_tools((await client.list_tools()).tools)

    # A ref from find, then a click through the dropped first press.
    r, e = await call(client, "find", {"name": "Submit order"})
    check(not r.is_error and e["structured"]["count"] == 1, f"find Submit order: {e}")
    ref = e["structured"]["matches"][0]["ref"]
    check(ref.startswith("e"), f"find gives a ref: {ref}")
    r, e = await call(client, "click", {"target": ref})
    s = e["structured"] or {}
    check(not r.is_error, f"the dropped click is recovered: {e['text']}")
    check(s.get("ok") is True and s.get("verified") is True and s.get("retried") is True, f"click outcome: {s}")
    check("changes in the window" in e["text"], f"the click shows what changed: {e['text']}")
    check(e["progress"], "the click sent progress notifications")

    # The field that ignores keystrokes: the text lands through set-value.
    r, e = await call(client, "type", {"target": "Name", "text": "John"})
    s = e["structured"] or {}
    check(not r.is_error and s.get("ok") is True, f"type into the field that ignores keys: {e['text']}")
    methods = [a["method"] for a in s.get("attempts", [])]
    check(methods[-1:] == ["a11y_set"], f"the text was set after the keys were ignored: {methods}")

    # A wait that takes a while (Save completes after --save-delay-ms), with progress.
    r, e = await call(client, "click", {"name": "Save"})
    check(not r.is_error, f"click Save: {e['text']}")
    r, e = await call(client, "wait_for", {"condition": 'title:"Save complete"', "timeout_ms": 10000})
    check(not r.is_error and e["structured"]["met"] is True, f"wait for Save complete: {e['text']}")
    check(len(e["progress"]) >= 2, f"the wait sent progress (start and ticks): {e['progress']}")
    totals = {p["total"] for p in e["progress"]}
    check(totals == {10000}, f"a wait's progress has its timeout as total: {totals}")
    r, e = await call(client, "click", {"window": "Save complete", "name": "OK"})
    check(not r.is_error, f"close the Save complete dialog: {e['text']}")

    # A wait the client gives up on: the request is cancelled, the server answers the next.
    started = time.monotonic()
    try:
        never = {"condition": 'text:"Never shown"', "timeout_ms": 4000}
        _, e = await call(client, "wait_for", never, read_timeout_seconds=1.0)
        report["cancelled_wait"] = e
    except Exception as ex:  # the SDK's timeout, after it sent notifications/cancelled
        report["cancelled_wait"] = repr(ex)
    check(isinstance(report["cancelled_wait"], str), f"the client gave up on the wait: {report['cancelled_wait']}")
    r, e = await call(client, "read", {"app": "Deft Fixture", "depth": 1})
    check(not r.is_error and "Deft Fixture" in e["text"], f"read after a cancelled wait: {e['text'][:300]}")
    check(time.monotonic() - started < 3.5, "the server answered at once after the cancellation")

    r, e = await call(client, "screenshot", {})
    images = [c for c in r.content if c.type == "image"]
    check(len(images) == 1 and images[0].mime_type == "image/png", f"one PNG block: {e['content_types']}")
    if images:
        png = base64.b64decode(images[0].data)
        check(png[:8] == b"\x89PNG\r\n\x1a\n", "the image is a PNG")
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        report["screenshot"] = [width, height]

    # Text on screen by OCR, in the fixture's window: the button's label, where it is.
    r, e = await call(client, "ocr", {"window": "Deft Fixture", "find": "Submit order"})
    lines = (e["structured"] or {}).get("lines", [])
    check(not r.is_error and any("Submit" in l["text"] for l in lines), f"ocr finds Submit order: {e['text'][:300]}")
    report["ocr"] = lines[:1]

    # Bad arguments are tool errors; the server answers the next call.
    r, e = await call(client, "click", {"nme": "Submit order"})
    check(r.is_error and "unknown parameter `nme`" in e["text"] and "`name`" in e["text"], f"typo: {e['text']}")
    r, e = await call(client, "type", {"target": "Name"})
    check(r.is_error and "text" in e["text"], f"missing text: {e['text']}")
    r, e = await call(client, "click", {"target": "e99999"})
    check(r.is_error, f"a ref never shown is an error: {e['text']}")
    r, e = await call(client, "find", {"role": "push_button", "name": "Hello"})
    check(not r.is_error and e["structured"]["count"] == 1, f"the server still answers: {e['text']}")

    # Let the cancelled wait's timeout pass, so the trace would show it had it run on.
    await asyncio.sleep(max(0.0, started + 4.5 - time.monotonic()))


async def scenario_every_tool(client):
    """Every tool once (tests/mcp/every_tool.json, the list the Inspector test calls too):
    each result carries structured content that validates against the tool's output
    schema, failures included (the SDK checks only results that are not errors)."""
    listed = (await client.list_tools()).tools
    check_tools(listed)
    schemas = {t.name: t.output_schema for t in listed}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "every_tool.json")) as f:
        calls = json.load(f)
    for name, args in calls:
        r, e = await call(client, name, args)
        s = e["structured"]
        if not check(isinstance(s, dict), f"{name} {args}: no structured content: {e['text'][:300]}"):
            continue
        schema = schemas[name]
        if schema is None:
            check(name in NO_OUTPUT_SCHEMA, f"{name}: no output schema")
            check(bool(r.is_error) == ("expect" in args), f"{name} {args}: isError {r.is_error}: {e['text'][:300]}")
            continue
        errors = sorted(validator_for(schema)(schema).iter_errors(s), key=str)
        check(not errors, f"{name}: the result does not match its output schema: {[str(x)[:300] for x in errors[:3]]}")
        check(bool(r.is_error) == ("expect" in args), f"{name} {args}: isError {r.is_error}: {e['text'][:300]}")


async def scenario_popup(client):
    r, e = await call(client, "click", {"name": "Submit order"})
    s = e["structured"] or {}
    check(r.is_error, f"a click the popup blocks is an error result: {e['text']}")
    check((s.get("blocking") or {}).get("name") == "New Event!", f"blocking names the popup: {s}")
    check(s.get("suggested_action") == "dismiss_popup_then_retry", f"suggested action: {s}")
    check("blocking: dialog" in e["text"], f"the text says what blocks: {e['text']}")
    r, e = await call(client, "find", {"window": "New Event!", "name": "OK"})
    check(not r.is_error and e["structured"]["count"] == 1, f"find the popup's OK: {e['text']}")
    ok_ref = e["structured"]["matches"][0]["ref"]
    r, e = await call(client, "click", {"target": ok_ref})
    check(not r.is_error, f"dismiss the popup by its ref: {e['text']}")
    # The popup is gone: its ref fails closed instead of hitting whatever is there now.
    r, e = await call(client, "click", {"target": ok_ref})
    check(r.is_error and "stale" in e["text"] and "read again" in e["text"], f"a stale ref: {e['text']}")
    r, e = await call(client, "click", {"name": "Submit order"})
    check(not r.is_error and e["structured"]["ok"] is True, f"the click after the popup: {e['text']}")


questions = []


async def answer_billing(context, params):
    """The person at the client: answers Deft's question with the Billing form's Submit."""
    questions.append(params.message)
    return ElicitResult(action="accept", content={"answer": "the one in Billing"})


async def scenario_task_elicit(client):
    r, e = await call(client, "run_task", {"goal": AMBIGUOUS_GOAL, "app": "Deft Fixture"})
    s = e["structured"] or {}
    check(not r.is_error and s.get("status") == "goal_met", f"run_task with an answer: {e['text']}")
    check(len(questions) == 1, f"one question through elicitation: {questions}")
    check(any("Billing" in q and "Shipping" in q for q in questions), f"the question names both: {questions}")
    check(any(p["message"].startswith("step ") for p in e["progress"]), f"progress per step: {e['progress']}")
    report["questions"] = questions


async def scenario_task_defer(client):
    r, e = await call(client, "run_task", {"goal": AMBIGUOUS_GOAL, "app": "Deft Fixture"})
    s = e["structured"] or {}
    check(not r.is_error and s.get("status") == "needs_input", f"without elicitation the run pauses: {e['text']}")
    question = (s.get("question") or {}).get("text", "")
    check("Billing" in question and "Shipping" in question, f"the question names both: {question}")
    r, e = await call(client, "run_task", {"run_id": s.get("run_id"), "answer": "Billing"})
    check(not r.is_error and (e["structured"] or {}).get("status") == "goal_met", f"resumed: {e['text']}")


async def scenario_hang(client, call_args):
    await client.list_tools()
    name, args = call_args
    task = asyncio.create_task(client.call_tool(name, args))
    await asyncio.sleep(0.3)
    print("CALLING", flush=True)
    await task  # killed before this returns


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("server")
    p.add_argument(
        "scenario",
        choices=["list", "every-tool", "faults", "popup", "hang-wait", "hang-action", "task-elicit", "task-defer"],
    )
    p.add_argument("--mode", default="auto", choices=["auto", "legacy"])
    argv = sys.argv[1:]
    server_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    a = p.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    env = {k: os.environ[k] for k in PASS_ENV if k in os.environ}
    params = StdioServerParameters(command=a.server, args=["mcp", *server_args], env=env)
    elicit = answer_billing if a.scenario == "task-elicit" else None
    async with Client(params, mode=a.mode, elicitation_callback=elicit) as client:
        report["protocol_version"] = client.session.protocol_version
        if a.scenario == "list":
            await scenario_list(client)
        elif a.scenario == "every-tool":
            await scenario_every_tool(client)
        elif a.scenario == "faults":
            await scenario_faults(client)
        elif a.scenario == "popup":
            await scenario_popup(client)
        elif a.scenario == "task-elicit":
            await scenario_task_elicit(client)
        elif a.scenario == "task-defer":
            await scenario_task_defer(client)
        elif a.scenario == "hang-wait":
            await scenario_hang(client, ("wait_for", {"condition": 'text:"Never shown"', "timeout_ms": 60000}))
        elif a.scenario == "hang-action":
            # A verified click whose expectation never comes: the action runs its whole window.
            await scenario_hang(client, ("click", {"name": "Hello", "expect": 'text:"Never shown"', "timeout_ms": 3000}))
    print(json.dumps(report))
    sys.exit(1 if failures else 0)


asyncio.run(main())
