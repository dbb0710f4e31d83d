"""Where the `agent-cli` binary is: the one this package's wheel installed beside the
interpreter's scripts, unless `DEFT_AGENT_CLI` names another."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import List

from .errors import DeftError

NAME = "agent-cli.exe" if os.name == "nt" else "agent-cli"


def candidates() -> List[Path]:
    """The places looked at, in order: the environment's scripts (a venv, uv's tool
    environment), the user scheme's (`pip install --user`), next to the interpreter."""
    places: List[Path] = []
    for scheme in (None, f"{os.name}_user"):
        try:
            scripts = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        if scripts:
            places.append(Path(scripts) / NAME)
    places.append(Path(sys.executable).parent / NAME)
    return places


def agent_cli() -> str:
    """The binary to run, or a DeftError saying where it was looked for."""
    given = os.environ.get("DEFT_AGENT_CLI")
    if given:
        if Path(given).is_file() and os.access(given, os.X_OK):
            return given
        raise DeftError(f"DEFT_AGENT_CLI is {given!r}, which is not an executable file")
    for place in candidates():
        if place.is_file() and os.access(place, os.X_OK):
            return str(place)
    found = shutil.which(NAME)
    if found:
        return found
    looked = ", ".join(str(p) for p in candidates())
    raise DeftError(
        f"agent-cli is not installed beside this Python (looked in {looked} and on PATH): "
        "install the package with `pip install deft-desktop`, or set DEFT_AGENT_CLI to the binary"
    )
