"""Tool results as typed objects: the structured content of an MCP tool result built into
the dataclasses of `_tools.py`, keeping the text a model would read and any image."""

from __future__ import annotations

import base64
import dataclasses
import functools
import sys
import typing
from typing import Any, Dict, List, Optional, Tuple, Type, TypeVar, Union

T = TypeVar("T")


class ToolResult:
    """What every result carries besides its own fields."""

    text: str = ""
    """The result as the text a model reads (one line per attempt when it was retried)."""
    data: Dict[str, Any] = {}
    """The structured result as the server sent it (JSON), fields not yet known here included."""
    png: Optional[bytes] = None
    """A screenshot's image, when the result carries one."""
    is_error: bool = False
    """Whether the server marked the result an error (a failed action, a wait that timed out)."""


def build(kind: Type[T], reply: Dict[str, Any]) -> T:
    """An MCP `tools/call` result as `kind`: its structured content as the dataclass's
    fields, its text and image alongside."""
    data = reply.get("structuredContent")
    data = data if isinstance(data, dict) else {}
    if dataclasses.is_dataclass(kind):
        value: Any = convert(kind, data)
    else:
        value = kind()
    value.text, image = content(reply)
    if image is not None and image.get("mimeType") == "image/png":
        value.png = base64.b64decode(image.get("data", ""))
    value.data = data
    value.is_error = bool(reply.get("isError"))
    return typing.cast(T, value)


def content(reply: Dict[str, Any]) -> Tuple[str, Optional[Dict[str, Any]]]:
    """A tool result's text blocks joined (what a model reads) and its image block, if any."""
    texts: List[str] = []
    image: Optional[Dict[str, Any]] = None
    for block in reply.get("content") or []:
        if block.get("type") == "text":
            texts.append(block.get("text", ""))
        elif block.get("type") == "image":
            image = block
    return "\n".join(texts), image


@functools.lru_cache(maxsize=None)
def _hints(kind: type) -> Dict[str, Any]:
    """A dataclass's field types, resolved once (its annotations are strings)."""
    return typing.get_type_hints(kind, vars(sys.modules[kind.__module__]))


def convert(hint: Any, value: Any) -> Any:
    """`value` (parsed JSON) as the type `hint` names: dataclasses field by field (unknown
    keys ignored, so a newer server does not break an older client), lists item by item,
    anything else as it came."""
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin is Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        shapes = [a for a in args if isinstance(a, type) and dataclasses.is_dataclass(a)]
        if shapes and isinstance(value, dict):
            # The shape whose fields the value has most of.
            best = max(shapes, key=lambda a: sum(f.metadata.get("json", f.name) in value for f in dataclasses.fields(a)))
            return convert(best, value)
        return convert(args[0], value) if len(args) == 1 else value
    if origin in (list, List) and isinstance(value, list):
        (item,) = typing.get_args(hint) or (Any,)
        return [convert(item, v) for v in value]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, dict):
        hints = _hints(hint)
        kwargs = {}
        for f in dataclasses.fields(hint):
            key = f.metadata.get("json", f.name)
            if key in value:
                kwargs[f.name] = convert(hints[f.name], value[key])
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                kwargs[f.name] = None  # a required field the server left out: None, not a crash
        return hint(**kwargs)
    return value
