"""tcgen05 (Blackwell, sm_100a) core: descriptors, TMEM layouts and the MMA functional model.

PTX ISA 9.2 section 9.7.16 (renumbered 9.7.18 in 9.4). Modules:

* :mod:`isa.tcgen05.idesc` — the 32-bit instruction descriptor (``idesc``).
* :mod:`isa.tcgen05.smem_desc` — the 64-bit shared-memory matrix descriptor, canonical layouts, swizzles.
* :mod:`isa.tcgen05.tmem_layout` — data-path layouts, sparse-metadata and scale-factor placement,
  ``tcgen05.ld/st`` register maps.
* :mod:`isa.tcgen05.mma` — ``tcgen05.mma{.sp}`` over numpy.

The TMEM state itself (allocation, access rules) lives in :mod:`warpsim.tmem`; the asynchronous side
(queue, completion, ordering, hazards) in :mod:`warpsim.tcgen05_async`.

:func:`forms_listing` is what ``warpsim forms`` shows for this family.
"""
from isa.tcgen05.idesc import BLOCK_SCALED, DENSE_K, DescriptorError, InstrDescriptor, KINDS, legal_shapes  # noqa: F401

SPEC_VERIFIED = "spec-verified (PTX ISA + CUTLASS; no Blackwell hardware here)"
NOT_MODELLED = "not modelled: the scale-factor layout of block-scaled M = 128 with cta_group::2 is not reconstructed"
SCALE_VEC = {"mxf8f6f4": ("1X",), "mxf4": ("2X",), "mxf4nvf4": ("2X", "4X")}
TYPES = {"f16": "a/b f16, bf16; d f16, f32", "tf32": "a/b tf32; d f32",
         "f8f6f4": "a/b e4m3, e5m2, e2m3, e3m2, e2m1; d f16, f32", "i8": "a/b s8, u8; d s32",
         "mxf8f6f4": "a/b e4m3, e5m2, e2m3, e3m2, e2m1 x ue8m0; d f32", "mxf4": "a/b e2m1 x ue8m0; d f32",
         "mxf4nvf4": "a/b e2m1 x ue8m0, ue4m3; d f32"}


def _ns(ns) -> str:
    """A legal N set as ranges: '8..256 step 8' or '8, 16, 24, 32, 48..256 step 16'."""
    ns, parts, i = list(ns), [], 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] - ns[j] == (ns[i + 1] - ns[i] if i + 1 < len(ns) else 0):
            j += 1
        if j - i >= 3:
            parts.append(f"{ns[i]}..{ns[j]} step {ns[i + 1] - ns[i]}")
            i = j + 1
        else:
            parts.append(str(ns[i]))
            i += 1
    return ", ".join(parts)


def forms_listing():
    """One record per tcgen05.mma form: every kind x M x cta_group x dense/sparse that Table 39 allows (not .ws).

    ``status`` says where its truth comes from: the PTX ISA and CUTLASS (no Blackwell GPU here, so no form is
    hardware-verified); the M / N / K / types / layout fields are what warpsim checks and computes."""
    from isa.tcgen05.tmem_layout import layout_name

    for kind in KINDS:
        for sparse in (False, True):
            for cg in (1, 2):
                ms, ns = legal_shapes(kind, cg, sparse=sparse)
                for m in ms:
                    key = f"tcgen05.mma{'.sp' if sparse else ''}.cta_group::{cg}.kind::{kind}.m{m}"
                    bs = kind in BLOCK_SCALED
                    status = NOT_MODELLED if bs and cg == 2 and m == 128 else SPEC_VERIFIED
                    notes = []
                    lay = layout_name(m, cg, sparse)
                    if sparse and lay in ("F", "C"):
                        notes.append("sparse metadata lanes of the half-datapath layout assumed (reference 3.3)")
                    if lay == "C":
                        notes.append("data-path layout C lanes inferred")
                    yield {
                        "form": key,
                        "instruction": f"tcgen05.mma{'.sp' if sparse else ''}.cta_group::{cg}.kind::{kind}"
                                       + (".block_scale" if bs else ""),
                        "kind": kind, "m": m, "cta_group": cg, "sparse": sparse,
                        "n": _ns(ns), "k": DENSE_K[kind] * (2 if sparse else 1), "types": TYPES[kind],
                        "scale_vec": list(SCALE_VEC.get(kind, ())), "datapath_layout": lay,
                        "status": status,
                        "numerics": "literature model (exact products, one rounding per instruction: f32 RZ, f16 "
                                    "RNE; i8 exact); not bit-exact to B200",
                        "notes": notes,
                    }
