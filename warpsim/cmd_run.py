"""``warpsim run FILE.ptx --kernel NAME --grid G --block B --arg ... [--out DIR]``.

Arguments, in kernel-parameter order: a ``.npy`` path, ``zeros:SHAPE:DTYPE`` (``zeros:32,4:f32``)
or a typed scalar ``i32:512``, ``u64:7``, ``f32:1.5``. Dtypes: f16 f32 f64 i8..i64 u8..u64.
"""
from __future__ import annotations

import os
import time

import numpy as np

from isa.errors import WarpsimError

DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}


def _dtype(name: str, spec: str):
    if name not in DTYPES:
        raise WarpsimError(f"--arg {spec!r}: unknown dtype {name!r} (one of {' '.join(DTYPES)})")
    return DTYPES[name]


def parse_arg(spec: str):
    """One ``--arg`` value -> a numpy array or scalar."""
    if spec.endswith(".npy"):
        try:
            return np.load(spec)
        except OSError as e:
            raise WarpsimError(f"--arg {spec!r}: {e}") from None
    parts = spec.split(":")
    if parts[0] == "zeros" and len(parts) == 3:
        try:
            shape = tuple(int(x) for x in parts[1].split(",") if x)
        except ValueError:
            raise WarpsimError(f"--arg {spec!r}: shape must be comma-separated ints") from None
        return np.zeros(shape, _dtype(parts[2], spec))
    if len(parts) == 2:
        dt = _dtype(parts[0], spec)
        try:
            return dt(float(parts[1]) if parts[0].startswith("f") else int(parts[1], 0))
        except ValueError:
            raise WarpsimError(f"--arg {spec!r}: {parts[1]!r} is not a {parts[0]} value") from None
    raise WarpsimError(f"--arg {spec!r}: expected FILE.npy, zeros:SHAPE:DTYPE or DTYPE:VALUE (e.g. i32:512)")


def parse_dim(text: str):
    try:
        t = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise WarpsimError(f"bad dimension {text!r}: expected N or X,Y,Z") from None
    return t[0] if len(t) == 1 else t


def run(args) -> int:
    from warpsim.module import RawModule

    mod = RawModule(path=args.file, arch=args.arch, ub_policy=args.ub_policy, timing=not args.no_timing,
                    device=args.device)
    kernel = mod.get_function(args.kernel)
    values = [parse_arg(a) for a in args.arg]
    t0 = time.perf_counter()
    stats = kernel(parse_dim(args.grid), parse_dim(args.block), values, shared_mem=args.shared_mem)
    wall = time.perf_counter() - t0
    print(f"kernel {args.kernel}  grid {args.grid}  block {args.block}  arch {mod.arch}")
    print(f"{stats.warp_instructions} warp instructions in {stats.ctas} CTAs, {wall:.3f} s "
          f"({stats.warp_instructions / max(wall, 1e-9):,.0f} warp-instr/s)")
    tl = getattr(kernel, "last_timeline", None)
    if tl is not None:
        print(f"{tl.cycles:.0f} simulated cycles ({tl.params})")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for i, (p, v) in enumerate(zip(kernel.program.fn.params, values)):
            if isinstance(v, np.ndarray):
                path = os.path.join(args.out, f"arg{i}_{p.name}.npy")
                np.save(path, v)
                print(f"wrote {path}")
    return 0


def add_launch_arguments(p, kernel_required: bool = True) -> None:
    """The launch options `run`, `debug` and `timeline` share: FILE, --kernel/--grid/--block/--arg ..."""
    p.add_argument("file", help="PTX file")
    p.add_argument("--kernel", required=kernel_required, default=None,
                   help="kernel (.entry) name" + ("" if kernel_required else " (optional with one kernel)"))
    p.add_argument("--grid", default="1", help="N or X,Y,Z (default 1)")
    p.add_argument("--block", default="32", help="N or X,Y,Z (default 32)")
    p.add_argument("--arg", action="append", default=[],
                   help="kernel argument in parameter order: FILE.npy, zeros:SHAPE:DTYPE or DTYPE:VALUE")
    p.add_argument("--shared-mem", type=int, default=0, help="dynamic shared memory bytes")
    p.add_argument("--arch", default=None, help="override the module's .target (e.g. sm_90a)")
    p.add_argument("--ub-policy", default="error", choices=("error", "hardware"))
    p.add_argument("--device", default=None,
                   help="time as this chip of the target's table (e.g. H200: the sm_90 table with the H200's L2)")


def register(sub) -> None:
    p = sub.add_parser("run", help="run a PTX kernel (timed engine; --no-timing for the functional one)")
    add_launch_arguments(p)
    p.add_argument("--no-timing", action="store_true", help="functional engine only (faster; %%clock counts instructions)")
    p.add_argument("--out", default=None, help="save every array argument after the launch as DIR/arg<i>_<name>.npy")
    p.set_defaults(func=run)
