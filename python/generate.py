"""Write deft/_tools.py from the tools `agent-cli mcp` lists: one typed method per tool
(sync and async) and one dataclass per result shape, so the Python API has no schema of
its own. `cargo xtask dist` runs it; `--check` fails when the file is out of date.

    python generate.py --binary target/debug/agent-cli [--check]
"""

from __future__ import annotations

import argparse
import json
import keyword
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
OUT = HERE / "deft" / "_tools.py"

# The class each tool's result becomes; tools whose output schema is the same share one.
RESULT_NAMES = {
    "click": "Outcome",
    "wait_for": "WaitResult",
    "read": "ReadResult",
    "find": "FindResult",
    "screenshot": "Screenshot",
    "ocr": "OcrResult",
    "doctor": "DoctorReport",
}


def list_tools(binary: str) -> List[Dict[str, Any]]:
    """The tools as an MCP client sees them (initialize, then tools/list)."""
    proc = subprocess.Popen(
        [binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, text=True
    )
    assert proc.stdin is not None and proc.stdout is not None

    def ask(message: Dict[str, Any]) -> Dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        while True:
            reply = json.loads(proc.stdout.readline())
            if reply.get("id") == message["id"]:
                return reply

    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "generate", "version": "0"}}
    ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    tools: List[Dict[str, Any]] = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]["tools"]
    proc.stdin.close()
    proc.wait(timeout=30)
    return tools


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("ches") or name.endswith("sses"):
        return name[:-2]
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name


class Types:
    """Python types for JSON schemas; object schemas with properties become dataclasses,
    one per distinct schema."""

    def __init__(self) -> None:
        self.classes: List[Tuple[str, Dict[str, Any], bool]] = []  # (name, schema, is a result)
        self.by_schema: Dict[str, str] = {}

    def of(self, schema: Dict[str, Any], hint: str, result: bool = False) -> str:
        nullable = False
        kind = schema.get("type")
        if isinstance(kind, list):
            nullable = "null" in kind
            rest = [k for k in kind if k != "null"]
            kind = rest[0] if len(rest) == 1 else None
        inner = self.inner(schema, kind, hint, result)
        if nullable and inner != "Any" and not inner.startswith("Optional["):
            return f"Optional[{inner}]"
        return inner

    def inner(self, schema: Dict[str, Any], kind: Optional[str], hint: str, result: bool) -> str:
        choices = schema.get("oneOf") or schema.get("anyOf")
        if choices:
            nullable = any(c.get("type") == "null" for c in choices)
            choices = [c for c in choices if c.get("type") != "null"]
            consts = [c["const"] for c in choices if "const" in c]
            parts = ["Literal[" + ", ".join(json.dumps(c) for c in consts) + "]"] if consts else []
            for c in choices:
                if "const" not in c:
                    part = self.of(c, hint)
                    if part not in parts:
                        parts.append(part)
            joined = parts[0] if len(parts) == 1 else "Union[" + ", ".join(parts) + "]"
            return f"Optional[{joined}]" if nullable and joined != "Any" else joined
        if "enum" in schema:
            values = [v for v in schema["enum"] if v is not None]
            if not values or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
                return "Any"
            literal = "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"
            return f"Optional[{literal}]" if None in schema["enum"] else literal
        if kind == "string":
            return "str"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "float"
        if kind == "boolean":
            return "bool"
        if kind == "array":
            items = schema.get("items")
            return f"List[{self.of(items, singular(hint))}]" if isinstance(items, dict) and items else "List[Any]"
        if kind == "object" and schema.get("properties"):
            return self.dataclass(schema, hint, result)
        if kind == "object":
            return "Dict[str, Any]"
        return "Any"

    def dataclass(self, schema: Dict[str, Any], hint: str, result: bool) -> str:
        key = json.dumps(schema, sort_keys=True)
        if key in self.by_schema:
            return self.by_schema[key]
        name = camel(hint)
        taken = {n for n, _, _ in self.classes}
        while name in taken:
            name += "_"
        self.by_schema[key] = name
        self.classes.append((name, schema, result))
        return name


def docstring(text: str, indent: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', "'''").strip()
    lines = [line.rstrip() for line in text.splitlines()] or [""]
    return indent + '"""' + ("\n" + indent).join(lines) + ('"""' if len(lines) == 1 else "\n" + indent + '"""')


def fields(types: Types, name: str, schema: Dict[str, Any]) -> List[str]:
    required = set(schema.get("required", []))
    props = schema["properties"]
    order = sorted(props, key=lambda k: (k not in required, list(props).index(k)))
    out = []
    for key in order:
        prop = props[key]
        hint = types.of(prop, key)
        attr = key + "_" if keyword.iskeyword(key) else key
        meta = f'metadata={{"json": "{key}"}}, ' if attr != key else ""
        if key in required:
            line = f"    {attr}: {hint}" + (f" = field({meta.rstrip(', ')})" if meta else "")
        elif isinstance(prop.get("default"), list):
            line = f"    {attr}: {hint} = field({meta}default_factory=list)"
        elif hint.startswith("Optional[") or hint == "Any":
            line = f"    {attr}: {hint} = " + (f"field({meta}default=None)" if meta else "None")
        else:
            line = f"    {attr}: Optional[{hint}] = " + (f"field({meta}default=None)" if meta else "None")
        out.append(line)
        if prop.get("description"):
            out.append(docstring(prop["description"], "    "))
    return out


def generate(tools: List[Dict[str, Any]]) -> str:
    types = Types()
    results: Dict[str, str] = {}
    for tool in tools:
        schema = tool.get("outputSchema")
        if schema and schema.get("properties"):
            results[tool["name"]] = types.dataclass(schema, RESULT_NAMES.get(tool["name"], camel(tool["name"]) + "Result"), True)
        else:
            results[tool["name"]] = "ToolResult"

    methods_sync: List[str] = []
    methods_async: List[str] = []
    for tool in tools:
        name = tool["name"]
        schema = tool["inputSchema"]
        props: Dict[str, Any] = schema.get("properties", {})
        required = list(schema.get("required", []))
        for key in props:
            if key in ("self", "check"):
                raise SystemExit(f"tool {name}: a parameter named {key!r} would clash with the method's own")
        arg = {k: (k + "_" if keyword.iskeyword(k) else k) for k in props}  # `class` → `class_`
        positional = required or (["target"] if "target" in props else [])
        params = []
        for key in positional:
            hint = types.of(props[key], key)
            params.append(f"{arg[key]}: {hint}" if key in required else f"{arg[key]}: Optional[{hint}] = None")
        params.append("*")
        for key in props:
            if key in positional:
                continue
            hint = types.of(props[key], key)
            if hint == "List[int]":
                hint = "Sequence[int]"
            params.append(f"{arg[key]}: Optional[{hint}] = None")
        params.append("check: Optional[bool] = None")
        args = ", ".join(f'"{k}": {arg[k]}' for k in props)
        doc_lines = [tool.get("description", "").strip(), ""]
        if props:
            doc_lines.append("Args:")
            for key, prop in props.items():
                doc_lines.append(f"    {key}: {prop.get('description', '').strip()}".replace("\n", " "))
        doc_lines.append(
            "    check: Raise ActionFailed when the call fails (default: the Desktop's check); False returns it."
        )
        doc = docstring("\n".join(doc_lines), "        ")
        ret = results[name]
        signature = ", ".join(["self"] + params)
        body = f'        return self._result("{name}", {ret}, self._call("{name}", {{{args}}}), check)'
        methods_sync.append(f"    def {name}({signature}) -> {ret}:\n{doc}\n{body}\n")
        abody = f'        return self._result("{name}", {ret}, await self._call("{name}", {{{args}}}), check)'
        methods_async.append(f"    async def {name}({signature}) -> {ret}:\n{doc}\n{abody}\n")

    classes = []
    i = 0
    while i < len(types.classes):  # fields() may add classes as it goes
        name, schema, result = types.classes[i]
        body = fields(types, name, schema)
        base = "(ToolResult)" if result else ""
        doc = docstring(schema.get("description", name), "    ")
        classes.append(f"@dataclass\nclass {name}{base}:\n{doc}\n\n" + "\n".join(body) + "\n")
        i += 1

    head = '''"""Generated by python/generate.py from the tools `agent-cli mcp` lists; do not edit.
Regenerate with `cargo xtask dist` (it also checks that this file is current)."""

# fmt: off
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Dict, List, Literal, Optional, Sequence, Type, TypeVar, Union

from ._result import ToolResult

R = TypeVar("R", bound=ToolResult)

TOOL_NAMES = ('''
    head += ", ".join(json.dumps(t["name"]) for t in tools) + ")\n\n\n"
    sync = '''class SyncTools:
    """Every tool as a method; `Desktop` supplies `_call` (one MCP call) and `_result`."""

    def _call(self, tool: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        raise NotImplementedError

    def _result(self, tool: str, kind: Type[R], reply: Dict[str, Any], check: Optional[bool]) -> R:
        raise NotImplementedError

'''
    asy = '''class AsyncTools:
    """Every tool as a coroutine; `AsyncDesktop` supplies `_call` and `_result`."""

    def _call(self, tool: str, arguments: Dict[str, Any]) -> Awaitable[Dict[str, Any]]:
        raise NotImplementedError

    def _result(self, tool: str, kind: Type[R], reply: Dict[str, Any], check: Optional[bool]) -> R:
        raise NotImplementedError

'''
    return (
        head
        + "\n\n".join(classes)
        + "\n\n"
        + sync
        + "\n".join(methods_sync)
        + "\n\n"
        + asy
        + "\n".join(methods_async)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True, help="the agent-cli whose tools to read")
    parser.add_argument("--check", action="store_true", help="fail when deft/_tools.py differs")
    opts = parser.parse_args()
    text = generate(list_tools(opts.binary))
    if opts.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run `cargo xtask dist` (or python/generate.py) and commit it", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
