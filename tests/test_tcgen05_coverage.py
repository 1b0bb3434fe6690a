"""tcgen05.mma coverage through nvcc sm_100a kernels: every kind x M x N x swizzle x dense/sparse.

The kernels (tests/ptx/tcgen05_gen, one per opcode form) are generic; each case is data computed from
isa.tcgen05 by tests/tcgen05_cases.py. One launch per form runs all its cases (one CTA, or one cluster of
two CTAs for cta_group::2, per case) and every D is compared with numpy: exactly for i8, within the bound
stated in tcgen05_cases for the float kinds.
"""
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import warpsim
import tcgen05_cases as T

sys.path.insert(0, str(T.PTX_DIR))
import gen  # noqa: E402

FORMS = list(gen.forms())
MATRIX = T.matrix()


def _run(kind, sparse, cg, cases, timing=False):
    for c in cases:
        T.build(c, 7919 * (T.KINDS.index(kind) + 1) + 97 * c.index + 13 * sparse + cg)
    plan, img, tinit, out, smem = T.launch_arrays(cases)
    mod = warpsim.RawModule(path=str(T.PTX_DIR / f"{kind}.ptx"), timing=timing)
    k = mod.get_function(gen.kernel_name(kind, sparse, cg))
    stats = k((sum(c.cg for c in cases),), (128,), (plan, img, tinit, out), shared_mem=smem)
    return [T.check(c, T.result(c, out)) for c in cases], stats, mod


@pytest.mark.parametrize("form", FORMS, ids=lambda f: gen.kernel_name(*f))
def test_every_case_of_the_form_matches_numpy(form):
    cases = MATRIX[form]
    bad, stats, _ = _run(*form, cases)
    assert stats.ctas == sum(c.cg for c in cases)
    assert [b for b in bad if b] == []


def test_the_matrix():
    """Every kind x legal M x 3 N x 5 swizzles x dense/sparse, with the variations spread over the cases."""
    cases = [c for v in MATRIX.values() for c in v]
    assert len(cases) == 660
    for kind in T.KINDS:
        mine = [c for c in cases if c.kind == kind]
        ms = {c.m for c in mine}
        assert ms == ({128, 256} if kind in T.BLOCK_SCALED else {64, 128, 256})
        for sp in (False, True):
            for sw in T.SWIZZLES:
                sub = [c for c in mine if c.sparse == sp and c.swizzle == sw]
                assert {c.m for c in sub} == ms and len({c.n for c in sub}) >= 3
    assert {c.a_major for c in cases} == {"K", "MN"} and {c.b_major for c in cases} == {"K", "MN"}
    assert {c.meta_via for c in cases if c.sparse} == {"cp", "st"}
    assert {c.d_lane for c in cases} == {0, 16} and any(c.d_init for c in cases) and any(c.saturate for c in cases)
    assert {c.ksteps for c in cases} == {1, 2, 4}
    assert {(c.a_type, c.b_type) for c in cases if c.kind == "f8f6f4"} >= {(a, a) for a in T.F8F6F4[:1]}
    assert len({t for c in cases if c.kind == "f8f6f4" for t in (c.a_type, c.b_type)}) == 5
    assert {c.scale_type for c in cases if c.kind == "mxf4nvf4"} == {"ue4m3", "ue8m0"}


def test_timed_engine_runs_pairs_and_single_ctas():
    """The timed engine (B200 tcgen05 figures) runs the same kernels: a cluster form and a single-CTA form;
    the MMA completes after its latency, so the whole launch takes longer than that."""
    for form in (("f16", True, 2), ("i8", False, 1)):
        cases = MATRIX[form][:3]
        bad, stats, mod = _run(*form, cases, timing=True)
        assert [b for b in bad if b] == []
        assert mod.last_timeline.cycles > 150


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (CUDA 12.8+) is not on PATH")
@pytest.mark.parametrize("kind", T.KINDS)
def test_ptxas_accepts_for_sm_100a(kind, tmp_path):
    r = subprocess.run(["ptxas", "-arch=sm_100a", str(T.PTX_DIR / f"{kind}.ptx"), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("//"))


@pytest.mark.parametrize("kind", T.KINDS)
def test_stored_cu_is_what_the_generator_writes(kind):
    assert (T.PTX_DIR / f"{kind}.cu").read_text() == gen.module_source(kind)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA 12.8+) is not on PATH")
@pytest.mark.parametrize("kind", T.KINDS)
def test_stored_ptx_is_what_nvcc_emits(kind, tmp_path):
    r = subprocess.run(gen.NVCC + [f"{kind}.cu", "-o", str(tmp_path / "k.ptx")], cwd=T.PTX_DIR,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _body((tmp_path / "k.ptx").read_text()) == _body((T.PTX_DIR / f"{kind}.ptx").read_text())


def test_a_wrong_layout_is_caught():
    """The comparison can fail: the A descriptors of every case name another swizzle than the image has."""
    from isa.tcgen05 import smem_desc as sd
    form = ("f16", False, 1)
    cases = MATRIX[form][:5]
    for c in cases:
        T.build(c, 5)
        for x in c.data["ctas"]:
            for j in range(c.ksteps):
                i = T.P_STEP + T.S_WORDS * j
                d = sd.decode(int(x["plan"][i + 1]) | int(x["plan"][i + 2]) << 32)
                other = {"none": "128B", "32B": "none", "64B": "none", "128B": "64B", "128B_base32B": "128B"}[d.swizzle]
                e = sd.encode(sd.SmemDescriptor(d.start_address, d.lbo, d.sbo, other))
                x["plan"][i + 1], x["plan"][i + 2] = e & 0xFFFFFFFF, e >> 32
    plan, img, tinit, out, smem = T.launch_arrays(cases)
    k = warpsim.RawModule(path=str(T.PTX_DIR / "f16.ptx"), timing=False).get_function(gen.kernel_name(*form))
    k((len(cases),), (128,), (plan, img, tinit, out), shared_mem=smem)
    assert all(T.check(c, T.result(c, out)) for c in cases)


def test_summary_names_every_kind():
    text = T.summary(MATRIX)
    assert all(text.count(f"{k}: ") >= 1 for k in T.KINDS) and "sparse: 60" in text


def test_results_are_not_trivial():
    """D is a real product: most elements non-zero and far from the initial D."""
    form = ("tf32", True, 1)
    cases = MATRIX[form][:4]
    bad, _, _ = _run(*form, cases)
    assert not any(bad)
    for c in cases:
        assert np.count_nonzero(c.data["dref"]) > 0.9 * c.m * c.n
