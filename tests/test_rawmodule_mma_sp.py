"""Issue-level check: nvcc-emitted PTX for every mma.sp form × variant × selector (and the dense forms)
runs through warpsim.RawModule exactly like CuPy's RawModule, and D equals the exact numpy product."""
import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from helpers import small_values, sparse_a, unit_scales
from isa import formats, layouts
from isa.forms import BY_KEY
from warpsim import RawModule
from warpsim.fragments import from_registers, to_registers

HERE = Path(__file__).parent / "ptx" / "mma_sp"
INDEX = json.loads((HERE / "index.json").read_text())
INSTANCES = 2  # warps per launch, each its own instance


@lru_cache(maxsize=None)
def module(name: str) -> RawModule:
    return RawModule(path=str(HERE / name))


def _inputs(form, selector, rng):
    n = INSTANCES
    if form.sparse:
        A = np.stack([sparse_a(form, rng) for _ in range(n)])
        a, e = to_registers(form, "A", A, selector=selector, fill=0x12345678)
    else:
        A = small_values(form.atype, rng, (n, form.shape.m, form.shape.k))
        a = layouts.a_layout(form).pack(formats.encode_exact(form.atype, A))
        e = np.zeros((n, 32), np.uint32)
    B = small_values(form.btype, rng, (n, form.shape.k, form.shape.n))
    C = small_values(form.ctype, rng, (n, form.shape.m, form.shape.n))
    return A, B, C, a, to_registers(form, "B", B), to_registers(form, "C", C), e


@pytest.mark.parametrize("kernel", sorted(INDEX), ids=lambda k: f"{INDEX[k]['form']}-{INDEX[k]['variant']}-s{INDEX[k]['selector']}")
def test_nvcc_ptx_through_rawmodule(kernel):
    info = INDEX[kernel]
    form, sel = BY_KEY[info["form"]], info["selector"]
    rng = np.random.default_rng(abs(hash(kernel)) % 2**32)
    A, B, C, a, b, c, e = _inputs(form, sel, rng)
    d = np.zeros((INSTANCES, 32, form.regs["d"]), np.uint32)
    args = [a, b, c, e, d]
    if form.block_scaled:
        args += [np.broadcast_to(v, (INSTANCES, 32)).copy() for v in unit_scales(form).values()]
    module(info["module"]).get_function(kernel)((INSTANCES,), (32,), tuple(args))
    ref = A @ B + C
    if form.satfinite:
        ref = np.clip(ref, -2**31, 2**31 - 1)
    assert np.array_equal(from_registers(form, "D", d), ref)


def test_every_form_has_a_kernel():
    from isa.forms import DENSE_FORMS, FORMS
    covered = {v["form"] for v in INDEX.values()}
    missing = {f.key for f in FORMS + DENSE_FORMS} - covered
    assert missing == {"m16n8k128.mxf4nvf4.x4X.ue8m0.f32.e2m1.e2m1.f32"}  # PTX 9.1: newer than nvcc 13.0 emits


@pytest.mark.parametrize("kernel", sorted(INDEX)[::3], ids=lambda k: f"{INDEX[k]['form']}-{INDEX[k]['variant']}-s{INDEX[k]['selector']}")
def test_in_place_mma_equals_the_general_path(kernel, monkeypatch):
    """The machine's in-place mma (one gather from the register bank, warpsim.tensorcore.InPlace) writes the
    same bits as the general way (read_vec, tensorcore.mma_sp, write_vec), on raw random B and C bits."""
    from warpsim.warp import Warp
    info = INDEX[kernel]
    form, sel = BY_KEY[info["form"]], info["selector"]
    rng = np.random.default_rng(abs(hash(kernel)) % 2**32)
    _, _, _, a, b, c, e = _inputs(form, sel, rng)
    b = rng.integers(0, 2**32, b.shape, dtype=np.uint32)
    c = rng.integers(0, 2**32, c.shape, dtype=np.uint32)
    calls = []
    real = Warp.mma_sp_in_place

    def run():
        d = np.zeros((INSTANCES, 32, form.regs["d"]), np.uint32)
        args = [a, b, c, e, d]
        if form.block_scaled:
            args += [np.broadcast_to(v, (INSTANCES, 32)).copy() for v in unit_scales(form).values()]
        module(info["module"]).get_function(kernel)((INSTANCES,), (32,), tuple(args))
        return d

    def spy(*args):
        calls.append(real(*args))
        return calls[-1]

    monkeypatch.setattr(Warp, "mma_sp_in_place", spy)
    fast = run()
    monkeypatch.setattr(Warp, "mma_sp_in_place", lambda *args: False)
    assert calls and all(calls) != form.block_scaled  # block-scaled forms go the general way
    assert np.array_equal(fast, run())
