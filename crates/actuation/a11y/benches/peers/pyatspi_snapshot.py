#!/usr/bin/python3
"""The same full tree read as deft-a11y's default snapshot, with pyatspi, timed.

Per element: role, name, description, states, child count; for showing elements also
screen extents (Component), text (Text), current value (Value) and action names (Action),
exactly what `deft_a11y::SnapshotOptions::default()` reads. Prints one JSON line:
{"tool": "pyatspi", "app": ..., "nodes": N, "runs": R, "median_ms": M, "min_ms": m}.

    pyatspi_snapshot.py --app NAME [--window TITLE] [--runs 20]

Run with /usr/bin/python3 (the interpreter that has pyatspi) on the desktop's buses.
"""

import argparse
import json
import statistics
import sys
import time

import pyatspi


def find_app(name, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        for app in pyatspi.Registry.getDesktop(0):
            if app is not None and app.name == name:
                return app
        if time.monotonic() > deadline:
            raise SystemExit(f"pyatspi_snapshot: no application {name!r}")
        time.sleep(0.1)


def read(node, out):
    states = node.getState()
    showing = states.contains(pyatspi.STATE_SHOWING)
    item = {
        "role": node.getRoleName(),
        "name": node.name,
        "description": node.description,
        "states": [int(s) for s in states.getStates()],
        "children": node.childCount,
    }
    if showing:
        try:
            ext = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            item["bounds"] = [ext.x, ext.y, ext.width, ext.height]
        except NotImplementedError:
            pass
        try:
            item["text"] = node.queryText().getText(0, -1)
        except NotImplementedError:
            pass
        try:
            item["value"] = node.queryValue().currentValue
        except NotImplementedError:
            pass
        try:
            action = node.queryAction()
            item["actions"] = [action.getName(i) for i in range(action.nActions)]
        except NotImplementedError:
            pass
    out.append(item)
    for child in node:
        if child is not None:
            read(child, out)


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--app", required=True)
    p.add_argument("--window", default=None, help="read only the top-level window with this title")
    p.add_argument("--runs", type=int, default=20)
    args = p.parse_args(argv)
    app = find_app(args.app)
    root = app
    if args.window is not None:
        root = next(w for w in app if w is not None and w.name == args.window)
    times, nodes = [], 0
    for _ in range(args.runs):
        out = []
        t0 = time.perf_counter()
        read(root, out)
        times.append((time.perf_counter() - t0) * 1000.0)
        nodes = len(out)
    print(json.dumps({"tool": "pyatspi", "app": args.app, "window": args.window, "nodes": nodes,
                      "runs": args.runs, "median_ms": statistics.median(times), "min_ms": min(times)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
