#!/usr/bin/env python3
"""lop3 on the GPU, bit by bit (kernels/lop3.ptx: one kernel a lookup table, of the plain form and of the .or / .and
forms with a predicate), for tests/test_lop3.py to hold warpsim to. Each kernel: 256 threads, lane i reads a[i],
b[i], c[i] (random words, seed 3, and for the predicate forms q = bit 0 of c), stores d and the predicate.

    python traces/capture/lop3_check.py --build        # here: kernels/lop3.ptx
    python traces/capture/lop3_check.py --device OUT   # on the GPU: OUT/lop3.json
    python traces/capture/lop3_check.py --json OUT     # here: traces/<gpu>/lop3.json from OUT
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spgemm_clock import main_cli, write_device_doc, write_summary  # noqa: E402

PTX = HERE / "kernels" / "lop3.ptx"
LUTS = (0x00, 0xFF, 0xF0, 0xCC, 0xAA, 0x96, 0xE8, 0x3C, 0x5A, 0x80, 0xFE, 0x1B, 0xC5, 0x6E, 0x01, 0x7F)
KERNELS = [(f"lop3_{lut:02x}", lut, None) for lut in LUTS] + \
          [(f"lop3_{op}_{lut:02x}", lut, op) for op in ("or", "and") for lut in (0x00, 0x80, 0x96, 0xFE)]
THREADS = 256


def inputs() -> np.ndarray:
    """a, b and c: 256 random words each, one after another."""
    return np.random.default_rng(3).integers(0, 2**32, size=3 * THREADS, dtype=np.uint64).astype(np.uint32)


def _kernel(name: str, lut: int, op: str | None) -> str:
    ins = (f"lop3.{op}.b32 %r5|%p2, %r1, %r2, %r3, 0x{lut:02x}, %p1;" if op else
           f"lop3.b32 %r5, %r1, %r2, %r3, 0x{lut:02x};")
    return f""".visible .entry {name}(.param .u64 pout, .param .u64 pin)
{{
  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [pout]; ld.param.u64 %rd2, [pin];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd3, %r0, 4;
  add.u64 %rd4, %rd2, %rd3;
  ld.global.u32 %r1, [%rd4];
  ld.global.u32 %r2, [%rd4+{4 * THREADS}];
  ld.global.u32 %r3, [%rd4+{8 * THREADS}];
  and.b32 %r4, %r3, 1;
  setp.ne.u32 %p1, %r4, 0;
  setp.eq.u32 %p2, %r0, %r0;
  {ins}
  selp.u32 %r6, 1, 0, %p2;
  mul.wide.u32 %rd5, %r0, 8;
  add.u64 %rd6, %rd1, %rd5;
  st.global.v2.u32 [%rd6], {{%r5, %r6}};
  ret;
}}
"""


def build() -> int:
    head = ("// lop3 with each lookup table of traces/capture/lop3_check.py (written by it: --build)\n"
            ".version 8.5\n.target sm_90a\n.address_size 64\n")
    PTX.write_text(head + "".join("\n" + _kernel(*k) for k in KERNELS))
    print(f"wrote {PTX}")
    return 0


def device(out: Path) -> int:
    import cupy as cp
    mod = cp.RawModule(path=str(PTX))
    d_in = cp.asarray(inputs())
    rows = []
    for name, lut, op in KERNELS:
        d = cp.zeros(2 * THREADS, cp.uint32)
        mod.get_function(name)((1,), (THREADS,), (d, d_in))
        cp.cuda.Device().synchronize()
        rows.append({"kernel": name, "lut": lut, "op": op, "out": d.get().tolist()})
    return write_device_doc(cp, out, "lop3", rows=rows)


def summarise(out: Path) -> int:
    return write_summary(out, "lop3", f"kernels/lop3.ptx loaded with cupy.RawModule(path=...), {THREADS} threads a "
                         "kernel over inputs() of traces/capture/lop3_check.py", ("rows",))


if __name__ == "__main__":
    raise SystemExit(main_cli(__doc__, build, device, summarise))
