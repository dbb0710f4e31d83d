"""The Python API's tests run against the installed wheel (never the source tree) on a
desktop the Rust test `python_api` started, with the fixture app's faults on; the app's
own log (DEFT_FIXTURE_LOG) is the ground truth."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import pytest

import deft


def pytest_configure(config: pytest.Config) -> None:
    installed = Path(deft.__file__).resolve()
    if Path(sys.prefix).resolve() not in installed.parents:
        raise pytest.UsageError(f"deft is imported from {installed}, not from the environment at {sys.prefix}")


class AppLog:
    """The fixture app's JSON Lines log."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def events(self) -> List[Dict[str, Any]]:
        return [json.loads(line) for line in self.path.read_text().splitlines() if line.strip()]

    def count(self, event: str, widget: "str | None" = None) -> int:
        return sum(1 for e in self.events() if e.get("event") == event and (widget is None or e.get("widget") == widget))

    def faults(self, kind: str) -> int:
        return sum(1 for e in self.events() if e.get("event") == "fault" and e.get("kind") == kind)

    def settle(self, seconds: float = 0.5) -> None:
        """Time for a late effect to reach the log before it is judged."""
        time.sleep(seconds)


@pytest.fixture
def app_log() -> AppLog:
    return AppLog(Path(os.environ["DEFT_FIXTURE_LOG"]))


@pytest.fixture
def desktop() -> Iterator[deft.Desktop]:
    with deft.Desktop() as d:
        yield d


@pytest.fixture
def app_alive(app_log: AppLog) -> Iterator[Callable[[], None]]:
    """Every test leaves the app running: the Rust side checks it again after the suite."""

    def check() -> None:
        pid = int(os.environ["DEFT_FIXTURE_PID"])
        assert Path(f"/proc/{pid}").exists(), "the fixture app is gone"

    yield check
    check()
