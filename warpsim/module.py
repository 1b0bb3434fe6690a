"""CuPy-like front door: ``RawModule(code=...|path=...)`` -> ``get_function(name)`` -> launch.

    mod = warpsim.RawModule(path="vadd.ptx")
    k = mod.get_function("vadd")
    k((4,), (128,), (a, b, c, np.int32(n)))   # numpy arrays are written back in place

numpy arrays are global buffers passed by pointer (their contents are copied into simulated
device memory and back after the launch); numpy scalars are passed by value and must match
the kernel's ``.param`` type (size and kind). ``.target`` picks the arch unless ``arch=``.
"""
from __future__ import annotations

import numpy as np

from isa.errors import WarpsimError
from isa.ptx import ast
from warpsim.engine import Launch, Stats, run_grid
from warpsim.memory import Flat, Global
from warpsim.program import Program

UB_POLICIES = ("error", "hardware")


class ArgumentError(WarpsimError):
    """Kernel arguments that do not match the kernel's parameters."""


def _parse(text: str, file: str) -> ast.Module:
    try:
        from isa.ptx import parse
    except ImportError:
        raise WarpsimError("the PTX parser (isa.ptx.parse) is not available yet; pass module=<ast.Module>") from None
    return parse(text, file)


class RawModule:
    def __init__(self, code: str | None = None, path: str | None = None, arch: str | None = None,
                 ub_policy: str = "error", module: ast.Module | None = None, timing: bool = True,
                 timing_params=None, device: str | None = None):
        if ub_policy not in UB_POLICIES:
            raise WarpsimError(f"ub_policy must be one of {UB_POLICIES}, got {ub_policy!r}")
        if module is None:
            if (code is None) == (path is None):
                raise WarpsimError("RawModule needs exactly one of code= or path=")
            if path is not None:
                with open(path) as f:
                    code = f.read()
            module = _parse(code, str(path) if path is not None else "<code>")
        self.module, self.ub_policy = module, ub_policy
        self.arch = arch or module.arch
        self._programs: dict[str, Program] = {}
        # timing=True: the timed engine (warpsim.timing) decides when each step runs and %clock64 reads the
        # simulated cycle; timing=False: the functional engine only. timing_params: a warpsim.timing Params;
        # device (e.g. "H200"): the target's table as that chip (warpsim.timing.params.params_for).
        if device is not None:
            if timing_params is not None:
                raise WarpsimError("RawModule takes timing_params= or device=, not both")
            from warpsim.timing.params import params_for
            timing_params = params_for(self.arch, device=device)
        self.timing, self.timing_params = timing, timing_params
        self.last_timeline = None

    def get_function(self, name: str) -> "Kernel":
        if name not in self._programs:
            try:
                fn = self.module.function(name)
            except KeyError:
                names = ", ".join(f.name for f in self.module.functions if f.kind == "entry")
                raise WarpsimError(f"no kernel named '{name}' in {self.module.file} (kernels: {names})") from None
            if fn.kind != "entry":
                raise WarpsimError(f"'{name}' is a .func, not a kernel (.entry)")
            self._programs[name] = Program(fn, self.module)
        return Kernel(self, self._programs[name])


class Kernel:
    def __init__(self, mod: RawModule, program: Program):
        self.mod, self.program, self.name = mod, program, program.fn.name
        self.last_stats: Stats | None = None
        self.last_timeline = None  # warpsim.timing.model.Timeline of the last timed launch

    def signature(self) -> str:
        return ", ".join(f"{p.name} .{p.type}" + "".join(f"[{d}]" for d in p.dims) for p in self.program.fn.params)

    def cluster_dims(self, cluster=None) -> tuple | None:
        """The cluster dims of a launch: ``cluster`` if given, else the kernel's ``.reqnctapercluster`` (checked
        against each other), else None (no clusters: each CTA is an implicit 1x1x1 cluster)."""
        from warpsim.engine import dim3
        req = None
        for d in self.program.fn.directives:
            if d.startswith(".reqnctapercluster"):
                req = dim3(tuple(int(v) for v in d.split(None, 1)[1].split(",")), ".reqnctapercluster")
        if cluster is None:
            return req
        c = dim3(cluster, "cluster")
        if req is not None and c != req:
            raise ArgumentError(f"kernel '{self.name}' declares .reqnctapercluster {', '.join(map(str, req))}; "
                                f"cannot launch it with cluster={c}")
        if c[0] * c[1] * c[2] > 16:
            raise ArgumentError(f"cluster {c} has {c[0] * c[1] * c[2]} CTAs; at most 16 (non-portable size) per cluster")
        return c

    def __call__(self, grid, block, args, shared_mem: int = 0, *, clock=None, max_steps: int | None = None,
                 cluster=None) -> Stats:
        """Launch on ``grid`` x ``block``; ``cluster``: CTAs per cluster (dims), as cudaLaunchKernelEx's cluster
        dimension attribute; kernels that declare ``.reqnctapercluster`` are launched in clusters anyway."""
        launch, mapped = self.prepare(args, shared_mem, clock=clock, cluster=cluster)
        if self.mod.timing and clock is None:
            from warpsim.timing.model import run_grid_timed
            stats, self.last_timeline = run_grid_timed(self.program, grid, block, launch, self.mod.timing_params,
                                                       max_steps)
            self.mod.last_timeline = self.last_timeline
        else:
            stats = run_grid(self.program, grid, block, launch, max_steps)
        self.write_back(launch, mapped)
        self.last_stats = stats
        return stats

    def prepare(self, args, shared_mem: int = 0, *, clock=None, cluster=None) -> tuple[Launch, dict]:
        """Check and pack ``args`` into fresh device memory: ``(launch, mapped)``, where ``mapped`` holds the
        numpy arrays passed by pointer and their device addresses (for :meth:`write_back`). The debugger
        builds its CTAs from this; ``__call__`` is prepare + run_grid + write_back."""
        params = self.program.fn.params
        args = tuple(args)
        if len(args) != len(params):
            raise ArgumentError(f"kernel '{self.name}' takes {len(params)} arguments ({self.signature()}); "
                                f"got {len(args)}")
        gmem = Global()
        buf = np.zeros(max(self.program.param_bytes, 1), np.uint8)
        mapped: dict[int, tuple[np.ndarray, int]] = {}
        for i, (p, a) in enumerate(zip(params, args)):
            raw = self._pack(i, p, a, gmem, mapped)
            off = self.program.params[p.name].offset
            buf[off: off + len(raw)] = np.frombuffer(raw, np.uint8)
        launch = Launch(self.mod.arch, self.mod.ub_policy, gmem, Flat(self.program.param_bytes, "param space",
                                                                          buf.tobytes()),
                        Flat(self.program.const_bytes, "const bank", _const_image(self.program)),
                        _alloc_globals(self.program, gmem), int(shared_mem), clock)
        dims = self.cluster_dims(cluster)
        if dims is not None:
            launch.cluster_dims, launch.explicit_cluster = dims, True
        return launch, mapped

    @staticmethod
    def write_back(launch: Launch, mapped: dict) -> None:
        """Copy device memory back into the numpy arrays that were passed by pointer."""
        for arr, base in mapped.values():
            data = launch.gmem.region(base)[: arr.nbytes]
            arr[...] = data.view(arr.dtype).reshape(arr.shape)

    def _pack(self, i, p, a, gmem, mapped) -> bytes:
        where = f"argument {i} ({p.name} .{p.type}) of kernel '{self.name}'"
        size = self.program.params[p.name].size
        if isinstance(a, np.ndarray) and a.ndim > 0:
            if size != 8 or p.dims:
                raise ArgumentError(f"{where}: an array is passed by pointer, which needs a .u64/.b64 parameter")
            if id(a) not in mapped:
                if not a.flags.c_contiguous:
                    raise ArgumentError(f"{where}: the array must be C-contiguous")
                mapped[id(a)] = (a, gmem.alloc(a.nbytes, p.name, a.tobytes()))
            return np.uint64(mapped[id(a)][1]).tobytes()
        if isinstance(a, bytes):
            if len(a) != size:
                raise ArgumentError(f"{where}: {len(a)} bytes given, the parameter has {size}")
            return a
        if not isinstance(a, np.generic):
            raise ArgumentError(f"{where}: pass a numpy array or a numpy scalar (e.g. np.int32(5)), "
                                f"not {type(a).__name__}")
        kind_ok = p.type.startswith("b") or (a.dtype.kind == "f") == p.type.startswith("f")
        if p.dims or a.dtype.itemsize != size or not kind_ok or a.dtype.kind not in "iuf":
            raise ArgumentError(f"{where}: got {a.dtype.name}, expected a {size}-byte "
                                f"{'float' if p.type.startswith('f') else 'integer'} scalar")
        return a.tobytes()


def _pack_init(d, size: int) -> bytes:
    from warpsim.regfile import NP
    out = np.zeros(size, np.uint8)
    if d.init:
        dt = NP[d.type]
        vals = np.array([v for v in d.init], dtype=np.float64 if dt.kind == "f" else object)
        arr = vals.astype(dt) if dt.kind == "f" else np.array([int(v) & ((1 << (8 * dt.itemsize)) - 1)
                                                               for v in d.init], dtype=f"u{dt.itemsize}")
        raw = arr.tobytes()
        out[: len(raw)] = np.frombuffer(raw, np.uint8)
    return out.tobytes()


def _const_image(program) -> bytes:
    img = np.zeros(max(program.const_bytes, 1), np.uint8)
    for v in program.consts.values():
        img[v.offset: v.offset + v.size] = np.frombuffer(_pack_init(v.decl, v.size), np.uint8)
    return img.tobytes()


def _alloc_globals(program, gmem: Global) -> dict:
    from warpsim.program import layout
    out = {}
    for d in program.globals:
        v = layout([d], "global")[0][d.name]
        out[d.name] = gmem.alloc(v.size, d.name, _pack_init(d, v.size))
    return out
