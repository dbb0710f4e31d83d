"""The Python API on a real desktop, judged by the fixture app's log. The app runs with
its first press on "Submit order" dropped and its Name field ignoring key events; the
tests run in file order, once per app."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path

import pytest

import deft
from conftest import AppLog

APP = "deft-fixture"


def test_a_dropped_click_is_recovered_and_pressed_once(desktop: deft.Desktop, app_log: AppLog, app_alive) -> None:
    outcome = desktop.click("Submit order", app=APP)
    assert isinstance(outcome, deft.Outcome)
    assert outcome.ok and outcome.verified and outcome.seen == "verified", outcome.text
    assert outcome.retried and len(outcome.attempts) >= 2, outcome.text
    assert all(isinstance(a, deft.Attempt) for a in outcome.attempts)
    assert outcome.attempts[0].result == "no_change", outcome.attempts
    app_log.settle()
    assert app_log.faults("dropped_click") == 1, app_log.events()
    assert app_log.count("order_submitted") == 1, "one order, no double press"


def test_keys_the_field_ignores_are_set_through_accessibility(
    desktop: deft.Desktop, app_log: AppLog, app_alive
) -> None:
    outcome = desktop.type("John", target="Name", app=APP)
    assert outcome.ok, outcome.text
    assert outcome.target is not None and outcome.target.name == "Name", outcome.target
    assert [a.method for a in outcome.attempts][-1] == "a11y_set", outcome.text
    app_log.settle()
    assert app_log.faults("ignored_key") > 0
    values = [e.get("value") for e in app_log.events() if e.get("event") == "text_changed" and e.get("widget") == "name"]
    assert values and values[-1] == "John", values
    assert "JohnJohn" not in values, "typed once"


def test_a_failed_action_raises_with_its_outcome_or_returns_it(desktop: deft.Desktop, app_log: AppLog, app_alive) -> None:
    before = len(app_log.events())
    with pytest.raises(deft.ActionFailed) as failed:
        desktop.key("F12", app=APP, expect='text:"Nothing says this"', timeout_ms=800)
    outcome = failed.value.outcome
    assert isinstance(outcome, deft.Outcome) and not outcome.ok, outcome.text
    assert "Nothing says this" in outcome.expected, outcome.expected
    assert failed.value.tool == "key" and "key" in str(failed.value)
    # check=False: the same failure as a value.
    returned = desktop.wait_for(condition='text:"Nothing says this"', timeout_ms=300, check=False)
    assert isinstance(returned, deft.WaitResult) and returned.ok is False and returned.is_error
    app_log.settle(0.2)
    assert app_log.count("button_activated", None) == sum(
        1 for e in app_log.events()[:before] if e.get("event") == "button_activated"
    ), "nothing was pressed"


def test_a_flow_replays_its_steps_verified_and_stops_at_the_one_that_fails(
    desktop: deft.Desktop, app_log: AppLog, app_alive
) -> None:
    flow = "steps:\n  - fill: {target: Name, text: '{{who}}', app: deft-fixture}\n  - click: {name: No such button, timeout_ms: 300}\n"
    with pytest.raises(deft.ActionFailed) as failed:
        desktop.run_flow(flow=flow, vars={"who": "Grace"})
    report = failed.value.outcome.data
    assert report["ok"] is False and report["steps_total"] == 2, report
    assert [s["status"] for s in report["steps"]] == ["done", "failed"], report
    assert "step 2 of 2" in failed.value.outcome.text, failed.value.outcome.text
    app_log.settle()
    values = [e.get("value") for e in app_log.events() if e.get("event") == "text_changed" and e.get("widget") == "name"]
    assert values[-1] == "Grace", values


def test_a_target_not_found_fails_with_the_closest_candidates(desktop: deft.Desktop, app_alive) -> None:
    with pytest.raises(deft.ActionFailed) as failed:
        desktop.click("No such button anywhere", app=APP, timeout_ms=300)
    outcome = failed.value.outcome
    assert isinstance(outcome, deft.Outcome) and outcome.failure is not None, outcome.text
    assert "Submit order" in [c.name for c in outcome.failure.candidates], outcome.failure


def test_a_call_that_cannot_be_carried_out_raises_a_tool_error(desktop: deft.Desktop, app_alive) -> None:
    with pytest.raises(deft.ToolError) as usage:
        desktop.scroll("sideways")  # type: ignore[arg-type]
    assert usage.value.kind == "usage" and "sideways" in usage.value.message, usage.value.text


def test_reads_finds_and_screenshots_are_typed(desktop: deft.Desktop, app_alive) -> None:
    tree = desktop.read(app=APP)
    assert isinstance(tree, deft.ReadResult) and tree.count > 0 and tree.roots
    names = []
    stack = list(tree.roots)
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            names.append(node.get("name"))
            stack.extend(node.get("children", []))
        else:
            names.append(node.name)
            stack.extend(node.children)
    assert "Submit order" in names, names
    found = desktop.find("Name", app=APP)
    assert isinstance(found, deft.FindResult) and found.count >= 1 and found.matches[0].name == "Name"
    shot = desktop.screenshot()
    assert isinstance(shot, deft.Screenshot) and shot.png is not None and shot.png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (shot.width, shot.height) == (1280, 800)


def test_async_calls_from_gather_agree_with_sync(app_alive) -> None:
    async def main() -> None:
        async with await deft.AsyncDesktop.open() as d:
            a, b = await asyncio.gather(d.find("Name", app=APP), d.read(app=APP, depth=1))
            assert isinstance(a, deft.FindResult) and a.matches[0].name == "Name"
            assert isinstance(b, deft.ReadResult) and b.count > 0
            # A cancelled call is cancelled in the server too, and the session goes on.
            waiting = asyncio.ensure_future(d.wait_for(condition='text:"Never shown"', timeout_ms=20000))
            await asyncio.sleep(0.3)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            again = await d.find("Name", app=APP)
            assert again.count >= 1

    asyncio.run(main())


def test_closing_ends_the_server_by_itself(app_alive) -> None:
    with deft.Desktop() as d:
        pid = d.pid
        assert Path(f"/proc/{pid}").exists()
    # It exited on its own when its input closed (status 0), not by a signal.
    assert d.returncode == 0, d.returncode
    assert not Path(f"/proc/{pid}").exists()


def test_a_call_past_its_timeout_is_cancelled_and_says_it_may_still_complete(app_alive) -> None:
    with deft.Desktop(timeout=0.3) as d:
        with pytest.raises(deft.CallTimeout) as late:
            d.wait_for(condition='text:"Never shown"', timeout_ms=20000)
        assert "may still complete" in str(late.value)
        d.timeout = None
        assert d.find("Name", app=APP).count >= 1, "the session goes on"


def test_the_langchain_tools_are_the_server_s(desktop: deft.Desktop, app_alive) -> None:
    import deft.langchain

    tools = {t.name: t for t in deft.langchain.tools(desktop)}
    assert set(tools) == set(deft.TOOL_NAMES) - {"run_task"}
    listed = {t["name"]: t for t in desktop.list_tools()}
    assert tools["click"].description == listed["click"]["description"]
    assert tools["click"].args_schema["properties"] == listed["click"]["inputSchema"]["properties"]  # type: ignore[index]
    # A failure is returned to the model as text, with the structured result beside it.
    message = tools["find"].invoke(
        {"type": "tool_call", "id": "call-1", "name": "find", "args": {"target": "Name", "app": APP}}
    )
    assert message.artifact["is_error"] is False and message.artifact["result"]["count"] >= 1, message
    failed = tools["wait_for"].invoke(
        {"type": "tool_call", "id": "call-2", "name": "wait_for", "args": {"condition": 'text:"Never shown"', "timeout_ms": 200}}
    )
    assert failed.artifact["is_error"] is True and "Never shown" in failed.content, failed


def test_the_langchain_tools_of_an_async_desktop_are_async(app_alive) -> None:
    import deft.langchain

    async def main() -> None:
        async with await deft.AsyncDesktop.open() as d:
            tools = {t.name: t for t in deft.langchain.tools(d, names=["find"])}
            assert list(tools) == ["find"]
            message = await tools["find"].ainvoke(
                {"type": "tool_call", "id": "call-3", "name": "find", "args": {"target": "Name", "app": APP}}
            )
            assert message.artifact["is_error"] is False and message.artifact["result"]["count"] >= 1, message

    asyncio.run(main())


def test_the_example_langgraph_agent_does_a_task_with_the_test_model(app_log: AppLog, app_alive) -> None:
    """examples/langgraph_agent.py, driven by Deft's test model (a scripted stand-in on
    the OpenAI wire, not a real model), judged by the app's log."""
    import subprocess
    import sys

    toggles = app_log.count("checkbox_toggled")
    env = dict(os.environ)
    env.update(
        OPENAI_BASE_URL=os.environ["DEFT_TEST_MODEL_URL"],
        OPENAI_API_KEY="test-key-not-a-secret",
        DEFT_EXAMPLE_MODEL=os.environ["DEFT_TEST_MODEL_NAME"],
    )
    example = Path(__file__).resolve().parents[2] / "examples" / "langgraph_agent.py"
    goal = 'Type "ada@example.org" into Email and tick Subscribe'
    r = subprocess.run([sys.executable, str(example), goal], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "-> read" in r.stdout and "-> type" in r.stdout and "-> click" in r.stdout, r.stdout
    typed = [line for line in r.stdout.splitlines() if line.startswith("-> type")]
    assert typed and not any("ada@example.org" in line for line in typed), "typed text is shown by length only"
    app_log.settle()
    emails = [e.get("value") for e in app_log.events() if e.get("event") == "text_changed" and e.get("widget") == "email"]
    assert emails and emails[-1] == "ada@example.org", emails
    assert app_log.count("checkbox_toggled") == toggles + 1, "ticked once"


def test_uvx_runs_the_wheel_s_server_for_an_mcp_client(app_alive) -> None:
    """`uvx --from deft-desktop agent-cli mcp`, from the wheel alone and offline, answers the official MCP
    SDK's client: the tools it lists are the ones this package's methods call."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    uv = os.environ["DEFT_UV"]
    wheel = os.environ["DEFT_WHEEL"]
    env = dict(os.environ)
    env.pop("DEFT_AGENT_CLI", None)
    server = StdioServerParameters(command=uv, args=["tool", "run", "--offline", "--from", wheel, "agent-cli", "mcp"], env=env)

    async def main() -> None:
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                assert tuple(t.name for t in listed.tools) == deft.TOOL_NAMES
                found = await session.call_tool("find", {"target": "Name", "app": APP})
                assert not found.is_error and found.structured_content and found.structured_content["count"] >= 1

    asyncio.run(main())
    assert shutil.which(uv)
