"""``warpsim forms``: every supported instruction form, with where its truth comes from."""
from __future__ import annotations

import json

from isa.forms import FORMS, variant_ptx, variants_of
from isa.numerics.models import ADA, AMPERE, BLACKWELL, HOPPER, RTX_BLACKWELL, model_for

STATUS_WORDS = {
    "hardware:H100": "hardware-verified (H100 traces replay bit-exact)",
    "spec": "spec-only (PTX ISA + CUTLASS layouts + ptxas; no hardware here)",
}


def rows(arch: str | None = None):
    for f in FORMS:
        yield {
            "form": f.key,
            "instruction": f.name,
            "variants": list(variants_of(f)),
            "ptx": ".".join(map(str, variant_ptx(f, variants_of(f)[-1]))),
            "targets": list(f.targets),
            "regs": f.regs,
            "selectors": list(f.selectors),
            "metadata_class": f.meta_class,
            "sparsity": f.pattern,
            "layout": f.verified,
            "numerics": model_for("sm_90a").status if f.verified.startswith("hardware") else "literature",
        }


def format_table(records) -> str:
    head = f"{'form':46} {'regs a/b/c':10} {'sel':7} {'cls':3} {'pat':3} {'targets':18} status"
    lines = [head, "-" * len(head)]
    for r in records:
        regs = f"{r['regs']['a']}/{r['regs']['b']}/{r['regs']['c']}"
        sel = ",".join(map(str, r["selectors"]))
        tg = ",".join(r["targets"])
        tg = tg if len(tg) <= 18 else tg[:15] + "..."
        status = "hardware-verified (H100)" if r["layout"].startswith("hardware") else "spec-only"
        lines.append(f"{r['form']:46} {regs:10} {sel:7} {r['metadata_class']:3} {r['sparsity']:3} {tg:18} {status}")
    n_hw = sum(r["layout"].startswith("hardware") for r in records)
    lines.append(f"\n{len(records)} mma.sp forms ({n_hw} hardware-verified on an H100, "
                 f"{len(records) - n_hw} spec-only); each runs as .sp and/or .sp::ordered_metadata.")
    for k, v in STATUS_WORDS.items():
        lines.append(f"  {k:14} {v}")
    lines.append("numerics by target (isa/numerics/models.py):")
    for m in (AMPERE, ADA, HOPPER, BLACKWELL, RTX_BLACKWELL):
        words = "hardware-verified on the H100, bit-exact" if m.status.startswith("hardware") else "literature-calibrated"
        lines.append(f"  {m.name:14} {words}")
    return "\n".join(lines)


def extra_families():
    """Other instruction families contribute their rows here (tcgen05 registers itself if present).

    Only the family's absence is tolerated (no ``isa.tcgen05`` package, or no ``forms_listing`` in it): an error
    while importing it or while listing propagates."""
    import importlib
    import importlib.util

    if importlib.util.find_spec("isa.tcgen05") is None:
        return []
    listing = getattr(importlib.import_module("isa.tcgen05"), "forms_listing", None)
    return [] if listing is None else list(listing())


def run(args) -> int:
    records = [r for r in rows() if not args.filter or args.filter in r["form"]]
    extra = [r for r in extra_families() if not args.filter or args.filter in r["form"]]
    if args.json:
        print(json.dumps({"mma.sp": records, "other": extra}, indent=1))
        return 0
    if records or not extra:
        print(format_table(records))
    if extra:
        print(f"\n{'tcgen05 form':48} {'N':28} {'K':>3} {'layout':6} status")
    for r in extra:
        n = str(r.get("n", ""))
        print(f"{r['form']:48} {n if len(n) <= 28 else n[:25] + '...':28} {r.get('k', ''):>3} "
              f"{r.get('datapath_layout', ''):6} {r.get('status', 'spec-only')}")
    if extra:
        n_spec = sum(r.get("status", "").startswith("spec-verified") for r in extra)
        print(f"\n{len(extra)} tcgen05.mma forms ({n_spec} spec-verified, none hardware-verified: no Blackwell GPU "
              "here; numerics are a literature model)")
    return 0


def register(sub) -> None:
    p = sub.add_parser("forms", help="list every supported instruction form and its verification status")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--filter", default="", help="only forms whose key contains this text")
    p.set_defaults(func=run)
