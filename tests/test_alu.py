"""Ordinary instructions against an H100, bit for bit, and against numpy references.

``ptx/machine/oracle/oracle.npz`` holds what an H100 computed for 220 single-instruction
kernels (gen_oracle.py builds them; the same PTX runs here through RawModule).
"""
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import warpsim
from isa.errors import UndefinedBehavior

ORACLE = Path(__file__).parent / "ptx" / "machine" / "oracle"
sys.path.insert(0, str(ORACLE))
import gen_oracle  # noqa: E402

DATA = np.load(ORACLE / "oracle.npz")
APPROX = {"div.full.f32 D, A, B", "div.approx.f32 D, A, B", "rcp.rn.f32 D, A", "sqrt.rn.f32 D, A"}
NOT_MODELLED = {"rcp.rn.f32 D, A", "sqrt.rn.f32 D, A"}


def run_form(instr, dtype, stypes, policy="hardware"):
    mod = warpsim.RawModule(code=gen_oracle.kernel_ptx(instr, dtype, stypes), ub_policy=policy)
    ins = [DATA[f"in:{t}:{pos}"].copy() for pos, t in enumerate(stypes)]
    ins += [np.zeros(1, np.uint8)] * (4 - len(ins))
    d = np.zeros(gen_oracle.N, {2: np.uint16, 4: np.uint32, 8: np.uint64}[gen_oracle.nbytes(dtype)])
    mod.get_function("k")((gen_oracle.N // 128,), (128,), [d] + ins)
    return d


@pytest.mark.parametrize("instr,dtype,stypes", [op for op in gen_oracle.OPS if op[0] not in NOT_MODELLED],
                         ids=lambda x: x if isinstance(x, str) and " " in x else "")
def test_matches_h100(instr, dtype, stypes):
    got, ref = run_form(instr, dtype, stypes), DATA[instr]
    if instr in APPROX:  # modelled as the rounded quotient: within PTX's 2 ulp of the H100, same NaNs
        assert np.array_equal(np.isnan(got.view(np.float32)), np.isnan(ref.view(np.float32)))
        fin = ~np.isnan(ref.view(np.float32))
        ulps = np.abs(got[fin].view(np.int32).astype(np.int64) - ref[fin].view(np.int32).astype(np.int64))
        assert (ulps[np.abs(ref[fin].view(np.float32)) < 1e30] <= 2).all()
        return
    bad = np.flatnonzero(got != ref)
    assert len(bad) == 0, f"{len(bad)} lanes differ, first {[(int(i), hex(ref[i]), hex(got[i])) for i in bad[:3]]}"


def test_div_by_zero_is_undefined_by_default():
    with pytest.raises(UndefinedBehavior) as e:
        run_form("div.u32 D, A, B", "b32", ("b32", "b32"), policy="error")
    msg = str(e.value)
    assert "integer div by zero" in msg and "div.u32" in msg and "lane" in msg and "<code>:" in msg


def _kernel(body, regs=".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;"):
    return (".version 8.5\n.target sm_90a\n.address_size 64\n"
            ".visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n" + regs + "\n"
            "ld.param.u64 %rd1, [pout]; ld.param.u64 %rd2, [pin];\n"
            "mov.u32 %r0, %tid.x; mul.wide.u32 %rd3, %r0, 4; add.u64 %rd4, %rd1, %rd3; add.u64 %rd5, %rd2, %rd3;\n"
            "ld.global.u32 %r1, [%rd5];\n" + body + "\nst.global.u32 [%rd4], %r2;\nret;\n}\n")


def _run32(body, x):
    out = np.zeros(32, np.uint32)
    warpsim.RawModule(code=_kernel(body)).get_function("k")(1, 32, (out, np.asarray(x, np.uint32)))
    return out


U32 = st.lists(st.integers(0, 2**32 - 1), min_size=32, max_size=32)


@settings(max_examples=30, deadline=None)
@given(U32, st.integers(0, 40))
def test_shifts_clamp_at_width(xs, s):
    x = np.array(xs, np.uint32)
    assert np.array_equal(_run32(f"shl.b32 %r2, %r1, {s};", x), (x.astype(np.uint64) << s).astype(np.uint32)
                          if s < 32 else np.zeros(32, np.uint32))
    sar = (x.view(np.int32).astype(np.int64) >> min(s, 31)).astype(np.int32).view(np.uint32)
    assert np.array_equal(_run32(f"shr.s32 %r2, %r1, {s};", x), sar)


@settings(max_examples=30, deadline=None)
@given(U32, st.integers(-2**31, 2**31 - 1))
def test_mul_hi_and_wrap(xs, k):
    x = np.array(xs, np.uint32)
    hi = ((x.view(np.int32).astype(np.int64) * k) >> 32).astype(np.int32).view(np.uint32)
    assert np.array_equal(_run32(f"mul.hi.s32 %r2, %r1, {k};", x), hi)
    lo = (x.astype(np.uint64) * (k & 0xFFFFFFFF)).astype(np.uint32)
    assert np.array_equal(_run32(f"mul.lo.s32 %r2, %r1, {k};", x), lo)
    assert np.array_equal(_run32(f"add.s32 %r2, %r1, {k};", x), (x.astype(np.int64) + k).astype(np.uint32))


def test_setp_combine_and_selp():
    x = np.arange(32, dtype=np.uint32)
    body = ("setp.lt.u32 %p1, %r1, 20; setp.gt.and.u32 %p2|%p3, %r1, 5, %p1;"
            "selp.u32 %r2, 1, 0, %p2; selp.u32 %r3, 2, 0, %p3; or.b32 %r2, %r2, %r3;")
    got = _run32(body, x)
    p1 = x < 20
    assert np.array_equal(got, ((x > 5) & p1) * 1 + ((x <= 5) & p1) * 2)


def test_mov_pack_unpack():
    x = np.arange(32, dtype=np.uint32) * 0x10001 + 0x00020001
    body = ".reg .b16 %h<3>; mov.b32 {%h1, %h2}, %r1; mov.b32 %r2, {%h2, %h1};"
    got = _run32(body, x)
    assert np.array_equal(got, (x >> 16) | ((x & 0xFFFF) << 16))
