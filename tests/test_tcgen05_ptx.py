"""nvcc-generated sm_100a kernels with inline-asm tcgen05 (tests/ptx/tcgen05): ptxas accepts each, the
stored .ptx is what the .cu compiles to, and the instruction descriptors inside decode as intended."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from isa.tcgen05.idesc import decode

DIR = Path(__file__).parent / "ptx" / "tcgen05"
PTX = sorted(DIR.glob("*.ptx"))
NVCC_FLAGS = ["-ptx", "-gencode=arch=compute_100a,code=sm_100a"]


def test_every_kernel_has_its_ptx():
    assert {p.stem for p in DIR.glob("*.cu")} == {p.stem for p in PTX} and len(PTX) >= 7


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (CUDA 12.8+) is not on PATH")
@pytest.mark.parametrize("ptx", PTX, ids=lambda p: p.stem)
def test_ptxas_accepts_for_sm_100a(ptx, tmp_path):
    r = subprocess.run(["ptxas", "-arch=sm_100a", str(ptx), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("//"))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA 12.8+) is not on PATH")
@pytest.mark.parametrize("ptx", PTX, ids=lambda p: p.stem)
def test_stored_ptx_matches_the_cu(ptx, tmp_path):
    out = tmp_path / "k.ptx"
    r = subprocess.run(["nvcc", *NVCC_FLAGS, str(ptx.with_suffix(".cu")), "-o", str(out)],
                       capture_output=True, text=True, cwd=DIR)
    assert r.returncode == 0, r.stderr
    assert _body(out.read_text()) == _body(ptx.read_text())


# kernel -> (opcode prefix, kind, expected decoded fields)
EXPECT = {
    "mma_f16": ("tcgen05.mma.cta_group::1.kind::f16 ", "f16", dict(m=128, n=64, a_type="f16", d_type="f32", sparse=False)),
    "mma_ts_f16": ("tcgen05.mma.cta_group::1.kind::f16 ", "f16", dict(m=128, n=32, a_type="f16", d_type="f32")),
    "mma_sp_f16": ("tcgen05.mma.sp.cta_group::1.kind::f16 ", "f16", dict(m=128, n=64, sparse=True, d_type="f32")),
    "mma_sp_i8": ("tcgen05.mma.sp.cta_group::1.kind::i8 ", "i8", dict(m=128, n=64, sparse=True, a_type="s8", d_type="s32")),
    "mma_mxf8f6f4": ("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X ", "mxf8f6f4",
                     dict(m=128, n=64, a_type="e4m3", scale_type="ue8m0")),
}


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_idesc_immediates_decode(name):
    text = (DIR / f"{name}.ptx").read_text()
    prefix, kind, fields = EXPECT[name]
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith(prefix)]
    assert lines
    for line in lines:
        ops = [o.strip() for o in line[len(prefix):].rstrip(";").split(",")]
        reg = ops[4 if ".sp." in prefix else 3]
        m = re.search(rf"(?:mov\.b32\s+{re.escape(reg)},\s*(\d+)|or\.b32\s+{re.escape(reg)},\s*%r\d+,\s*(\d+));", text)
        assert m, f"no constant definition of {reg}"
        word = int(m.group(1) or m.group(2))
        d = decode(word, kind, sparse=".sp." in prefix)
        for k, v in fields.items():
            assert getattr(d, k) == v, (name, k)
