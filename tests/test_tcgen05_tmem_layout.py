"""Data-path layouts and sparse-metadata placement in TMEM."""
import numpy as np
import pytest

from isa.tcgen05 import tmem_layout as tl

LAYOUTS = [(64, 1, False, False, 0, "F"), (64, 1, True, False, 16, "F"), (128, 1, False, False, 0, "D"),
           (128, 1, True, False, 0, "D"), (128, 2, False, False, 0, "B"), (128, 2, True, False, 16, "C"),
           (256, 2, True, False, 0, "A"), (32, 1, False, True, 0, "G"), (64, 1, True, True, 0, "E"),
           (128, 1, False, True, 0, "D")]


@pytest.mark.parametrize("m,cg,sparse,ws,align,name", LAYOUTS)
@pytest.mark.parametrize("n", [64, 256])
def test_datapath_is_injective_per_cta(m, cg, sparse, ws, align, name, n):
    assert tl.layout_name(m, cg, sparse, ws) == name
    cta, lane, col = tl.datapath(m, n, cg, sparse, ws, align)
    assert cta.shape == (m, n) and set(np.unique(cta)) == set(range(cg))
    cells = set(zip(cta.ravel().tolist(), lane.ravel().tolist(), col.ravel().tolist()))
    assert len(cells) == m * n
    assert lane.min() >= 0 and lane.max() < 128 and col.min() == 0
    # every CTA's cells fit in 128 lanes x (N or fewer) columns
    assert col.max() < n and (lane.max() - lane.min() + 1) * (col.max() + 1) >= m * n // cg


def test_datapath_hand_computed_cells():
    cta, lane, col = tl.datapath(64, 32, 1, False, lane_align=16)  # Layout F: rows 16g.. in lanes 32g+16..
    assert (lane[17, 3], col[17, 3]) == (32 + 16 + 1, 3) and lane[0, 0] == 16 and lane[63, 0] == 96 + 16 + 15
    cta, lane, col = tl.datapath(128, 64, 2, False)  # Layout B: 64 rows per CTA, N split over lane halves
    assert (cta[70, 40], lane[70, 40], col[70, 40]) == (1, 6 + 64, 8)
    assert (cta[5, 31], lane[5, 31], col[5, 31]) == (0, 5, 31)
    cta, lane, col = tl.datapath(256, 16, 2, True)  # Layout A
    assert (cta[200, 9], lane[200, 9], col[200, 9]) == (1, 72, 9)
    with pytest.raises(ValueError, match="no data-path layout for M = 256, cta_group::1"):
        tl.layout_name(256, 1, False)


def _cute(shape, stride, idx):
    """Evaluate a CuTe layout (nested (a, b, c) shapes, column-major) at a natural index."""
    off = 0
    for s, d in zip(shape, stride):
        off += (idx % s) * d
        idx //= s
    return off


@pytest.mark.parametrize("kind,unit,mshape,mstride,kshape,kstride,k_atom", [
    # reference 3.4: CUTLASS Sm1xxGemmSparseConfig TensorEAtom (bit offsets; tf32 in 2-bit units)
    ("f16", 1, (8, 2, 8), (128, 16, 2048), (16, 2, 4), (1, 1024, 32), 128),
    ("tf32", 2, (8, 2, 8), (64, 8, 1024), (8, 2, 4), (1, 512, 16), 64),
    ("i8", 1, (128,), (128,), (128,), (1,), 128),
    ("f8f6f4", 1, (128,), (128,), (128,), (1,), 128),
])
def test_metadata_layout_matches_the_cutlass_staging_atom(kind, unit, mshape, mstride, kshape, kstride, k_atom):
    """One 128 x 128-bit atom moved by tcgen05.cp.128x128b puts bit b of lane-major byte 16*lane + 4*col
    at (lane, col, b % 32). The formulas must agree with it for every instruction (K step) of the atom."""
    k_instr = {"f16": 32, "tf32": 16, "i8": 64, "f8f6f4": 64}[kind]
    chunk = tl.CHUNK[kind]
    for step in range(k_atom // k_instr):
        lane, col, bit = tl.metadata_nibbles(kind, 128, k_instr)
        for r in (0, 5, 9, 17, 63, 127):
            for c in range(k_instr // chunk):
                k = step * k_instr + c * chunk  # first dense K of the chunk inside the atom
                b = unit * (_cute(mshape, mstride, r) + _cute(kshape, kstride, k))
                inst_cols = tl.metadata_columns(kind)
                assert (lane[r, c], step * inst_cols + col[r, c], bit[r, c]) == (b // 128, (b % 128) // 32, b % 32), (r, c, step)


def test_metadata_4bit_kinds_and_m64_assumption():
    lane, col, bit = tl.metadata_nibbles("mxf4", 128, 128)
    assert (lane[9, 0], col[9, 0], bit[9, 0]) == (9, 0, 0) and (lane[9, 9], col[9, 9], bit[9, 9]) == (9, 1, 4)
    lane, col, bit = tl.metadata_nibbles("f16", 64, 32, lane_align=16)
    assert lane.min() == 16 and set(np.unique(lane // 32)) == {0, 1, 2, 3} and (lane % 32 >= 16).all()
    assert (lane[17, 5], bit[17, 5]) == (32 + 16 + 1 + 8, 4) and tl.METADATA_M64_GROUP_LANE_STRIDE == 32
    cells = set(zip(lane.ravel().tolist(), col.ravel().tolist(), bit.ravel().tolist()))
    assert len(cells) == lane.size  # no two nibbles share bits


def test_scale_factor_cells_follow_the_quarter_of_the_reader():
    lane, col = tl.scale_factor_cell(np.array([0, 33, 127]), np.array([0, 33, 127]))
    assert lane.tolist() == [0, 33, 127] and col.tolist() == [0, 1, 3]
    lane, col = tl.scale_factor_cell(np.array([200]), np.array([70]))  # B column 200 read by lane 70
    assert (lane[0], col[0]) == (64 + 8, 6)
