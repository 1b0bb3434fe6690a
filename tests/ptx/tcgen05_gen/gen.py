#!/usr/bin/env python3
"""tcgen05.mma coverage kernels: one CUDA C++ kernel per opcode form, generic over everything else.

    python tests/ptx/tcgen05_gen/gen.py      # writes <kind>.cu and <kind>.ptx here (nvcc 13, sm_100a)

A *form* is what the opcode itself fixes: the kind, ``.sp``, ``cta_group`` and (block-scaled kinds) the
``.scale_vec``. Everything else a case varies (M, N, element types, majorness, swizzle, K steps, lane
alignment, how metadata and the initial D reach TMEM) is data: a plan row per CTA that the kernel reads,
computed in Python from ``isa.tcgen05`` by ``tests/tcgen05_cases.py``. Each kernel:

1. copies its CTA's shared-memory image (the swizzled A and B tiles, metadata and scale-factor staging tiles,
   all laid out by the host) from global memory, ``fence.proxy.async``;
2. warp 0 allocates 512 TMEM columns (``cta_group::2``: one warp in each CTA of the pair); thread 32 inits
   the mbarrier; tcgen05 fences around a CTA (``::2``: cluster) barrier;
3. all warps write TMEM columns ``0 .. TINIT_COLS-1`` with ``tcgen05.st`` (initial D and/or metadata),
   ``wait::st``, fences around a barrier;
4. one thread (``::2``: of the even CTA) copies metadata (``tcgen05.cp.128x128b``) and scale factors
   (``tcgen05.cp.32x128b.warpx4``) to TMEM, issues KSTEPS ``tcgen05.mma`` with per-step descriptors and
   idesc, then ``tcgen05.commit`` (``::2``: multicast to both CTAs' mbarriers);
5. every warp waits on the mbarrier, ``fence::after_thread_sync``, dumps its TMEM lane quarter
   (``tcgen05.ld.32x32b.x32``, ``wait::ld``) to global memory; fences around a barrier; warp 0 deallocates.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NVCC = ["nvcc", "-ptx", "-gencode=arch=compute_100a,code=sm_100a"]

KINDS = ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")
BLOCK_SCALED = ("mxf8f6f4", "mxf4", "mxf4nvf4")
SCALE_VEC = {"mxf8f6f4": "1X", "mxf4": "2X", "mxf4nvf4": "4X"}


def forms():
    """(kind, sparse, cta_group) of every kernel."""
    for kind in KINDS:
        for sparse in (False, True):
            for cg in (1, 2):
                yield kind, sparse, cg


def kernel_name(kind: str, sparse: bool, cg: int) -> str:
    return f"mma{'_sp' if sparse else ''}_{kind}_cg{cg}"


def opcode(kind: str, sparse: bool, cg: int) -> str:
    op = f"tcgen05.mma{'.sp' if sparse else ''}.cta_group::{cg}.kind::{kind}"
    if kind in BLOCK_SCALED:
        op += f".block_scale.scale_vec::{SCALE_VEC[kind]}"
    return op


def _mma_asm(kind: str, sparse: bool, cg: int) -> str:
    """The inline-asm statement issuing one MMA from the plan's step ``s`` (C++ variables in scope)."""
    ops, ins = ["[%0]", "%1", "%2"], ['"r"(d_tmem)', '"l"(ad)', '"l"(bd)']
    if sparse:
        ops.append(f"[%{len(ins)}]")
        ins.append('"r"(tm + s[S_META])')
    ops.append(f"%{len(ins)}")
    ins.append('"r"(s[S_IDESC])')
    if kind in BLOCK_SCALED:
        ops += [f"[%{len(ins)}]", f"[%{len(ins) + 1}]"]
        ins += ['"r"(tm + s[S_SFA])', '"r"(tm + s[S_SFB])']
    en = len(ins)
    ins.append('"r"(s[S_ENABLE])')
    return (f'asm volatile("{{\\n .reg .pred p;\\n setp.ne.b32 p, %{en}, 0;\\n'
            f' {opcode(kind, sparse, cg)} {", ".join(ops)}, p;\\n}}" :: {", ".join(ins)} : "memory");')


def kernel(kind: str, sparse: bool, cg: int) -> str:
    name = kernel_name(kind, sparse, cg)
    sync = "cluster_sync()" if cg == 2 else "__syncthreads()"
    leader = "cluster_rank() == 0 && threadIdx.x == 0" if cg == 2 else "threadIdx.x == 0"
    commit = ("asm volatile(\"tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster"
              ".b64 [%0], %1;\" :: \"r\"(smem_u32(&bar)), \"h\"((uint16_t)3) : \"memory\");" if cg == 2 else
              "asm volatile(\"tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\" "
              ":: \"r\"(smem_u32(&bar)) : \"memory\");")
    return f"""
// {opcode(kind, sparse, cg)}
extern "C" __global__ void {"__cluster_dims__(2, 1, 1) " if cg == 2 else ""}{name}(
    const uint32_t* plan, const uint8_t* img, const uint32_t* tinit, uint32_t* out) {{
  extern __shared__ __align__(16) uint8_t dsmem[];
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t bar;
  const uint32_t* P = plan + blockIdx.x * PLAN_WORDS;
  // the image's swizzle phases assume a 1024-byte aligned base (the launch asks for 1 KiB of slack)
  uint8_t* buf = dsmem + ((1024 - (smem_u32(dsmem) & 1023)) & 1023);
  const uint32_t w = threadIdx.x / 32, base = smem_u32(buf);
  copy_to_smem(buf, img + 16ull * P[P_IMG_OFF], P[P_IMG_BYTES]);
  fence_proxy_async();
  if (w == 0) {{
    asm volatile("tcgen05.alloc.cta_group::{cg}.sync.aligned.shared::cta.b32 [%0], 512;" :: "r"(smem_u32(&tmem_base)));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::{cg}.sync.aligned;");
  }}
  if (threadIdx.x == 32) mbar_init(&bar, 1);
  fence_before();
  {sync};
  fence_after();
  const uint32_t tm = tmem_base;
  if (P[P_TINIT_COLS]) tmem_init(tm, tinit + P[P_TINIT_OFF], P[P_TINIT_COLS]);
  fence_before();
  {sync};
  fence_after();
  if ({leader}) {{
    for (uint32_t i = 0; i < P[P_META_CP]; ++i)
      asm volatile("tcgen05.cp.cta_group::{cg}.128x128b [%0], %1;"
                   :: "r"(tm + P[P_META_COL] + 4 * i), "l"(plain_desc(base + P[P_META_OFF] + 2048 * i)));
    for (uint32_t i = 0; i < P[P_SF_CP]; ++i)
      asm volatile("tcgen05.cp.cta_group::{cg}.32x128b.warpx4 [%0], %1;"
                   :: "r"(tm + P[P_SF_COL] + 4 * i), "l"(plain_desc(base + P[P_SF_OFF] + 512 * i)));
    const uint32_t d_tmem = tm + (P[P_D_LANE] << 16);
    for (uint32_t j = 0; j < P[P_KSTEPS]; ++j) {{
      const uint32_t* s = P + P_STEP + S_WORDS * j;
      const uint64_t ad = rebase(s[S_ALO], s[S_AHI], base), bd = rebase(s[S_BLO], s[S_BHI], base);
      {_mma_asm(kind, sparse, cg)}
    }}
    {commit}
  }}
  mbar_wait(&bar, 0);
  fence_after();
  tmem_dump(tm, out + P[P_OUT_OFF], P[P_DUMP_COLS]);
  fence_before();
  {sync};
  if (w == 0) asm volatile("tcgen05.dealloc.cta_group::{cg}.sync.aligned.b32 %0, 512;" :: "r"(tm));
}}
"""


def module_source(kind: str) -> str:
    head = (f"// Generated by tests/ptx/tcgen05_gen/gen.py: the tcgen05.mma .kind::{kind} coverage kernels.\n"
            f"// Compile: nvcc -ptx -gencode=arch=compute_100a,code=sm_100a {kind}.cu\n"
            '#include "gen_common.cuh"\n')
    return head + "".join(kernel(k, sp, cg) for k, sp, cg in forms() if k == kind)


def main() -> None:
    for kind in KINDS:
        cu = HERE / f"{kind}.cu"
        cu.write_text(module_source(kind))
        r = subprocess.run(NVCC + [cu.name, "-o", f"{kind}.ptx"], cwd=HERE, capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"nvcc failed on {cu.name}:\n{r.stderr}")
        print(f"{kind}.ptx: {(HERE / f'{kind}.ptx').stat().st_size} bytes")


if __name__ == "__main__":
    main()
