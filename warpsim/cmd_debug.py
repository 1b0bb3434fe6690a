"""``warpsim debug FILE.ptx --kernel NAME --grid G --block B --arg ... [--batch FILE]`` — the debugger shell;
``warpsim dap`` — the same debugger as a Debug Adapter Protocol server on stdin/stdout.

Arguments are those of ``warpsim run`` (``FILE.npy``, ``zeros:SHAPE:DTYPE``, ``DTYPE:VALUE``); ``--kernel``
may be left out when the module has one kernel.
"""
from __future__ import annotations

import sys

from isa.errors import WarpsimError
from warpsim.cmd_run import add_launch_arguments, parse_arg, parse_dim


def _kernel_name(mod, name):
    if name:
        return name
    entries = [f.name for f in mod.module.functions if f.kind == "entry"]
    if len(entries) != 1:
        raise WarpsimError(f"--kernel is needed: the module has {len(entries)} kernels ({', '.join(entries)})")
    return entries[0]


def session_from_args(args):
    """A debugger Session from ``warpsim run``-style arguments."""
    from warpsim.debug.engine import Session
    from warpsim.module import RawModule

    mod = RawModule(path=args.file, arch=args.arch, ub_policy=args.ub_policy, device=args.device)
    values = [parse_arg(a) for a in args.arg]
    return Session(mod, _kernel_name(mod, args.kernel), parse_dim(args.grid), parse_dim(args.block), values,
                   shared_mem=args.shared_mem, timing=not args.no_timing)


def run(args) -> int:
    from warpsim.debug.shell import main_loop

    session = session_from_args(args)
    color = True if args.color == "on" else False if args.color == "off" else None
    return main_loop(session, stdout=sys.stdout, batch=args.batch, color=color)


def run_dap(args) -> int:
    from warpsim.debug.dap import serve

    return serve(sys.stdin.buffer, sys.stdout.buffer)


def register(sub) -> None:
    p = sub.add_parser("debug", help="step through a PTX kernel (cuda-gdb-style shell)")
    add_launch_arguments(p, kernel_required=False)
    p.add_argument("--no-timing", action="store_true",
                   help="functional engine only: `cycle` shows retired instructions, no timed run")
    p.add_argument("--batch", default=None, metavar="FILE", help="run the commands in FILE (echoed), then leave")
    p.add_argument("--color", default="auto", choices=("auto", "on", "off"), help="highlight changed values")
    p.set_defaults(func=run)
    d = sub.add_parser("dap", help="the debugger as a Debug Adapter Protocol server on stdin/stdout")
    d.set_defaults(func=run_dap)
