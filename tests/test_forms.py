"""The form table: counts, classes, selectors and targets against ptx-mma-sp.md §1–§5."""
import pytest

from isa import forms
from isa.forms import BY_KEY, FORMS, FormError, parse_mods, runs_on, variants_of

# ptx-mma-sp.md §2: (key prefix) -> (A regs, B regs, C regs, selectors, class)
TABLE = {
    "m16n8k16.f16.f16.f16.f16": (2, 2, 2, (0, 1, 2, 3), "I"),
    "m16n8k16.f32.f16.f16.f32": (2, 2, 4, (0, 1, 2, 3), "I"),
    "m16n8k16.f32.bf16.bf16.f32": (2, 2, 4, (0, 1, 2, 3), "I"),
    "m16n8k32.f16.f16.f16.f16": (4, 4, 2, (0, 1), "II"),
    "m16n8k32.f32.f16.f16.f32": (4, 4, 4, (0, 1), "II"),
    "m16n8k32.f32.bf16.bf16.f32": (4, 4, 4, (0, 1), "II"),
    "m16n8k8.f32.tf32.tf32.f32": (2, 2, 4, (0, 1, 2, 3), "I"),
    "m16n8k16.f32.tf32.tf32.f32": (4, 4, 4, (0, 1), "II"),
    "m16n8k32.s32.s8.u8.s32": (2, 2, 4, (0, 1), "III"),
    "m16n8k64.s32.u8.u8.s32.satfinite": (4, 4, 4, (0,), "IV"),
    "m16n8k64.s32.s4.s4.s32": (2, 2, 4, (0, 1), "III"),
    "m16n8k128.s32.u4.s4.s32": (4, 4, 4, (0,), "IV"),
    "m16n8k64.f32.e4m3.e5m2.f32": (4, 4, 4, (0,), "IV"),
    "m16n8k64.f8f6f4.f16.e2m1.e3m2.f16": (4, 4, 2, (0,), "IV"),
    "m16n8k64.mxf8f6f4.x1X.ue8m0.f32.e2m3.e4m3.f32": (4, 4, 4, (0,), "IV"),
    "m16n8k128.mxf4nvf4.x4X.ue4m3.f32.e2m1.e2m1.f32": (4, 4, 4, (0,), "IV"),
}


@pytest.mark.parametrize("key", sorted(TABLE))
def test_row_matches_reference(key):
    f = BY_KEY[key]
    a, b, c, sel, klass = TABLE[key]
    assert (f.regs["a"], f.regs["b"], f.regs["c"], f.regs["d"], f.regs["e"]) == (a, b, c, c, 1)
    assert f.selectors == sel and f.meta_class == klass


def test_table_size_and_unique_keys():
    assert len(FORMS) == 127 and len(BY_KEY) == len(FORMS) + len(forms.DENSE_FORMS)


@pytest.mark.parametrize("form", FORMS, ids=str)
def test_instruction_text_parses_back(form):
    for variant in variants_of(form):
        mods = form.name.split(".")[1:]
        mods[0] = variant
        assert parse_mods(mods) == (form, variant)


def test_qualifier_order_is_free_like_ptxas():
    # CUTLASS writes .satfinite after the types and the variant after .sync.aligned
    f, v = parse_mods("sync.aligned.sp.m16n8k32.row.col.s32.s8.s8.s32.satfinite".split("."))
    assert f.satfinite and v == "sp"
    f2, _ = parse_mods("sync.aligned.kind::f8f6f4.sp::ordered_metadata.m16n8k64.row.col.f32.e4m3.e2m1.f32".split("."))
    assert f2.kind == "f8f6f4"


@pytest.mark.parametrize("mods,msg", [
    ("sp.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32", "only the .row.col"),
    ("sp.aligned.m16n8k16.row.col.f32.f16.f16.f32", "`.sync` is required"),
    ("sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32", "no mma.sp form"),
    ("sp.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32", ".satfinite exists only for integer"),
    ("sp.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32", "not allowed with .kind::f8f6f4"),
    ("sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.bogus", "unknown qualifier .bogus"),
])
def test_bad_qualifiers_are_named(mods, msg):
    with pytest.raises(FormError, match=msg.replace(".", r"\.").replace("`", "`")):
        parse_mods(mods.split("."))


def test_targets_as_ptxas_accepts_them():
    f16 = BY_KEY["m16n8k16.f32.f16.f16.f32"]
    fp8 = BY_KEY["m16n8k64.f32.e4m3.e4m3.f32"]
    fp8_f16 = BY_KEY["m16n8k64.f16.e4m3.e4m3.f16"]
    mxf4 = BY_KEY["m16n8k128.mxf4.x2X.ue8m0.f32.e2m1.e2m1.f32"]
    assert runs_on(f16, "sm_80") and runs_on(f16, "sm_90a") and runs_on(f16, "sm_120a")
    assert not runs_on(fp8, "sm_86") and runs_on(fp8, "sm_89") and runs_on(fp8, "sm_90a")
    assert not runs_on(fp8_f16, "sm_90a") and not runs_on(fp8_f16, "sm_120") and runs_on(fp8_f16, "sm_120a")
    assert runs_on(mxf4, "sm_120a") and not runs_on(mxf4, "sm_100a") and not runs_on(mxf4, "sm_120f")
    assert runs_on(BY_KEY["m16n8k64.f8f6f4.f32.e2m1.e2m1.f32"], "sm_100a")


def test_hardware_verified_rows_are_exactly_the_h100_forms():
    hw = {f.key for f in FORMS if f.verified.startswith("hardware")}
    for key in hw:
        f = BY_KEY[key]
        assert f.kind is None and runs_on(f, "sm_90a")
    assert len(hw) == 8 + 32 + 4  # 4 f16, 2 bf16, 2 tf32; 32 integer rows; 4 fp8 mixes


def test_variant_ptx_versions():
    f = BY_KEY["m16n8k16.f32.f16.f16.f32"]
    assert forms.variant_ptx(f, "sp") == (7, 1)
    assert forms.variant_ptx(f, "sp::ordered_metadata") == (8, 5)
