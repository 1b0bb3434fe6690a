"""``warpsim forms``: every supported instruction form, with where its truth comes from."""
from __future__ import annotations

import json

from isa.forms import FORMS, variant_ptx, variants_of
from isa.numerics.models import model_for

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
    return "\n".join(lines)


def extra_families():
    """Other instruction families contribute their rows here (tcgen05 registers itself if present)."""
    try:
        from isa.tcgen05 import forms_listing  # type: ignore[attr-defined]
    except Exception:  # the family is optional in this build
        return []
    return list(forms_listing())


def run(args) -> int:
    records = [r for r in rows() if not args.filter or args.filter in r["form"]]
    extra = [r for r in extra_families() if not args.filter or args.filter in r["form"]]
    if args.json:
        print(json.dumps({"mma.sp": records, "other": extra}, indent=1))
        return 0
    print(format_table(records))
    for r in extra:
        print(f"{r['form']:46} {r.get('status', 'spec-only')}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("forms", help="list every supported instruction form and its verification status")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--filter", default="", help="only forms whose key contains this text")
    p.set_defaults(func=run)
