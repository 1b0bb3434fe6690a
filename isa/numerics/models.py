"""How the tensor core adds, per architecture (chosen from the PTX module's ``.target``).

The float model is a *fused multi-term dot* (MMA-Sim; Khattak & Mikaitis 2025; ptx-mma-sp.md §6.2, §7):
products are exact; the products of one fused group and the running accumulator are aligned to the
largest exponent among them, each truncated toward zero to ``align_bits`` fraction bits below it;
they are summed exactly; the sum is rounded once to the output type (toward zero for f32, to nearest
even for f16). ``group`` is how many *dense* K columns one fused group spans (None: the whole
instruction); the groups run in K order, each taking the previous group's rounded result as its
accumulator. For ``mma.sp`` only the stored (metadata-selected) products take part — the hardware
never forms the pruned ones (so a pruned zero meets an Inf in B without making a NaN).

``status`` says where each row's numbers come from: ``hardware:H100`` where traces/h100 replays
bit-exact, ``literature`` where they come from published measurements only.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.forms import arch_number


@dataclass(frozen=True)
class DotModel:
    name: str
    align_bits: int  # fraction bits kept below the largest exponent (f16/bf16/tf32 inputs)
    group: int | None  # dense K columns per fused group; None = whole instruction
    fp8_align_bits: int  # same, for e4m3/e5m2 inputs
    fp8_out_bits: int | None  # f32 result truncated to this many fraction bits (H100 fp8: 13), None = 23
    status: str
    source: str

    def align_for(self, atype: str) -> int:
        return self.fp8_align_bits if atype in ("e4m3", "e5m2") else self.align_bits


AMPERE = DotModel("sm_80", 24, 8, 24, None, "literature",
                  "MMA-Sim (arXiv 2511.10909) and Khattak-Mikaitis A100: 8-term groups, 1 extra bit, RZ")
ADA = DotModel("sm_89", 24, 8, 13, 13, "literature",
               "MMA-Sim Ada: 24 bits, K split in two; fp8 13 bits (DeepSeek-V3 §3.5.2)")
HOPPER = DotModel("sm_90", 25, None, 13, 13, "hardware:H100",
                  "MMA-Sim Hopper (25 bits, whole K fused, RZ/RNE); ptx-mma-sp.md §7: bit-exact on H100 mma.sp "
                  "when only the stored products take part")
BLACKWELL = DotModel("sm_100", 25, None, 25, None, "literature",
                     "MMA-Sim Blackwell and DeepGEMM #176: 25 bits, fp8 at full precision")
RTX_BLACKWELL = DotModel("sm_120", 25, None, 25, None, "literature", "MMA-Sim RTX Blackwell: 25 bits")


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
