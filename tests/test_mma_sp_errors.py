"""mma.sp misuse in PTX: located errors (file:line:col, caret, expected) and named undefined behaviour."""
import numpy as np
import pytest

from isa.errors import HardwareTrap, IllegalInstruction, PtxSemanticError, UndefinedBehavior
from warpsim import RawModule

HEAD = """.version 8.7
.target {target}
.address_size 64

.visible .entry k(.param .u64 out, .param .u32 meta)
{{
	.reg .pred %p<2>;
	.reg .b32 %r<24>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<3>;
	ld.param.u32 %r5, [meta];
	mov.b32 %r1, 0x3c003c00;
	mov.b32 %r2, 0x3c003c00;
	mov.b32 %r3, 0x3c003c00;
	mov.b32 %r4, 0x3c003c00;
	mov.b32 %r6, 0x3c003c00;
	mov.b32 %r7, 0x3c003c00;
	mov.b32 %r8, 0x3c003c00;
	mov.b32 %r9, 0x3c003c00;
	mov.f32 %f4, 0f00000000;
	mov.f32 %f5, 0f00000000;
	mov.f32 %f6, 0f00000000;
	mov.f32 %f7, 0f00000000;
	mov.u32 %r10, %laneid;
{body}
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r10, 4;
	add.s64 %rd1, %rd1, %rd2;
	st.global.f32 [%rd1], %f0;
	ret;
}}
"""
K16 = "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
K32 = "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"
OK = f"\t{K16} {{%f0,%f1,%f2,%f3}}, {{%r1,%r2}}, {{%r3,%r4}}, {{%f4,%f5,%f6,%f7}}, %r5, 0;"


def launch(body: str, meta: int = 0x44444444, target: str = "sm_90a", policy: str = "error"):
    mod = RawModule(code=HEAD.format(target=target, body=body), ub_policy=policy, timing=False)
    out = np.zeros(32, np.float32)
    mod.get_function("k")(1, 32, (out, np.uint32(meta)))
    return out


def test_valid_instruction_runs():
    out = launch(OK)
    assert (out == 8.0).all()  # eight stored ones per row of A times B = 1


def _expect(exc, body, *fragments, **kw):
    with pytest.raises(exc) as err:
        launch(body, **kw)
    text = str(err.value)
    for f in fragments:
        assert f in text, text
    return text


def test_wrong_operand_count_is_located():
    body = f"\t{K16} {{%f0,%f1,%f2,%f3}}, {{%r1,%r2}}, {{%r3,%r4}}, {{%f4,%f5,%f6,%f7}}, %r5;"
    text = _expect(PtxSemanticError, body, "<code>:25:2: error: mma.sp takes 6 operands, got 5",
                   "expected mma.sp{::ordered_metadata}")
    assert "^" in text


def test_wrong_register_count_is_located():
    body = f"\t{K16} {{%f0,%f1,%f2,%f3}}, {{%r1}}, {{%r3,%r4}}, {{%f4,%f5,%f6,%f7}}, %r5, 0;"
    _expect(PtxSemanticError, body, "<code>:25:2:", "operand a of m16n8k16.f32.f16.f16.f32 must be a vector of 2 registers")


def test_bad_selector_is_located():
    body = OK.replace("%r5, 0;", "%r5, 4;")
    _expect(PtxSemanticError, body, "<code>:25:2:", "sparsity selector 4 is out of range for m16n8k16.f32.f16.f16.f32",
            "expected one of [0, 1, 2, 3]")


def test_selector_register_is_rejected():
    body = OK.replace("%r5, 0;", "%r5, %r6;")
    _expect(PtxSemanticError, body, "sparsity selector f must be an integer constant")


def test_unknown_qualifier_is_located():
    body = OK.replace(".row.col", ".row.row")
    _expect(PtxSemanticError, body, "<code>:25:2:", "only the .row.col layout exists for mma.sp")


def test_form_not_on_target_is_refused_like_ptxas():
    body = "\tmma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2,%r3,%r4}, " \
           "{%r6,%r7,%r8,%r9}, {%f4,%f5,%f6,%f7}, %r5, 0;"
    _expect(IllegalInstruction, body, "m16n8k64.f32.e4m3.e4m3.f32 is not supported on sm_80", target="sm_80")


def test_invalid_metadata_names_rule_lane_and_value():
    # lane 0's e picks row 0 chunk 0 with code 0b0101 (equal indices)
    text = _expect(UndefinedBehavior, OK, "metadata code 0b0101 names the same column twice", "lane 0",
                   meta=0x44444445)
    assert "<code>:25:2" in text


def test_hardware_policy_adds_equal_indices():
    out = launch(OK, meta=0x44444445, policy="hardware")
    assert out[0] == 8.0  # row 0: both stored ones of chunk 0 land on k = 1 and add; B is all ones, so still 8


def test_partial_warp_is_undefined():
    body = "\tsetp.lt.u32 %p1, %r10, 16;\n\t@%p1 bra SKIP;\n" + OK + "\nSKIP:"
    _expect(UndefinedBehavior, body, ".aligned mma executed by a partial warp", "16 of 32 lanes active")


def test_f16_k32_selector_2_traps_under_hardware_policy():
    body = f"\t{K32} {{%f0,%f1,%f2,%f3}}, {{%r1,%r2,%r3,%r4}}, {{%r6,%r7,%r8,%r9}}, {{%f4,%f5,%f6,%f7}}, %r5, 2;"
    _expect(HardwareTrap, body, "cudaErrorIllegalInstruction", policy="hardware")
    _expect(UndefinedBehavior, body, "sparsity selector 2 is outside [0, 1]")


def test_timed_engine_keeps_the_error_as_raised():
    """simpy rebuilds exceptions leaving a process; the timed engine must hand back the original."""
    mod = RawModule(code=HEAD.format(target="sm_90a", body=OK), timing=True)
    with pytest.raises(UndefinedBehavior) as err:
        mod.get_function("k")(1, 32, (np.zeros(32, np.float32), np.uint32(0x44444445)))
    assert str(err.value).count("undefined behaviour") == 1 and err.value.lane == 0
