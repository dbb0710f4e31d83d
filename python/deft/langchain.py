"""Deft's tools for LangChain and LangGraph: `deft.langchain.tools(desktop)` gives one
`StructuredTool` per tool the server lists, with the server's own name, description and
input schema (no second definition), for a LangGraph tool node or any tool-calling agent.

Each tool returns what a model should read and what a program should keep
(`response_format="content_and_artifact"`): the content is the outcome's text (verified,
retried below the model; a failure says what was expected, what was observed and every
attempt, with the closest candidates when the target was not found), the artifact the
structured result. A failed action or a call that could not be carried out is returned,
not raised, so the model reads why and decides; only the server itself failing raises.

Needs the `langchain` extra: `pip install 'deft-desktop[langchain]'`.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

from ._desktop import AsyncDesktop, Desktop
from ._result import content

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool

# An agent inside an agent is a choice, not a default.
LEFT_OUT = ("run_task",)


def tools(desktop: Union[Desktop, AsyncDesktop], *, names: Optional[Sequence[str]] = None) -> List["BaseTool"]:
    """The desktop's tools as LangChain tools (all but `run_task`, or those in `names`).
    With an `AsyncDesktop` they are async tools (`ainvoke`)."""
    try:
        from langchain_core.tools import StructuredTool
    except ImportError as e:
        raise ImportError("deft.langchain needs langchain-core: pip install 'deft-desktop[langchain]'") from e

    out: List[BaseTool] = []
    for spec in desktop.list_tools():
        name = spec["name"]
        if (names is None and name in LEFT_OUT) or (names is not None and name not in names):
            continue
        schema = dict(spec.get("inputSchema") or {"type": "object", "properties": {}})
        schema.setdefault("title", name)
        schema.setdefault("description", spec.get("description", ""))
        # Async tools for an AsyncDesktop (`ainvoke`), sync ones for a Desktop.
        run = {"coroutine": _async_call(desktop, name)} if isinstance(desktop, AsyncDesktop) else {"func": _call(desktop, name)}
        out.append(
            StructuredTool.from_function(
                name=name,
                description=spec.get("description", ""),
                args_schema=schema,
                response_format="content_and_artifact",
                infer_schema=False,
                **run,
            )
        )
    return out


def _call(desktop: Desktop, name: str) -> Any:
    def run(**arguments: Any) -> Tuple[str, Dict[str, Any]]:
        return _content_and_artifact(desktop._call_now(name, arguments))

    return run


def _async_call(desktop: AsyncDesktop, name: str) -> Any:
    async def run(**arguments: Any) -> Tuple[str, Dict[str, Any]]:
        return _content_and_artifact(await desktop._call(name, arguments))

    return run


def _content_and_artifact(reply: Dict[str, Any]) -> Tuple[str, Dict[str, Any]]:
    text, image = content(reply)
    artifact: Dict[str, Any] = {"is_error": bool(reply.get("isError"))}
    structured = reply.get("structuredContent")
    if isinstance(structured, dict):
        artifact["result"] = structured
    if image is not None:
        # Kept for the program (base64, JSON-safe for checkpointers), not sent as text.
        artifact["image"] = {"mime_type": image.get("mimeType"), "base64": image.get("data", "")}
        artifact["image_bytes"] = len(base64.b64decode(image.get("data", "")))
    return text.strip() or "(no text)", artifact
