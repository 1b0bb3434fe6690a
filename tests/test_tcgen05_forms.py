"""`warpsim forms` lists every tcgen05.mma form (kind x M x cta_group x dense/sparse) as spec-verified, and the
family hook no longer hides real errors."""
import importlib
import json
import subprocess
import sys

import pytest

from isa import tcgen05
from isa.tcgen05.idesc import KINDS, legal_shapes
from warpsim import cmd_forms


def test_every_kind_m_cta_group_and_sparsity_is_listed():
    rows = list(tcgen05.forms_listing())
    keys = {r["form"] for r in rows}
    assert len(keys) == len(rows)
    want = {(k, sp, cg, m) for k in KINDS for sp in (False, True) for cg in (1, 2)
            for m in legal_shapes(k, cg, sparse=sp)[0]}
    assert {(r["kind"], r["sparse"], r["cta_group"], r["m"]) for r in rows} == want
    assert len(rows) == 47
    for r in rows:
        assert r["status"] in (tcgen05.SPEC_VERIFIED, tcgen05.NOT_MODELLED)
        assert "hardware-verified" not in r["status"]
        assert r["status"] == tcgen05.NOT_MODELLED or r["status"].startswith("spec-verified (PTX ISA + CUTLASS")
    not_modelled = {r["form"] for r in rows if r["status"] == tcgen05.NOT_MODELLED}
    assert not_modelled == {f"tcgen05.mma.cta_group::2.kind::{k}.m128" for k in ("mxf8f6f4", "mxf4", "mxf4nvf4")}
    i8 = next(r for r in rows if r["form"] == "tcgen05.mma.cta_group::1.kind::i8.m128")
    assert i8["n"] == "8..32 step 8, 48..256 step 16" and i8["k"] == 32 and i8["datapath_layout"] == "D"
    sp = next(r for r in rows if r["form"] == "tcgen05.mma.sp.cta_group::1.kind::mxf4nvf4.m128")
    assert sp["k"] == 128 and sp["scale_vec"] == ["2X", "4X"]


def test_cli_text_and_json():
    out = subprocess.run([sys.executable, "-m", "warpsim.cli", "forms", "--filter", "tcgen05"], capture_output=True,
                         text=True, check=True).stdout
    assert "mma.sp forms" not in out  # the filter leaves no mma.sp row
    assert out.count("spec-verified (PTX ISA + CUTLASS; no Blackwell hardware here)") == 44
    assert "47 tcgen05.mma forms (44 spec-verified, none hardware-verified" in out
    js = json.loads(subprocess.run([sys.executable, "-m", "warpsim.cli", "forms", "--json"], capture_output=True,
                                   text=True, check=True).stdout)
    assert len(js["other"]) == 47 and len(js["mma.sp"]) > 0


def test_extra_families_lets_real_errors_through(monkeypatch):
    assert len(cmd_forms.extra_families()) == 47

    def broken():
        raise KeyError("a bug in the listing")
        yield  # noqa: unreachable

    monkeypatch.setattr(tcgen05, "forms_listing", broken)
    with pytest.raises(KeyError, match="a bug in the listing"):
        cmd_forms.extra_families()
    monkeypatch.delattr(tcgen05, "forms_listing")
    assert cmd_forms.extra_families() == []  # the family without a listing: nothing to add
    real = importlib.import_module
    monkeypatch.setattr(importlib, "import_module",
                        lambda name, *a: (_ for _ in ()).throw(ImportError("numpy is broken")) if name == "isa.tcgen05"
                        else real(name, *a))
    with pytest.raises(ImportError, match="numpy is broken"):
        cmd_forms.extra_families()
