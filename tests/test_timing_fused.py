"""ptxas's one-instruction idioms (``warpsim.timing.analysis.FUSED``) and its renames, as the timed engine sees
them: which PTX pairs it takes for one SASS instruction, and which it leaves two."""
import pytest

import warpsim
from warpsim.timing import analysis
from warpsim.timing.params import params_for

HEAD = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r9, %ctaid.x;
    setp.eq.u32 %p1, %r1, 0;
"""
TAIL = """    st.global.u32 [%rd1], %r3;
    st.global.u64 [%rd1+8], %rd3;
    ret;
}
"""


def _timed(body: str) -> dict:
    """``{instruction text: InsTiming}`` of the body's instructions."""
    program = warpsim.RawModule(code=HEAD + body + "\n" + TAIL).get_function("k").program
    out = analysis.analyse(program, params_for("sm_90a"))
    return {" ".join(it.text.split()): it for it in out}


def _find(timed: dict, start: str):
    return next(it for text, it in timed.items() if text.startswith(start))


FUSED = [  # (body, first, second, the class the pair is timed as)
    ("add.u32 %r2, %r1, %r9;\n add.u32 %r3, %r2, 7;\n mov.b64 %rd3, 0;", "add.u32 %r2", "add.u32 %r3", "alu"),
    ("shl.b32 %r2, %r1, 3;\n add.s32 %r3, %r2, %r9;\n mov.b64 %rd3, 0;", "shl.b32", "add.s32", "alu"),
    ("shr.u32 %r2, %r1, 31;\n add.s32 %r3, %r1, %r2;\n mov.b64 %rd3, 0;", "shr.u32", "add.s32", "alu"),
    ("shr.s32 %r2, %r1, 1;\n add.s32 %r3, %r2, %r9;\n mov.b64 %rd3, 0;", "shr.s32", "add.s32", "alu"),
    ("mul.lo.s32 %r2, %r1, 5;\n add.s32 %r3, %r2, %r9;\n mov.b64 %rd3, 0;", "mul.lo.s32", "add.s32", "mul"),
    ("and.b32 %r2, %r1, 16;\n or.b32 %r3, %r2, %r9;\n mov.b64 %rd3, 0;", "and.b32", "or.b32", "alu"),
    ("mov.u32 %r3, 0;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;", "mul.wide.u32", "add.s64",
     "mul_wide"),
    ("mov.u32 %r3, 0;\n cvt.u64.u32 %rd2, %r1;\n add.s64 %rd4, %rd1, %rd2;\n add.s64 %rd3, %rd4, 8;",
     "add.s64 %rd4", "add.s64 %rd3", "alu"),
]


@pytest.mark.parametrize("body,first,second,cls", FUSED, ids=[f[1] + " + " + f[2] for f in FUSED])
def test_a_pair_ptxas_makes_one_instruction(body, first, second, cls):
    """The first of the pair takes no issue cycle and no pipe cycle, its result there at once; the second is
    timed as the SASS instruction (a multiply's class for IMAD / IMAD.WIDE)."""
    t = _timed(body)
    a, b = _find(t, first), _find(t, second)
    assert (a.slot, a.lat, a.ii) == (0.0, 0.0, 0.0)
    assert b.slot == 1.0 and b.timing == cls and b.lat > 0
    if cls == "mul_wide":
        assert b.lat == params_for("sm_90a").classes["mul_wide"]["latency"]


KEPT = [  # (body, first): two SASS instructions
    # the first's result is read again later
    ("shr.u32 %r2, %r1, 31;\n add.s32 %r3, %r1, %r2;\n add.s32 %r4, %r2, 1;\n st.global.u32 [%rd1+4], %r4;\n"
     " mov.b64 %rd3, 0;", "shr.u32"),
    # a shift by a register is no LEA
    ("shr.u32 %r2, %r1, %r9;\n add.s32 %r3, %r1, %r2;\n mov.b64 %rd3, 0;", "shr.u32"),
    # the second is predicated
    ("shr.u32 %r2, %r1, 31;\n mov.u32 %r3, 0;\n @%p1 add.s32 %r3, %r1, %r2;\n mov.b64 %rd3, 0;", "shr.u32"),
    # not next to each other
    ("mul.wide.u32 %rd2, %r1, 4;\n add.u32 %r3, %r9, 1;\n add.s64 %rd3, %rd1, %rd2;", "mul.wide.u32"),
    # a 64-bit product added to 32 bits: no IMAD.WIDE
    ("mul.lo.s32 %r2, %r1, 5;\n xor.b32 %r3, %r2, %r9;\n mov.b64 %rd3, 0;", "mul.lo.s32"),
]


@pytest.mark.parametrize("body,first", KEPT, ids=["read again", "shift by a register", "predicated",
                                                  "apart", "no such instruction"])
def test_a_pair_ptxas_leaves_two(body, first):
    a = _find(_timed(body), first)
    assert a.slot == 1.0 and a.lat > 0


@pytest.mark.parametrize("body,what", [
    ("mov.u32 %r3, 0;\n mov.b64 %rd3, {%r1, %r9};", "mov.b64 %rd3"),
    ("mov.u32 %r3, 0;\n mov.b64 %rd3, 0;\n mov.b64 {%r4, %r5}, %rd1;\n st.global.u32 [%rd1+4], %r5;", "mov.b64 {"),
    ("cvt.u32.u64 %r3, %rd1;\n mov.b64 %rd3, 0;", "cvt.u32.u64"),
    ("mov.b32 %r3, %r1;\n mov.b64 %rd3, 0;", "mov.b32 %r3"),
])
def test_a_rename_takes_no_issue_cycle(body, what):
    """A copy, the packing of two registers into a 64-bit one or its unpacking, and a 64-bit value's low word are
    nothing in the SASS (register allocation)."""
    it = _find(_timed(body), what)
    assert (it.slot, it.lat, it.ii) == (0.0, 0.0, 0.0)


def test_a_sign_extension_is_an_instruction():
    it = _find(_timed("mov.u32 %r3, 0;\n cvt.s64.s32 %rd3, %r1;"), "cvt.s64.s32")
    assert it.slot == 1.0 and it.lat > 0


@pytest.mark.parametrize("body,producer,crosses", [
    ("and.b32 %r2, %r1, 16;\n mul.lo.s32 %r3, %r2, %r9;\n mov.b64 %rd3, 0;", "and.b32", True),
    ("mul.lo.s32 %r2, %r1, %r9;\n xor.b32 %r3, %r2, 16;\n mov.b64 %rd3, 0;", "mul.lo.s32", True),
    ("mov.u32 %r3, 0;\n and.b32 %r2, %r1, 16;\n mul.wide.u32 %rd2, %r2, 4;\n add.s64 %rd3, %rd1, %rd2;", "and.b32",
     True),
    ("and.b32 %r2, %r1, 16;\n shl.b32 %r3, %r2, 2;\n mov.b64 %rd3, 0;", "and.b32", False),
    ("mul.lo.s32 %r2, %r1, %r9;\n mul.lo.s32 %r3, %r2, %r9;\n mov.b64 %rd3, 0;", "mul.lo.s32 %r2", False),
], ids=["alu to imad", "imad to alu", "alu to imad.wide", "alu to alu", "imad to imad"])
def test_a_result_crossing_pipes_comes_a_cycle_later(body, producer, crosses):
    """A result of the ALU pipe read first by an IMAD (or the other way) takes ``issue.pipe_crossing`` more
    (op_latency: 5.03 cycles across, 4.07 along)."""
    p = params_for("sm_90a")
    it = _find(_timed(body), producer)
    base = p.classes[it.timing]["latency"]
    assert it.lat == base + (p.issue["pipe_crossing"] if crosses else 0.0)
