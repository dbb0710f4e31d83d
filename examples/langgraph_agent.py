"""A LangGraph agent whose tool node is Deft: the model decides, Deft acts and checks each
action's effect below it (a dropped click is retried, a field that swallows keys gets its
text through accessibility), and a failure comes back to the model as text that says what
was expected and what was observed.

    pip install 'deft-desktop[langchain]' langgraph langchain-openai
    OPENAI_API_KEY=... python examples/langgraph_agent.py 'Type "Ada" into Name and press Submit order'

The model is any OpenAI-compatible chat endpoint (`OPENAI_BASE_URL`, `DEFT_EXAMPLE_MODEL`).
Deft's tests run this file against Deft's test model: a scripted stand-in that speaks the
OpenAI wire and reads what the agent really sent, not a real model.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Literal

from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

import deft
import deft.langchain

SYSTEM = (
    "You operate a Linux desktop through Deft's tools. Call `read` to see the desktop's "
    "elements (each with a ref such as e12), then act on refs, one call at a time. Every "
    "action is verified; when one fails, its result says what was expected and what was "
    "observed. `type` inserts text; `fill` replaces a field's text. Call `done` when the "
    "goal is met or cannot be met."
)


@tool
def done(summary: str, goal_met: bool) -> str:
    """Finish: say what was done and whether the goal is met."""
    return summary


def build(desktop: deft.Desktop, model: ChatOpenAI):  # type: ignore[no-untyped-def]
    tools = deft.langchain.tools(desktop)
    bound = model.bind_tools([*tools, done])

    def agent(state: MessagesState) -> dict:  # type: ignore[type-arg]
        return {"messages": [bound.invoke([SystemMessage(SYSTEM), *state["messages"]])]}

    def after_agent(state: MessagesState) -> Literal["tools", "__end__"]:
        last = state["messages"][-1]
        calls = last.tool_calls if isinstance(last, AIMessage) else []
        if not calls or any(c["name"] == "done" for c in calls):
            return END
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))  # Deft's verified actions, below the model
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent)
    graph.add_edge("tools", "agent")
    return graph.compile()


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    model = ChatOpenAI(
        model=os.environ.get("DEFT_EXAMPLE_MODEL", "gpt-4.1"),
        base_url=os.environ.get("OPENAI_BASE_URL"),
        temperature=0,
    )
    with deft.Desktop() as desktop:
        state = build(desktop, model).invoke(
            {"messages": [("user", f"Goal: {sys.argv[1]}")]}, {"recursion_limit": 30}
        )
    final = None
    for message in state["messages"]:
        for call in getattr(message, "tool_calls", None) or []:
            # Typed text and set values may be secrets: shown by length only.
            shown = {k: (f"<{len(str(v))} characters>" if k in ("text", "value") else v) for k, v in call["args"].items()}
            print(f"-> {call['name']} {json.dumps(shown)}")
            if call["name"] == "done":
                final = call["args"]
        if message.type == "tool":
            print(f"<- {str(message.content).splitlines()[0] if message.content else ''}")
    if final is None:
        print("the model stopped without calling done", file=sys.stderr)
        return 1
    print(f"done: {final['summary']} (goal met: {final['goal_met']})")
    return 0 if final["goal_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
