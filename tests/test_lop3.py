"""lop3 (PTX ISA 9.7.7.6) against the H200, bit for bit: 16 lookup tables of the plain form and 4 each of the .or
and .and forms with a predicate (traces/h200/lop3.json, traces/capture/lop3_check.py, kernels/lop3.ptx)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import warpsim

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "traces" / "capture"))
import lop3_check  # noqa: E402

DOC = json.loads((ROOT / "traces" / "h200" / "lop3.json").read_text())
MODULE = warpsim.RawModule(path=str(lop3_check.PTX), timing=False)


def test_the_file_is_every_kernel():
    assert "NVIDIA H200" in DOC["how"]
    assert [r["kernel"] for r in DOC["rows"]] == [k[0] for k in lop3_check.KERNELS]


@pytest.mark.parametrize("row", DOC["rows"], ids=lambda r: r["kernel"])
def test_lop3_matches_the_h200(row):
    out = np.zeros(2 * lop3_check.THREADS, np.uint32)
    MODULE.get_function(row["kernel"])((1,), (lop3_check.THREADS,), (out, lop3_check.inputs()))
    assert out.tolist() == row["out"]


def test_the_table_is_f_of_0xf0_0xcc_0xaa():
    """The PTX rule for immLut: F applied to a = 0xF0, b = 0xCC, c = 0xAA; the H200's results say the same."""
    a, b, c = lop3_check.inputs().reshape(3, -1)
    got = {r["lut"]: np.array(r["out"][0::2], np.uint32) for r in DOC["rows"] if r["op"] is None}
    assert (got[0xF0] == a).all() and (got[0xCC] == b).all() and (got[0xAA] == c).all()
    assert (got[0x96] == a ^ b ^ c).all() and (got[0xE8] == (a & b) | (a & c) | (b & c)).all()


def test_a_lookup_table_must_be_a_constant():
    ptx = lop3_check.PTX.read_text().replace("lop3.b32 %r5, %r1, %r2, %r3, 0x00;", "lop3.b32 %r5, %r1, %r2, %r3, %r4;")
    with pytest.raises(Exception, match="immLut, an integer constant 0..255"):
        warpsim.RawModule(code=ptx, timing=False).get_function("lop3_00")(
            (1,), (32,), (np.zeros(64, np.uint32), lop3_check.inputs()))
