"""The nvcc sm_100a tcgen05 kernels of tests/ptx/tcgen05 run through RawModule, checked against numpy."""
from pathlib import Path

import numpy as np
import pytest

import warpsim
from isa import formats
from isa.errors import WarpsimError
from isa.tcgen05 import smem_desc as sd

DIR = Path(__file__).parent / "ptx" / "tcgen05"
rng = np.random.default_rng(2026)


def kernel(name):
    mod = warpsim.RawModule(path=str(DIR / f"{name}.ptx"))
    entry = next(f.name for f in mod.module.functions if f.kind == "entry")
    return mod.get_function(entry)


def k_major(raw, bits):
    """(rows, K) raw elements -> shared-memory bytes: K-major, no swizzle, LBO = 16*rows, SBO = 128."""
    rows, k = raw.shape
    buf = np.zeros(rows * k * bits // 8, np.uint8)
    sd.write_tile(buf, sd.SmemDescriptor(0, 16 * rows, 128), "K", raw, bits)
    return buf


def f16(shape, lo=-4, hi=5):
    v = rng.integers(lo, hi, shape) / 4.0
    return v, formats.encode_exact("f16", v).astype(np.uint64)


def test_alloc_st_ld_round_trip():
    src = rng.integers(0, 1 << 32, (128, 16), dtype=np.uint64).astype(np.uint32)
    out = np.zeros(128 * 16 + 128 * 4, np.uint32)
    kernel("alloc_ld_st")((1,), (128,), (src, out))
    assert (out[:2048].reshape(128, 16) == src).all()
    packed = out[2048:].reshape(128, 4)
    for tid in range(128):  # 16x256b.x1.pack::16b: r0 = lane t/4, columns 4(t%4)+0,1; r1 +2,3; r2/r3 lane +8
        w, t = divmod(tid, 32)
        for i in range(4):
            lane = 32 * w + t // 4 + 8 * (i // 2)
            c = 4 * (t % 4) + 2 * (i % 2)
            assert packed[tid, i] == (src[lane, c] & 0xFFFF) | (src[lane, c + 1] & 0xFFFF) << 16, (tid, i)


def test_mma_f16_dense():
    a, araw = f16((128, 16))
    b, braw = f16((64, 16))
    out = np.zeros((128, 64), np.float32)
    kernel("mma_f16")((1,), (128,), (k_major(araw, 16), k_major(braw, 16), out))
    assert (out == a @ b.T).all()


def test_mma_ts_f16():
    a, araw = f16((128, 16))
    b, braw = f16((32, 16))
    words = (araw[:, 0::2] | araw[:, 1::2] << 16).astype(np.uint32)
    out = np.zeros((128, 32), np.float32)
    kernel("mma_ts_f16")((1,), (128,), (words, k_major(braw, 16), out))
    assert (out == a @ b.T).all()


def _sparse(rows, k, values):
    codes = rng.choice([0x4, 0x8, 0xC, 0x9, 0xD, 0xE], size=(rows, k // 4))
    dense = np.zeros((rows, k))
    for r in range(rows):
        for c in range(k // 4):
            dense[r, 4 * c + (codes[r, c] & 3)] = values[r, 2 * c]
            dense[r, 4 * c + (codes[r, c] >> 2)] = values[r, 2 * c + 1]
    bits = ((codes[:, :, None] >> np.arange(4)) & 1).reshape(rows, k)  # one bit per dense element
    return codes, dense, bits


@pytest.mark.parametrize("sel", [0, 1])
def test_mma_sp_f16_with_cp_metadata(sel):
    a, araw = f16((128, 16))
    b, braw = f16((64, 32))
    _, dense, bits = _sparse(128, 32, a)
    atom = np.zeros(128 * 128, np.uint8)  # reference 3.4 CUTLASS TensorEAtom (16-bit A), K step ``sel``
    r, k = np.meshgrid(np.arange(128), np.arange(32), indexing="ij")
    kk = k + 32 * sel
    off = 128 * (r % 8) + 16 * ((r // 8) % 2) + 2048 * (r // 16) + kk % 16 + 1024 * ((kk // 16) % 2) + 32 * (kk // 32)
    atom[off.ravel()] = bits.ravel()
    meta = np.packbits(atom, bitorder="little")
    out = np.zeros((128, 64), np.float32)
    kernel("mma_sp_f16")((1,), (128,), (k_major(araw, 16), k_major(braw, 16), meta, out, np.uint32(sel)))
    assert (out == dense @ b.T).all()


def test_mma_sp_i8_accumulates():
    a = rng.integers(-128, 128, (128, 32))
    b = rng.integers(-128, 128, (64, 64))
    _, dense, bits = _sparse(128, 64, a)
    atom = np.zeros((128, 128), np.uint8)
    atom[:, :64] = bits  # (128, 128) : (128, 1) bits: lane = row, columns 0, 1
    meta = np.packbits(atom.ravel(), bitorder="little")
    out = np.zeros((128, 64), np.int32)
    kernel("mma_sp_i8")((1,), (128,), (k_major(a.astype(np.uint64) & 0xFF, 8), k_major(b.astype(np.uint64) & 0xFF, 8),
                                       meta, out))
    assert (out == 2 * (dense.astype(np.int64) @ b.T)).all()


def test_mma_mxf8f6f4_block_scaled():
    pool = np.array([p for p in range(256) if np.isfinite(formats.decode("e4m3", p)) and abs(formats.decode("e4m3", p)) <= 4])
    araw, braw = rng.choice(pool, (128, 32)).astype(np.uint64), rng.choice(pool, (64, 32)).astype(np.uint64)
    sa, sb = rng.integers(124, 131, 128), rng.integers(124, 131, 64)  # ue8m0: 2^-3 .. 2^3
    sfa, sfb = np.zeros((32, 16), np.uint8), np.zeros((32, 16), np.uint8)
    for i in range(128):
        sfa[i % 32, 4 * (i // 32)] = sa[i]  # row l, column c, byte 0 (scale id 0): scale of row 32c + l
    for n in range(64):
        sfb[n % 32, 4 * (n // 32)] = sb[n]
    out = np.zeros((128, 64), np.float32)
    kernel("mma_mxf8f6f4")((1,), (128,), (k_major(araw, 8), k_major(braw, 8), sfa.ravel(), sfb.ravel(), out))
    A = formats.decode("e4m3", araw) * 2.0 ** (sa[:, None] - 127)
    B = formats.decode("e4m3", braw) * 2.0 ** (sb[:, None] - 127)
    ref = A @ B.T
    assert np.allclose(out, ref, rtol=2.0 ** -22, atol=0)


def test_cp_then_shift():
    data = rng.integers(0, 256, (128, 32), dtype=np.uint64)
    src = np.zeros(128 * 32, np.uint8)
    sd.write_tile(src, sd.SmemDescriptor(0, 2048, 128), "K", data, 8)
    out = np.zeros((128, 8), np.uint32)
    kernel("cp_shift")((1,), (128,), (src, out))
    words = data.astype(np.uint8).view("<u4").reshape(128, 8)
    assert (out[1:32] == words[0:31]).all() and (out[0] == words[0]).all() and (out[32:] == words[32:]).all()


def test_partial_warpgroup_and_quarter_violation():
    """64 threads: warps 0, 1 read D rows 0..63 and rows 64..127 stay unread. 192 threads: the
    epilogue load of warp 4 or 5 aims at lanes 32 * warp, outside its quarter: a located error."""
    a, araw = f16((128, 16))
    b, braw = f16((64, 16))
    out = np.zeros((128, 64), np.float32)
    kernel("mma_f16")((1,), (64,), (k_major(araw, 16), k_major(braw, 16), out))
    assert (out[:64] == (a @ b.T)[:64]).all() and (out[64:] == 0).all()
    with pytest.raises(WarpsimError, match=r"mma_f16.ptx:\d+:\d+ \(tcgen05.ld.sync.aligned.32x32b.x8.b32 .*\): "
                                           r"tcgen05.ld: warp ([45]) accesses TMEM lanes (128..159|160..191), but warp \1 \(warp_id % 4 = [01]\)"):
        kernel("mma_f16")((1,), (192,), (k_major(araw, 16), k_major(braw, 16), np.zeros((192, 64), np.float32)))


PTX_HEAD = ".version 8.7\n.target sm_100a\n.address_size 64\n"


def _run_ptx(body, block=32, regs=".reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;"):
    code = PTX_HEAD + (".visible .entry k(.param .u64 out)\n{\n" + regs + "\n.shared .align 8 .b64 bar;\n"
                       ".shared .align 4 .b32 base;\n" + body + "\nret;\n}\n")
    out = np.zeros(32, np.uint32)
    warpsim.RawModule(code=code).get_function("k")((1,), (block,), (out,))
    return out


def test_mbarrier_parity_and_commit():
    """tcgen05.commit arrives once; try_wait.parity 0 then sees phase 0 complete, parity 1 (the phase
    before phase 0 at init) reports complete already; a second commit completes phase 1."""
    out = _run_ptx("""
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, bar;
    mbarrier.init.shared::cta.b64 [%r1], 1;
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd1], %r2;
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 1;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd1+4], %r2;
    tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r1];
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd1+8], %r2;
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 1;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd1+12], %r2;""", block=1)
    assert out[:4].tolist() == [0, 1, 1, 0]


def test_kernel_misuse_is_located():
    with pytest.raises(WarpsimError, match=r"<code>:\d+:\d+ \(tcgen05.alloc.*\): tcgen05.alloc: nCols = 48 is illegal"):
        _run_ptx("mov.u32 %r1, base;\ntcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 48;")
    with pytest.raises(WarpsimError, match=r"\(tcgen05.mma.*\): idesc field 'a_type' \(bits 9:7\) = 3 is illegal for .kind::f16"):
        _run_ptx("""
        mov.u32 %r1, base;
        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
        ld.shared.u32 %r2, [base];
        mov.b64 %rd2, 0;
        mov.b32 %r3, 0x08100190;
        setp.ne.b32 %p1, 0, 0;
        tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd2, %rd2, %r3, %p1;""")
    with pytest.raises(WarpsimError, match=r"tcgen05.alloc.sync.aligned executed by part of the warp"):
        _run_ptx("""
        mov.u32 %r1, %laneid;
        setp.lt.u32 %p1, %r1, 16;
        mov.u32 %r1, base;
        @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;""")
    with pytest.raises(WarpsimError, match=r"mbarrier arrive on an object that is not initialized"):
        _run_ptx("mov.u32 %r1, bar;\ntcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r1];", block=1)
    with pytest.raises(WarpsimError, match=r"^<code>:\d+:\d+ \(tcgen05.alloc.cta_group::2[^)]*\): undefined behaviour: "
                                           r"tcgen05.alloc.cta_group::2 needs the CTA pair of a cluster.*no clusters"):
        _run_ptx("mov.u32 %r1, base;\ntcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r1], 32;")
