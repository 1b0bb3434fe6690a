"""``warpsim`` command line. Each subcommand lives in its own module with a ``register(subparsers)``
function that adds its parser and ``set_defaults(func=run)``; adding one is a line in ``COMMANDS``.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from isa.errors import WarpsimError

COMMANDS = [  # modules with register(subparsers); a missing one is skipped
    "warpsim.cmd_run",
    "warpsim.cmd_forms",
    "warpsim.cmd_bench",
    "warpsim.cmd_layout",
    "warpsim.cmd_replay",
    "warpsim.cmd_timeline",
    "warpsim.cmd_debug",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="warpsim", description="simulate GPU warps running PTX")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            continue
        mod.register(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except WarpsimError as err:
        print(f"warpsim {args.command}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
