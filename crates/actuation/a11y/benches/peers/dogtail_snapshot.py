#!/usr/bin/python3
"""The same full tree read as deft-a11y's default snapshot, with dogtail, timed.

dogtail's Node API over pyatspi: per element role name, name, description, states and
children; for showing elements also extents, text, value and actions. Prints one JSON
line like pyatspi_snapshot.py.

    dogtail_snapshot.py --app NAME [--window TITLE] [--runs 20]

Run with /usr/bin/python3 (python3-dogtail) on the desktop's buses.
"""

import argparse
import json
import statistics
import sys
import time

import pyatspi
from dogtail.config import config
import dogtail.tree

config.logDebugToFile = False
config.logDebugToStdOut = False


def read(node, out):
    states = node.getState()
    showing = states.contains(pyatspi.STATE_SHOWING)
    item = {"role": node.roleName, "name": node.name, "description": node.description,
            "states": [int(s) for s in states.getStates()], "children": node.childCount}
    if showing:
        try:
            item["bounds"] = list(node.extents)
        except (NotImplementedError, AttributeError):
            pass
        item["text"] = node.text
        try:
            item["value"] = node.value
        except (NotImplementedError, AttributeError):
            pass
        item["actions"] = sorted(node.actions)
    out.append(item)
    for child in node.children:
        if child is not None:
            read(child, out)


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--app", required=True)
    p.add_argument("--window", default=None)
    p.add_argument("--runs", type=int, default=20)
    args = p.parse_args(argv)
    app = dogtail.tree.root.application(args.app)
    root = app
    if args.window is not None:
        root = next(w for w in app.children if w.name == args.window)
    times, nodes = [], 0
    for _ in range(args.runs):
        out = []
        t0 = time.perf_counter()
        read(root, out)
        times.append((time.perf_counter() - t0) * 1000.0)
        nodes = len(out)
    print(json.dumps({"tool": "dogtail", "app": args.app, "window": args.window, "nodes": nodes,
                      "runs": args.runs, "median_ms": statistics.median(times), "min_ms": min(times)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
