#!/usr/bin/env python3
"""Record warpsim traces on a real NVIDIA GPU (CuPy + numpy; warpsim need not be installed).

    python traces/capture/capture.py --out traces/h100            # everything
    python traces/capture/capture.py --out /tmp/t --quick         # small N, quick check of every kernel
    python traces/capture/capture.py --out /tmp/t --only 'i8_k32|spgemm' --skip-timing
    python traces/capture/capture.py --out /tmp/t --dry-run       # no GPU: inputs only, D random

Writes (see traces/README.md):
    OUT/instruction/<family>__<class>.npz   one `mma.sp` per warp-instance, many kernels per file
    OUT/ub/<family>.npz                     same, metadata with UB codes (labelled meta.ub = true)
    OUT/program/<name>.npz                  whole PTX kernels run with their memory before/after
    OUT/timing/<name>.npz                   clock64 microbenchmarks (raw per-warp start/end clocks)
    OUT/device.json                         GPU, driver, CUDA, clocks, and the summary of this run
    OUT/traps.json                          (--traps) what the trapping selectors did, one process each

Kernels are the .ptx files in traces/capture/kernels/ (make them with gen_kernels.py; for a GPU
other than sm_90 regenerate with --arch). They are loaded with cupy.RawModule(path=...), i.e. the
driver JIT-compiles the recorded PTX.
"""
from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
import forms  # noqa: E402
import inputs  # noqa: E402
from gen_kernels import TIMING, TIMING_MAX_ILP, TIMING_UNROLL  # noqa: E402


def _load_tracefile():
    """warpsim/tracefile.py loaded by path (works without installing warpsim or its dependencies)."""
    spec = importlib.util.spec_from_file_location("warpsim_tracefile", REPO / "warpsim" / "tracefile.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["warpsim_tracefile"] = mod
    spec.loader.exec_module(mod)
    return mod


tracefile = _load_tracefile()
POISON = np.uint32(0xDEADBEEF)
BLOCK = 128  # 4 warps = 4 instances per CTA

cp = None  # cupy, imported in main unless --dry-run


# --------------------------------------------------------------------------- device


def device_info(dry: bool) -> dict:
    info = {"host": platform.node(), "python": platform.python_version(), "numpy": np.__version__}
    ptx_head = (HERE / "kernels" / "instr_f16_k16_f32.ptx").read_text().splitlines()[:8]
    info["ptx_generated_by"] = " ".join(ln.strip("/ ").strip() for ln in ptx_head if "Cuda compilation" in ln
                                        or "Based on" in ln)
    if dry:
        info.update(name="dry-run (no GPU)", compute_capability="none", driver="none", cuda="none")
        return info
    props = cp.cuda.runtime.getDeviceProperties(0)
    rt = cp.cuda.runtime.runtimeGetVersion()
    dv = cp.cuda.runtime.driverGetVersion()
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    info.update(name=name, compute_capability=f"{props['major']}.{props['minor']}",
                cuda=f"{rt // 1000}.{(rt % 1000) // 10}", cuda_runtime_version=rt, cuda_driver_api_version=dv,
                sm_count=props["multiProcessorCount"], clock_rate_khz=props.get("clockRate"),
                l2_bytes=props.get("l2CacheSize"), cupy=cp.__version__)
    try:
        q = "name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,pstate"
        out = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30).stdout.strip().splitlines()[0]
        vals = [v.strip() for v in out.split(",")]
        info["nvidia_smi"] = dict(zip(q.split(","), vals))
        info["driver"] = info["nvidia_smi"]["driver_version"]
        head = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30).stdout
        m = re.search(r"CUDA Version:\s*([\d.]+)", head)
        if m:
            info["driver_cuda_version"] = m.group(1)
    except Exception as exc:  # no nvidia-smi: keep going with what CuPy says
        info["driver"] = f"driver API {dv}"
        info["nvidia_smi_error"] = repr(exc)
    return info


def smi_clocks() -> dict:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30).stdout
        return dict(zip(["clocks.sm", "clocks.mem", "temperature.gpu", "power.draw"],
                        [v.strip() for v in out.strip().split(",")]))
    except Exception as exc:
        return {"error": repr(exc)}


_modules = {}


def module(path: Path):
    if path not in _modules:
        _modules[path] = cp.RawModule(path=str(path))
    return _modules[path]


def sync():
    cp.cuda.Device().synchronize()


# --------------------------------------------------------------------------- instruction traces


def run_instruction_batch(fam, kernels, kidx, a, b, c, e, ptx_path, dry, rng):
    """Launch each kernel on its contiguous slice of instances; return D and the launch list."""
    n = a.shape[0]
    nd = fam.n_c
    launches = []
    order = np.argsort(kidx, kind="stable")
    assert np.all(order == np.arange(n)), "instances must be grouped by kernel"
    if dry:
        d = inputs.raw_bits(rng, 32, (n, 32, nd))
    else:
        dA, dB, dC, dE = (cp.asarray(x) for x in (a, b, c, e))
        dD = cp.full((n, 32, nd), POISON, dtype=cp.uint32)
        mod = module(ptx_path)
    for ki, k in enumerate(kernels):
        idx = np.nonzero(kidx == ki)[0]
        if len(idx) == 0:
            continue
        first, count = int(idx[0]), int(len(idx))
        grid = (count * 32 + BLOCK - 1) // BLOCK
        launches.append({"kernel": k["name"], "first": first, "count": count, "grid": [grid, 1, 1],
                         "block": [BLOCK, 1, 1]})
        if not dry:
            f = mod.get_function(k["name"])
            s = slice(first, first + count)
            f((grid,), (BLOCK,), (dA[s], dB[s], dC[s], dE[s], dD[s], np.int32(count)))
    if not dry:
        sync()
        d = cp.asnumpy(dD)
    return d, launches


def instruction_trace(fam, cls, per_kernel, rng, dry, dev, out: Path, ub=False, kernels=None):
    kernels = kernels or fam.kernels()
    parts = [inputs.kernel_inputs(rng, fam, k, cls, per_kernel, ub=ub) for k in kernels]
    a, b, c, e = (np.concatenate([p[i] for p in parts]) for i in range(4))
    kidx = np.repeat(np.arange(len(kernels)), per_kernel).astype(np.uint16)
    ptx_path = HERE / "kernels" / f"instr_{fam.name}.ptx"
    t0 = time.time()
    d, launches = run_instruction_batch(fam, kernels, kidx, a, b, c, e, ptx_path, dry, rng)
    poisoned = int(np.sum(np.all(d == POISON, axis=(1, 2)))) if not dry else 0
    meta = {
        "family": fam.name, "shape": f"m16n8k{fam.k}", "ctype": fam.ctype, "meta_class": fam.meta_class,
        "pattern": fam.pattern, "class": "ub" if ub else cls, "input_class": cls, "ub": bool(ub),
        "registers": {"a": fam.n_a, "b": fam.n_b, "c": fam.n_c, "d": fam.n_c, "e": 1},
        "kernels": kernels, "instances_per_kernel": per_kernel,
        "layout": "arrays (N, 32 lanes, nregs) of raw 32-bit registers; instance i ran kernel "
                  "meta.kernels[kernel_index[i]]; lane l of instance i is thread l of warp i",
        "metadata_note": ("UB: each nibble of the selected lanes is a UB code with probability 1/2 "
                          f"(UB codes per variant: " + json.dumps({v: forms.ub_codes(fam, v) for v in forms.VARIANTS})
                          + "); other lanes random junk") if ub else
                         ("selected lanes: random valid codes per nibble " +
                          json.dumps({v: forms.valid_codes(fam, v) for v in forms.VARIANTS}) +
                          "; unselected lanes: random 32-bit junk (ignored by the hardware)"),
        "poisoned_outputs": poisoned,
        "dry_run": bool(dry),
    }
    if ub:
        meta["ub_rule"] = ("PTX ISA 9.7.14.6.1: metadata codes with idx0 == idx1 (all variants), idx0 > idx1 "
                           "(::ordered_metadata) and tf32 codes other than 0100/1110 are undefined behaviour; "
                           "these outputs are what this GPU did")
    name = f"{fam.name}/{'ub' if ub else cls}"
    path = out / ("ub" if ub else "instruction") / (f"{fam.name}.npz" if ub else f"{fam.name}__{cls}.npz")
    tracefile.write_trace(path, "instruction", {"a": a, "b": b, "c": c, "e": e, "d": d, "kernel_index": kidx},
                          name=name, ptx=ptx_path.read_text(), launch={"launches": launches, "block": [BLOCK, 1, 1]},
                          device=dev, meta=meta)
    return {"trace": name, "n": int(a.shape[0]), "kernels": len(kernels), "poisoned": poisoned,
            "bytes": path.stat().st_size, "sec": round(time.time() - t0, 2)}


# --------------------------------------------------------------------------- program traces


def program_trace(name, ptx_path, kernel, grid, block, params, dry, dev, out: Path, meta=None, rng=None,
                  shared_bytes=0):
    """params: list of (name, ptx type, numpy array or scalar). Pointers: memory before -> in_<name>,
    after -> out_<name>."""
    arrays, plist, dev_arrays, args = {}, [], {}, []
    for pname, ptype, val in params:
        if isinstance(val, np.ndarray):
            arrays[f"in_{pname}"] = val
            plist.append({"name": pname, "type": ptype, "array": f"in_{pname}", "out_array": f"out_{pname}",
                          "pointer": True})
            if not dry:
                dev_arrays[pname] = cp.asarray(val)
                args.append(dev_arrays[pname])
        else:
            plist.append({"name": pname, "type": ptype, "value": val, "pointer": False})
            args.append(np.int32(val) if ptype in ("s32", "u32") else val)
    t0 = time.time()
    if not dry:
        f = module(ptx_path).get_function(kernel)
        f(tuple(grid), tuple(block), tuple(args), shared_mem=shared_bytes)
        sync()
        for pname, darr in dev_arrays.items():
            arrays[f"out_{pname}"] = cp.asnumpy(darr)
    else:
        for pname, _t, val in params:
            if isinstance(val, np.ndarray):
                arrays[f"out_{pname}"] = val.copy()
    launch = {"kernel": kernel, "grid": list(grid), "block": list(block), "shared_bytes": shared_bytes,
              "params": plist}
    path = out / "program" / f"{name}.npz"
    tracefile.write_trace(path, "program", arrays, name=name, ptx=ptx_path.read_text(), launch=launch, device=dev,
                          meta=dict(meta or {}, dry_run=bool(dry)))
    return {"trace": f"program/{name}", "bytes": path.stat().st_size, "sec": round(time.time() - t0, 2)}, arrays


def spgemm_inputs(rng):
    """A (64x256, 2:4, ordered codes), compressed to Ac/Em; Bt (64x256); C (64x64)."""
    M, N, K = 64, 64, 256
    codes = np.array(forms.CODES_ORDERED)
    q = codes[rng.integers(0, 6, size=(M, K // 4))]
    vals = inputs.float_rel(rng, "f16", (M, K // 2), -3, 3).astype(np.uint16)
    Ac = vals.reshape(M, K // 2)
    Em = np.zeros((M, K // 16), np.uint16)
    for c in range(4):
        Em |= (q[:, c::4].astype(np.uint16) << (4 * c))
    Bt = inputs.float_rel(rng, "f16", (N, K), -3, 3).astype(np.uint16)
    C = rng.normal(size=(M, N)).astype(np.float32)
    D = np.full((M, N), np.float32(np.nan), np.float32)
    return Ac, Em, Bt, C, D, q


def spgemm_reference(Ac, q, Bt, C):
    M, K = Ac.shape[0], Ac.shape[1] * 2
    A = np.zeros((M, K))
    av = Ac.view(np.float16).astype(np.float64)
    for m in range(M):
        for c in range(K // 4):
            i0, i1 = q[m, c] & 3, q[m, c] >> 2
            A[m, 4 * c + i0] += av[m, 2 * c]
            A[m, 4 * c + i1] += av[m, 2 * c + 1]
    return A @ Bt.view(np.float16).astype(np.float64).T + C


# --------------------------------------------------------------------------- timing traces


def timing_input(spec, rng):
    name, opcode, na, nb, nc, sparse, famname, t = spec
    if t in forms.INT_BITS:
        bits = forms.INT_BITS[t]
        lo, hi = inputs.INT_RANGE[t]
        el = lambda n: inputs.int_to_bits(rng.integers(max(lo, -8), min(hi, 8), endpoint=True,
                                                       size=(32, n, 32 // bits)), bits)
        a, b = inputs.pack(el(na), bits), inputs.pack(el(nb), bits)
        c = (rng.integers(-1000, 1000, size=(32, nc)) & 0xFFFFFFFF).astype(np.uint32)
    else:
        bits = forms.FLOAT_FORMATS[t][0]
        el = lambda n, lo, hi: inputs.float_rel(rng, t, (32, n, 32 // bits), lo, hi)
        a, b = inputs.pack(el(na, -4, -1), bits), inputs.pack(el(nb, -4, -1), bits)
        cfmt = "f16" if ".f16.f16.f16.f16" in opcode else "f32"
        cb = forms.FLOAT_FORMATS[cfmt][0]
        c = inputs.pack(inputs.float_rel(rng, cfmt, (32, nc, 32 // cb), -2, 2), cb)
    cols = [a, b, c]
    if sparse:
        codes = np.array(forms.CODES_TF32 if t == "tf32" else forms.CODES_ORDERED, np.uint32)
        nib = codes[rng.integers(0, len(codes), size=(32, 8))]
        cols.append(np.bitwise_or.reduce(nib << (np.arange(8, dtype=np.uint32) * 4), axis=1)[:, None]
                    .astype(np.uint32))
    return np.concatenate(cols, axis=1).astype(np.uint32)


#: dynamic shared memory (KB) of the ``l1-reset`` kernel
L1_RESET_SMEM_KB = 200

TIMING_WARMUPS = {
    "none": "no launch before the recorded ones (the default; how the bundled timing traces were recorded "
            "unless their meta.warmup says otherwise)",
    "kernels": "each kernel <name>_ilp1..8 of the module launched once (one warp, the longer reps) before the "
               "recorded launches",
    "runs": "the whole run list launched once, unrecorded in start/end, before the recorded launches (the "
            "pass's clocks are kept in warmup_start/warmup_end, its runs in warmup_run_*)",
}


#: launched before every timing launch (``--timing-before``): what state the launch finds in its SM's L1
TIMING_BEFORE = {
    "none": "nothing: each launch finds the L1 as the launch before it left it (the default; how the bundled "
            "timing traces were recorded unless their meta.before says otherwise)",
    "l1-reset": f"a kernel on every SM (a CTA of 256 threads an SM) asking for {L1_RESET_SMEM_KB} KB of dynamic "
                "shared memory: the driver's carveout for it leaves the L1 28 KB, and the recorded launch, with "
                "none, gets the L1 back without the lines and replacement state of the launches before it "
                "(traces/h100/l1_state.json: one spilling warp then repeats its time within 0.6 %, where after "
                "itself its 4-trip runs are 22-41 % longer)",
}


def timing_runs(quick=False, repeats=(3, 2)):
    """The recorded launches, in order: (ilp, warps, reps, repeat); ``repeats``: launches of each one-warp and
    each several-warp configuration."""
    runs = []
    reps_pair = (4, 32) if not quick else (2, 4)
    for ilp in range(1, TIMING_MAX_ILP + 1):
        for reps in reps_pair:
            for rep in range(repeats[0]):
                runs.append((ilp, 1, reps, rep))
    for ilp in (1, 4):
        for w in (range(1, 17) if not quick else (2, 16)):
            for rep in range(repeats[1]):
                runs.append((ilp, w, reps_pair[1], rep))
    return runs, reps_pair


L1_RESET = r"""
extern "C" __global__ void l1_reset(unsigned long long* sink) {
    extern __shared__ unsigned s[];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (s[(threadIdx.x + 1) % blockDim.x] == 0xffffffffu) sink[blockIdx.x] = 1;
}
"""


def l1_resetter(cp):
    """A function that launches the ``l1-reset`` kernel of :data:`TIMING_BEFORE` on every SM (``cp``: cupy)."""
    fn = cp.RawModule(code=L1_RESET).get_function("l1_reset")
    fn.max_dynamic_shared_size_bytes = L1_RESET_SMEM_KB * 1024
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    sink = cp.zeros(sms, cp.uint64)
    return lambda: fn((sms,), (256,), (sink,), shared_mem=L1_RESET_SMEM_KB * 1024)


def reset_launches(cp, fn, warps: int, args, launches: int, reset) -> list:
    """The ``[warp][t0, t1]`` clocks of ``launches`` launches of ``fn`` on one CTA of ``warps`` warps, each right
    after ``reset()`` (:func:`l1_resetter`), after one launch that brings its lines into the L2 (not kept):
    ``args(t, sink)`` gives the kernel's arguments for the clock array and a sink of a word a thread."""
    t = cp.zeros((warps, 2), cp.int64)
    sink = cp.zeros(32 * warps, cp.uint32)
    kept = []
    for rep in range(-1, launches):
        if rep >= 0:
            reset()
        fn((1,), (32 * warps,), args(t, sink))
        cp.cuda.Device().synchronize()
        if rep >= 0:
            kept.append(t.get().tolist())
    return kept


def timing_trace(spec, rng, dry, dev, out: Path, quick=False, warmup="none", input_from=None, before="none",
                 repeats=(3, 2)):
    """warmup: a key of TIMING_WARMUPS; before: a key of TIMING_BEFORE; repeats: see :func:`timing_runs`.
    input_from: a folder of timing traces whose ``input`` array is used instead of a new one (rng is advanced
    the same either way), e.g. to re-record a bundled trace."""
    name, opcode, na, nb, nc, sparse, famname, t = spec
    ptx_path = HERE / "kernels" / f"timing_{name}.ptx"
    inp = timing_input(spec, rng)
    input_note = "new (timing_input from the run's rng)"
    if input_from:
        src = Path(input_from) / f"{name}.npz"
        old = tracefile.read_trace(src).arrays["input"]
        if old.shape != inp.shape or old.dtype != inp.dtype:
            raise RuntimeError(f"{src}: input {old.shape} {old.dtype}, expected {inp.shape} {inp.dtype}")
        inp = np.array(old)
        input_note = f"copied from {src.name} of --timing-input-from ({input_from})"
    if warmup not in TIMING_WARMUPS:
        raise ValueError(f"warmup {warmup!r}: one of {sorted(TIMING_WARMUPS)}")
    if before not in TIMING_BEFORE:
        raise ValueError(f"before {before!r}: one of {sorted(TIMING_BEFORE)}")
    runs, reps_pair = timing_runs(quick, repeats)
    warm = {"none": [], "kernels": [(i, 1, reps_pair[1], 0) for i in range(1, TIMING_MAX_ILP + 1)],
            "runs": list(runs)}[warmup]
    R, W = len(runs), len(warm)
    start = np.zeros((R, 16), np.uint64)
    end = np.zeros((R, 16), np.uint64)
    smid = np.zeros((R, 16), np.uint32)
    wstart, wend = np.zeros((W, 16), np.uint64), np.zeros((W, 16), np.uint64)
    t0 = time.time()
    clocks_before = smi_clocks() if not dry else {}
    clocks_after_warmup = {}
    if not dry:
        mod = module(ptx_path)
        d_in = cp.asarray(inp)
        d_s, d_e = cp.zeros(16, cp.uint64), cp.zeros(16, cp.uint64)
        d_sm = cp.zeros(16, cp.uint32)
        d_sink = cp.zeros(16 * 32 * nc, cp.uint32)
        funcs = {ilp: mod.get_function(f"{name}_ilp{ilp}") for ilp in range(1, TIMING_MAX_ILP + 1)}
        reset = l1_resetter(cp) if before == "l1-reset" else (lambda: None)

        def launch(ilp, w, reps):
            d_s.fill(0), d_e.fill(0), d_sm.fill(0)
            reset()
            funcs[ilp]((1,), (32 * w,), (d_in, d_s, d_e, d_sm, d_sink, np.int32(reps)))
            sync()
            return cp.asnumpy(d_s), cp.asnumpy(d_e), cp.asnumpy(d_sm)

        for i, (ilp, w, reps, _rep) in enumerate(warm):
            wstart[i], wend[i], _ = launch(ilp, w, reps)
        if warm:
            clocks_after_warmup = smi_clocks()
        for i, (ilp, w, reps, _rep) in enumerate(runs):
            start[i], end[i], smid[i] = launch(ilp, w, reps)
    else:
        for i, (ilp, w, reps, _rep) in enumerate(runs):
            start[i, :w] = 1000
            end[i, :w] = 1000 + reps * TIMING_UNROLL * 30
    clocks_after = smi_clocks() if not dry else {}
    runs_a = np.array(runs, np.int32)
    arrays = {"start": start, "end": end, "smid": smid, "run_ilp": runs_a[:, 0], "run_warps": runs_a[:, 1],
              "run_reps": runs_a[:, 2], "run_repeat": runs_a[:, 3], "input": inp}
    if warm:
        warm_a = np.array(warm, np.int32)
        arrays.update(warmup_start=wstart, warmup_end=wend, warmup_run_ilp=warm_a[:, 0],
                      warmup_run_warps=warm_a[:, 1], warmup_run_reps=warm_a[:, 2])
    kernels = [{"name": f"{name}_ilp{i}", "ilp": i} for i in range(1, TIMING_MAX_ILP + 1)]
    meta = {
        "opcode": opcode, "sparse": sparse, "family": famname, "input_type": t, "unroll": TIMING_UNROLL,
        "kernels": kernels, "instructions_per_chain": "run_reps * unroll",
        "registers": {"a": na, "b": nb, "c": nc, "e": 1 if sparse else 0},
        "how": ("kernel <name>_ilp<ILP>(in, t_start, t_end, smid, sink, reps): each lane loads a, b, (e) and "
                "C from in[lane] (columns a.., b.., c.., e), runs ILP independent chains (D feeds C), "
                f"{TIMING_UNROLL} steps per loop trip, `reps` trips; clock64 is read before and after the loop; "
                "lane 0 of warp w writes t_start[w], t_end[w], smid[w]. One CTA of 32*run_warps threads. "
                "Row r of start/end/smid holds warps 0..run_warps[r]-1 (rest 0). run_repeat 0 is the first "
                "launch of that configuration."),
        "warmup": warmup, "warmup_how": TIMING_WARMUPS[warmup], "warmup_launches": W, "input_source": input_note,
        "before": before, "before_how": TIMING_BEFORE[before],
        "clocks_before": clocks_before, "clocks_after_warmup": clocks_after_warmup, "clocks_after": clocks_after,
        "dry_run": bool(dry),
    }
    launch = {"grid": [1, 1, 1], "block": "32*run_warps", "params": ["in", "t_start", "t_end", "smid", "sink",
                                                                     "reps"]}
    path = out / "timing" / f"{name}.npz"
    tracefile.write_trace(path, "timing", arrays, name=f"timing/{name}", ptx=ptx_path.read_text(), launch=launch,
                          device=dev, meta=meta)
    # summary: dependent latency (ILP 1, 1 warp): slope between the two reps, repeats >= 1
    cyc = (end[:, 0].astype(np.int64) - start[:, 0].astype(np.int64))
    def med(ilp, w, reps):
        sel = (runs_a[:, 0] == ilp) & (runs_a[:, 1] == w) & (runs_a[:, 2] == reps) & (runs_a[:, 3] >= 1)
        return float(np.median(cyc[sel])) if sel.any() else float("nan")
    r0, r1 = reps_pair
    lat = (med(1, 1, r1) - med(1, 1, r0)) / ((r1 - r0) * TIMING_UNROLL)
    thr8 = (med(8, 1, r1) - med(8, 1, r0)) / ((r1 - r0) * TIMING_UNROLL * 8)
    return {"trace": f"timing/{name}", "lat_cyc": round(lat, 2), "ilp8_cyc_per_mma": round(thr8, 2),
            "bytes": path.stat().st_size, "sec": round(time.time() - t0, 2)}


# --------------------------------------------------------------------------- traps (separate processes)


def trap_child(kernel_name: str) -> dict:
    fam = forms.FAMILY["f16_k32_f32"]
    k = [x for x in fam.kernels(selectors=fam.trap_selectors) if x["name"] == kernel_name][0]
    rng = np.random.default_rng(7)
    a, b, c, e = inputs.kernel_inputs(rng, fam, dict(k, selector=0), "normal", 4)
    path = HERE / "kernels" / "instr_f16_k32_f32_trap.ptx"
    try:
        f = module(path).get_function(kernel_name)
        dD = cp.full((4, 32, 4), POISON, dtype=cp.uint32)
        f((1,), (BLOCK,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), cp.asarray(e), dD, np.int32(4)))
        sync()
        d = cp.asnumpy(dD)
        return {"kernel": kernel_name, "trapped": False, "poisoned_left": int(np.sum(d == POISON))}
    except Exception as exc:
        return {"kernel": kernel_name, "trapped": True, "error": f"{type(exc).__name__}: {exc}"}


def run_traps(out: Path):
    fam = forms.FAMILY["f16_k32_f32"]
    res = []
    for k in fam.kernels(selectors=fam.trap_selectors):
        p = subprocess.run([sys.executable, __file__, "--trap-child", k["name"]], capture_output=True, text=True,
                           timeout=120)
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("TRAP-RESULT ")]
        res.append(json.loads(line[-1][12:]) if line else {"kernel": k["name"], "error": p.stderr[-2000:]})
        res[-1]["instruction"] = k["instruction"]
    (out / "traps.json").write_text(json.dumps(res, indent=1))
    return res


# --------------------------------------------------------------------------- main


def main(argv=None):
    global cp
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=False, default=str(REPO / "traces" / "h100"))
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--instances", type=int, default=128, help="target instances per (float family, class) file")
    ap.add_argument("--int-instances", type=int, default=96, help="target instances per (integer family, class) file")
    ap.add_argument("--ub-per-kernel", type=int, default=32)
    ap.add_argument("--quick", action="store_true", help="few instances and timing runs (checks every kernel)")
    ap.add_argument("--only", default=None, help="regex on trace names (family, program or timing name)")
    ap.add_argument("--skip-instr", action="store_true")
    ap.add_argument("--skip-ub", action="store_true")
    ap.add_argument("--skip-programs", action="store_true")
    ap.add_argument("--skip-timing", action="store_true")
    ap.add_argument("--traps", action="store_true", help="run the f16 k32 f32 selector 2/3 kernels, one process each")
    ap.add_argument("--cubin-check", default=None, help="folder of ptxas-built cubins: rerun the f8 family from "
                                                        "them and compare D with the PTX-JIT run")
    ap.add_argument("--timing-warmup", default="none", choices=sorted(TIMING_WARMUPS),
                    help="launches before each timing trace's recorded ones: " +
                         "; ".join(f"{k}: {v}" for k, v in TIMING_WARMUPS.items()))
    ap.add_argument("--timing-before", default="none", choices=sorted(TIMING_BEFORE),
                    help="launched before every timing launch: " +
                         "; ".join(f"{k}: {v}" for k, v in TIMING_BEFORE.items()))
    ap.add_argument("--timing-repeats", default=(3, 2), metavar="ONE,MANY",
                    type=lambda v: tuple(int(x) for x in v.split(",")),
                    help="launches of each one-warp and each several-warp timing configuration (3,2)")
    ap.add_argument("--timing-input-from", default=None, metavar="DIR",
                    help="take each timing trace's input array from DIR/<name>.npz (re-recording a trace)")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: generate inputs, random D (size/logic check)")
    ap.add_argument("--trap-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if not args.dry_run:
        import cupy
        cp = cupy
    if args.trap_child:
        print("TRAP-RESULT " + json.dumps(trap_child(args.trap_child)), flush=True)
        return 0

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    dev = device_info(args.dry_run)
    dev_public = {k: v for k, v in dev.items() if k != "host"}
    print("device:", json.dumps(dev_public), flush=True)
    want = (lambda s: re.search(args.only, s) is not None) if args.only else (lambda s: True)
    summary, failures = [], []

    def attempt(label, fn):
        try:
            r = fn()
            summary.append(r)
            print("ok  ", json.dumps(r), flush=True)
            return r
        except Exception as exc:
            failures.append({"what": label, "error": f"{type(exc).__name__}: {exc}"})
            print("FAIL", label, traceback.format_exc(), flush=True)
            return None

    if not args.skip_instr:
        for fam in forms.FAMILIES:
            if not want(fam.name):
                continue
            nk = len(fam.kernels())
            target = 16 if args.quick else (args.int_instances if fam.integer else args.instances)
            per_k = max(2, -(-target // nk))
            for cls in forms.classes_for(fam):
                attempt(f"instruction {fam.name}/{cls}",
                        lambda fam=fam, cls=cls: instruction_trace(fam, cls, per_k, rng, args.dry_run, dev_public, out))

    if not args.skip_ub:
        for fam in forms.FAMILIES:
            if not want(fam.name):
                continue
            ks = [k for k in fam.kernels(selectors=(0,)) if not k["satfinite"] and k["atype"] == fam.atypes[0]
                  and k["btype"] == fam.btypes[0]]
            per_k = 4 if args.quick else args.ub_per_kernel
            attempt(f"ub {fam.name}", lambda fam=fam, ks=ks, per_k=per_k: instruction_trace(
                fam, "normal", per_k, rng, args.dry_run, dev_public, out, ub=True, kernels=ks))

    if not args.skip_programs:
        programs(args, rng, dev_public, out, want, attempt)

    if not args.skip_timing:
        for spec in TIMING:
            if want(spec[0]):
                attempt(f"timing {spec[0]}", lambda spec=spec: timing_trace(
                    spec, rng, args.dry_run, dev_public, out, quick=args.quick, warmup=args.timing_warmup,
                    input_from=args.timing_input_from, before=args.timing_before, repeats=args.timing_repeats))

    if args.cubin_check and not args.dry_run:
        attempt("cubin check f8", lambda: cubin_check(Path(args.cubin_check), out))

    traps = run_traps(out) if args.traps and not args.dry_run else None

    report = {"device": dev_public, "created": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
              "args": vars(args), "summary": summary, "failures": failures, "traps": traps,
              "format_version": tracefile.FORMAT_VERSION}
    (out / "device.json").write_text(json.dumps(report, indent=1))

    print()
    print(f"{'trace':42s} {'N':>6s} {'kern':>5s} {'poison':>6s} {'lat':>7s} {'ilp8':>6s} {'KiB':>7s} {'s':>6s}")
    for r in summary:
        print(f"{r.get('trace', '?'):42s} {str(r.get('n', '')):>6s} {str(r.get('kernels', '')):>5s} "
              f"{str(r.get('poisoned', '')):>6s} {str(r.get('lat_cyc', '')):>7s} {str(r.get('ilp8_cyc_per_mma', '')):>6s} "
              f"{r.get('bytes', 0) / 1024:7.1f} {r.get('sec', 0):6.2f}")
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"{len(summary)} ok, {len(failures)} failed; {total / 2**20:.2f} MiB under {out}")
    for f in failures:
        print("FAILED:", f["what"], "--", f["error"][:300])
    if traps:
        for t in traps:
            print("trap:", json.dumps(t)[:300])
    return 1 if failures else 0


def programs(args, rng, dev, out, want, attempt):
    dry = args.dry_run
    # (a) two capture kernels run as whole programs
    for famname, kname, cls in (("f16_k16_f32", "mmasp_f16_k16_f32_sel0_ord", "normal"),
                                ("i8_k32", "mmasp_i8_k32_s8u8_sel1_sp_sat", "intextreme")):
        if not want(famname) and not want("prog"):
            continue
        fam = forms.FAMILY[famname]
        k = [x for x in fam.kernels() if x["name"] == kname][0]

        def one(fam=fam, k=k, cls=cls):
            n = 8
            a, b, c, e = inputs.kernel_inputs(rng, fam, k, cls, n)
            d = np.full((n, 32, fam.n_c), POISON, np.uint32)
            r, _ = program_trace(
                f"instr_{k['name']}", HERE / "kernels" / f"instr_{fam.name}.ptx", k["name"], (2, 1, 1), (BLOCK, 1, 1),
                [("A", "u64", a), ("B", "u64", b), ("C", "u64", c), ("E", "u64", e), ("D", "u64", d), ("n", "s32", n)],
                dry, dev, out, meta={"what": f"capture kernel {k['name']} run as a program ({cls} inputs)",
                                     "kernel_info": k, "family": fam.name, "input_class": cls,
                                     "registers": {"a": fam.n_a, "b": fam.n_b, "c": fam.n_c, "d": fam.n_c}})
            return r
        attempt(f"program instr {kname}", one)

    if want("spgemm") or want("prog"):
        def gemm():
            Ac, Em, Bt, C, D, q = spgemm_inputs(rng)
            r, arrays = program_trace(
                "spgemm_f16_f32_m64n64k256", HERE / "kernels" / "prog_spgemm.ptx", "spgemm_f16_f32_m64n64k256",
                (2, 2, 1), (128, 1, 1), [("Ac", "u64", Ac), ("Em", "u64", Em), ("Bt", "u64", Bt), ("C", "u64", C),
                                         ("D", "u64", D)], dry, dev, out,
                meta={"what": "tiled sparse GEMM D = A*B + C, M=N=64, K=256, A 2:4 f16 (ordered codes), B f16, C/D f32",
                      "storage": "Ac[M][K/2] f16 kept values; Em[M][K/16] u16, code of chunk c of a 16-column group "
                                 "at bits 4c; Bt[N][K] f16 = B transposed; C, D [M][N] f32 row-major",
                      "codes": q})
            ref = spgemm_reference(Ac, q, Bt, C)
            got = arrays["out_D"].astype(np.float64)
            rel = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
            r["rel_err_vs_f64"] = rel
            if not dry and not rel < 1e-3:
                raise RuntimeError(f"spgemm result off: relative error {rel:.3g} vs float64 reference")
            return r
        attempt("program spgemm", gemm)

    if want("divergent") or want("prog"):
        def div():
            x = rng.integers(1, 2000, size=128).astype(np.uint32)
            x[::17] = 1
            steps = np.full(128, POISON, np.uint32)
            xo = np.full(128, POISON, np.uint32)
            fo = np.full(128, np.float32(-7.5), np.float32)
            r, arrays = program_trace("divergent_collatz", HERE / "kernels" / "prog_divergent.ptx", "divergent_collatz",
                                      (2, 1, 1), (64, 1, 1), [("in", "u64", x), ("steps", "u64", steps),
                                                              ("xout", "u64", xo), ("fout", "u64", fo)], dry, dev, out,
                                      meta={"what": "per-lane divergent loop (Collatz, <= 64 trips) and a 3-way "
                                                    "lane-dependent branch writing results"})
            # host check of the integer outputs
            exp_steps = []
            for v in x:
                v, n = int(v), 0
                while v != 1 and n < 64:
                    v = 3 * v + 1 if v & 1 else v >> 1
                    v &= 0xFFFFFFFF
                    n += 1
                exp_steps.append(n)
            ok = bool(np.array_equal(arrays["out_steps"], np.array(exp_steps, np.uint32)))
            r["steps_match_host"] = ok
            if not dry and not ok:
                raise RuntimeError("divergent_collatz steps differ from the host computation")
            return r
        attempt("program divergent", div)


def cubin_check(cubin_dir: Path, out: Path):
    """Rerun the f8 instruction traces through the ptxas-built cubin; D must be bit-identical."""
    fam = forms.FAMILY["f8_k64_f32"]
    mod = cp.RawModule(path=str(cubin_dir / "instr_f8_k64_f32.cubin"))
    same, total = 0, 0
    for cls in forms.classes_for(fam):
        t = tracefile.read_trace(out / "instruction" / f"{fam.name}__{cls}.npz")
        kernels = t.meta["kernels"]
        dA, dB, dC, dE = (cp.asarray(t[x]) for x in "abce")
        dD = cp.full(t["d"].shape, POISON, dtype=cp.uint32)
        for l in t.launch["launches"]:
            s = slice(l["first"], l["first"] + l["count"])
            mod.get_function(l["kernel"])(tuple(l["grid"]), tuple(l["block"]),
                                          (dA[s], dB[s], dC[s], dE[s], dD[s], np.int32(l["count"])))
        sync()
        d = cp.asnumpy(dD)
        same += int(np.sum(d == t["d"]))
        total += d.size
    return {"trace": "cubin-vs-jit f8", "n": total, "kernels": len(fam.kernels()), "poisoned": total - same,
            "bytes": 0, "sec": 0, "identical_registers": same}


if __name__ == "__main__":
    sys.exit(main())
