"""How the tensor core adds, per architecture (chosen from the PTX module's ``.target``).

The float model is a *fused multi-term dot* (MMA-Sim, arXiv 2511.10909; Khattak & Mikaitis 2025):

1. **Products exact.** Only the stored (metadata-selected) products of ``mma.sp`` take part; the hardware
   never forms the pruned ones (a pruned zero meeting an Inf in B makes no NaN).
2. **Alignment exponent.** Each operand's exponent is its exponent *field*: subnormals count at the format's
   smallest normal exponent, zero at -126. A product's exponent is ``ea + eb`` — *not* the exponent of its
   value (the significand product lies in [1, 4)). ``E`` = the largest of the products' ``ea + eb`` and C's
   exponent (C takes part in the maximum).
3. **Truncation.** Every term (C included) is cut toward zero (sign-magnitude, no guard or sticky bit) to a
   multiple of 2^(E − ``align_bits``); the cut terms are added exactly.
4. **One rounding.** f32 result: fraction cut toward zero, but an exponent beyond 127 gives ±Inf (not the
   largest finite value); subnormals kept. f16 result: nearest even, overflow ±Inf.
5. **Specials.** Any NaN operand among the stored products or C, 0·Inf, or Inf − Inf gives the canonical NaN
   0x7FFFFFFF (f16: 0x7FFF); otherwise an Inf operand gives that Inf. If every term is zero the result is
   the IEEE sum of the signed zeros; an exact cancellation gives +0.

``group``: dense K columns per fused group (None: the whole instruction, as on Hopper); the groups run in
K order, each taking the previous group's rounded result as its C.

**Hopper evidence** (``tests/numerics/fit_h100.py``, exact numpy arithmetic; traces/h100: 811,008 float D
elements — instruction/: f16 327,680, bf16 163,840, tf32 163,840, e4m3/e5m2 81,920, in the classes normal,
randbits, allbits, cancel, overflow; ub/: 73,728): the model is bit-exact on every element, NaN/Inf/−0 and
UB codes included (replayed through ``warpsim.replay`` by ``tests/test_numerics_h100.py``). Each
alternative convention, alone, breaks it — elements of the 655,360 f16/bf16/tf32 instruction elements
(those with finite inputs) that then differ from the H100:

* exponent of the product's value instead of ``ea + eb``: 30,098; ``ea + eb + 1``: 52,155;
* ``align_bits`` 24: 56,130; 26: 36,072; two's-complement (floor) truncation: 183,360;
* C left out of the maximum: 6,592; f32 rounded to nearest: 72,740; f16 results cut toward zero: 102,841
  (of 163,840 f16 results); K fused in two sequential halves (the Ampere grouping): 105,534;
* f32 overflow saturating to the largest finite (IEEE RZ): 135,562 (bf16/tf32 ``overflow``/``randbits``);
* subnormal inputs at the exponent of their value instead of the format's emin: 3 (``f16_k16_f32__randbits``).

Not decided by the traces (0 elements where the choice changes the result): the exponent of a zero operand
(MMA-Sim's -126 is used; leaving zeros out of the maximum or giving them the format's emin changes nothing
here), of a subnormal C, the sign of all-zero sums (no −0 result was recorded; IEEE's rule is used), and
subnormal results (none recorded; gradual underflow, as Khattak-Mikaitis report for NVIDIA).

**fp8 on sm_90** (``mma.sp`` e4m3/e5m2 m16n8k64 → f32): the H100 has no fp8 ``mma.sp`` unit; ptxas emits
(traces/h100/sass/mmasp_f8_k64_f32_*.sass) 16 ``F2FP.F16.E4M3.UNPACK_B`` (exact: every e4m3/e5m2 value is
an f16 value), ``HMMA.SP.16832.F32`` over the even 4-column chunks of K with C = RZ (+0), a second
``HMMA.SP.16832.F32`` over the odd chunks with C = the first result (selector 1 of a shuffled
metadata register), then ``FADD C, D2`` (f32, round to nearest even, subnormals kept, canonical NaN).
Each HMMA is the f16 model above (25 bits, f16 exponents: emin -14). This is ``fp8_sparse="hmma_pair"``;
bit-exact on all 81,920 fp8 instruction elements and the 8,192 of ub/f8_k64_f32; taking the odd chunks
first breaks 6,662 of them.

**tf32 metadata codes other than 0100/1110** (UB): the H100 gathers B in 16-bit halves (see
:func:`isa.sparsity.tf32_half_sources`); bit-exact on all 16,384 elements of ub/tf32_k8_f32 and
ub/tf32_k16_f32 (``ub_policy="hardware"``).

``status`` says where each row's numbers come from: ``hardware:H100`` where traces/h100 replays
bit-exact, ``literature`` where they come from published measurements only (the sm_80/89/100/120 rows
share the Hopper conventions 2–5, which are MMA-Sim's own).
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.forms import arch_number


@dataclass(frozen=True)
class DotModel:
    name: str
    align_bits: int  # fraction bits kept below the largest exponent E (f16/bf16/tf32 inputs)
    group: int | None  # dense K columns per fused group; None = whole instruction
    fp8_align_bits: int  # same, for a native e4m3/e5m2 unit
    fp8_out_bits: int | None  # native fp8: f32 result truncated to this many fraction bits, None = 23
    fp8_sparse: str  # "native" | "hmma_pair" (fp8 mma.sp emulated by ptxas with two f16 HMMA.SP + FADD)
    status: str
    source: str

    def align_for(self, atype: str) -> int:
        return self.fp8_align_bits if atype in ("e4m3", "e5m2") else self.align_bits


AMPERE = DotModel("sm_80", 24, 8, 24, None, "native", "literature",
                  "MMA-Sim (arXiv 2511.10909) and Khattak-Mikaitis A100: 8-term groups, 24 bits (1 extra), RZ/RNE; "
                  "exponent conventions as Hopper (MMA-Sim's)")
ADA = DotModel("sm_89", 24, 8, 13, 13, "native", "literature",
               "MMA-Sim Ada: 24 bits, K split in two; native fp8 13 bits, f32 result e8m13 (DeepSeek-V3 §3.5.2)")
HOPPER = DotModel("sm_90", 25, None, 13, 13, "hmma_pair", "hardware:H100",
                  "traces/h100, bit-exact on every float instruction and UB trace (tests/numerics/fit_h100.py): "
                  "25 bits below E = max(ea+eb, ec), whole K fused, terms cut toward zero, f32 RZ with overflow "
                  "to Inf, f16 RNE, canonical NaN; fp8 mma.sp = ptxas's two f16 HMMA.SP (even then odd K chunks) "
                  "+ FADD (sass/mmasp_f8_*). Dense fp8 (13 bits, e8m13) is literature (Khattak-Mikaitis H100 "
                  "mma.sync m16n8k32), not traced")
BLACKWELL = DotModel("sm_100", 25, None, 25, None, "native", "literature",
                     "MMA-Sim Blackwell and DeepGEMM #176: 25 bits, fp8 at full precision; Hopper conventions")
RTX_BLACKWELL = DotModel("sm_120", 25, None, 25, None, "native", "literature",
                         "MMA-Sim RTX Blackwell: 25 bits; Hopper conventions")


def model_for(arch: str) -> DotModel:
    num, _ = arch_number(arch)
    if num >= 120:
        return RTX_BLACKWELL
    if num >= 100:
        return BLACKWELL
    if num >= 90:
        return HOPPER
    if num >= 89:
        return ADA
    return AMPERE
