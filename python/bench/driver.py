"""The Python API's side of `cargo bench -p deft-desktop --bench mcp`: one `deft.Desktop`
for the process's life; each stdin line is `[tool, {arguments}]`, answered with `ok` or
`fail` once the method returned (the bench times the round trip)."""

import json
import sys

import deft


def main() -> None:
    with deft.Desktop(binary=sys.argv[1]) as desktop:
        print("ready", flush=True)
        for line in sys.stdin:
            tool, arguments = json.loads(line)
            try:
                getattr(desktop, tool)(**arguments)
                print("ok", flush=True)
            except deft.DeftError:
                print("fail", flush=True)


if __name__ == "__main__":
    main()
