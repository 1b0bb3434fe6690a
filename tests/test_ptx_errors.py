"""Errors meant for people: file:line:col, the source line with a caret, and what was expected.

tests/ptx/bad/NAME.ptx holds a bad module and NAME.err the exact error text; ``sem_*`` files
parse and fail :func:`check`. The fuzz tests cut and garble the real nvcc fixtures and require a
located PtxSyntaxError (never an IndexError, a TypeError ...) whenever the parse fails.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from isa.errors import PtxSemanticError, PtxSyntaxError
from isa.ptx import check, parse, parse_instruction
from isa.ptx.lexer import tokenize

PTX = Path(__file__).parent / "ptx"
BAD = sorted((PTX / "bad").glob("*.ptx"))
REAL = {p.name: p.read_text() for p in sorted(PTX.glob("*.ptx"))}
HEADER = ".version 9.0\n.target sm_90a\n.address_size 64\n"


def error_of(text: str, file: str = "t.ptx"):
    try:
        check(parse(text, file))
    except (PtxSyntaxError, PtxSemanticError) as e:
        return e
    raise AssertionError("no error raised")


def test_there_are_bad_fixtures():
    assert len(BAD) >= 20 and all(p.with_suffix(".err").exists() for p in BAD)


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_bad_fixture_message(path: Path):
    e = error_of(path.read_text(), path.name)
    assert isinstance(e, PtxSemanticError if path.stem.startswith("sem_") else PtxSyntaxError)
    assert str(e) + "\n" == path.with_suffix(".err").read_text()
    head, source, caret, expected = str(e).split("\n")
    assert head == f"{path.name}:{e.loc.line}:{e.loc.col}: error: {e.message}"
    assert source == "    " + path.read_text().split("\n")[e.loc.line - 1]
    assert caret.endswith("^") and len(caret) == 4 + e.loc.col  # tabs are copied, so widths line up
    assert expected == f"    expected {e.expected}"


# ---------------------------------------------------------------- more cases, inline


def in_body(lines: str) -> str:
    return HEADER + ".visible .entry k(\n\t.param .u64 k_p\n)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n" \
        + lines + "\n\tret;\n}\n"


BODY_LINE = 10  # the first line of ``lines`` in in_body()


@pytest.mark.parametrize("lines,line,col,message,expected", [
    ("\tld.global.u32 %r1, [%rd1+1.5];", 0, 27, "address offset '1.5' is not an integer", "an integer offset"),
    ("\tld.global.u32 %r1, [];", 0, 22, "empty address '[]' in 'ld.global.u32'", "a register, a variable name"),
    ("\tld.global.u32 %r1, [%rd1", 0, 26, "missing ']' in address in 'ld.global.u32'", "']' to close the '[' at 10:21"),
    ("\tld.global.v2.u32 {%r1, %r2", 0, 28, "missing '}' in vector operand", "'}' to close the '{' at 10:19"),
    ("\tcall.uni (retval0), _Z3foo, (param0\n", 0, 37, "missing ')' in '(...)' list", "')' to close the '(' at 10:30"),
    ("\tld.global.v2.u32 {%r1, }, [%rd1];", 0, 25, "missing vector element in 'ld.global.v2.u32'", "a register"),
    ("\tmov.u32 %r1, 0x;", 0, 15, "invalid immediate '0x': '0x' needs at least one hex digit", "an integer"),
    ("\tmov.u32 %r1, 0b12;", 0, 15, "invalid immediate '0b12': invalid binary digit '2'", "an integer"),
    ("\tmov.u32 %r1, 99999999999999999999;", 0, 15, "integer constant does not fit in 64 bits", "an integer"),
    ("\tmov.f64 %rd1, 0d3FF0;", 0, 16, "'0d' must be followed by exactly 16 hex digits", "a float"),
    ("\tmov.u32 %r1, %;", 0, 15, "invalid character '%' in 'mov.u32'", "an operand"),
    ("\tmov.u32 %r1, $ ;", 0, 15, "invalid character '$' in 'mov.u32'", "an operand"),
    ("\tmov.u32 %r1, -;", 0, 16, "unexpected ';' in 'mov.u32'", "a number after '-'"),
    ("\tmov.u32 %r1, %r2,;", 0, 19, "missing operand in 'mov.u32'", "an operand"),
    ("\t.reg .b33 %x;", 0, 7, "unknown qualifier '.b33' in '.reg' declaration", "a type"),
    ("\t.reg .b32 %x<>;", 0, 15, "unexpected '>' in '%x<N>'", "a register count"),
    ("\t.reg .b32;", 0, 11, "unexpected ';' in '.reg' declaration", "a register name"),
    ("\t.shared .align 3 .b8 s[4];", 0, 17, "alignment 3 is not a power of two", "a power of two"),
    ("\t.shared .align 4 .b8 s[4] = {1, 2;", 0, 35, "unexpected ';' in initialiser list", "',' or '}' (to close the '{' at 10:30)"),
    ("\t.local .b8 s[x];", 0, 15, "unexpected 'x' in array declaration", "an array size"),
    ('\t.pragma "nounroll', 0, 10, "unterminated string", "a closing '\"'"),
    ("\t.pragma nounroll;", 0, 10, "unexpected 'nounroll' after '.pragma'", "a string"),
    ("\t@ bra $L1;\n$L1:", 0, 8, "unexpected '$L1' after guard", "an instruction opcode"),
    ("\t123;", 0, 2, "unexpected number '123'", "an instruction, a label, a declaration"),
    ("\t%r1 = 4;", 0, 2, "unexpected register '%r1'", "an instruction"),
    ("\tadd.s32 %r1, %r2, 4 ;;", 0, 23, "unexpected ';'", "an instruction, a label"),
    ("\tcall.uni (retval0, _Z3foo, (param0);", 0, 29, "unexpected '(' in '(...)' list", "a parameter name"),
    ("\tsetp.eq.s32 %r1|, %r2, 0;", 0, 18, "unexpected ',' after '|' in 'setp.eq.s32'", "a predicate register"),
    ("\tmov.u32 %r1, %r2 // no semicolon\n\tmov.u32 %r2, 3;", 0, 18, "missing ';' at end of 'mov.u32'", None),
    ("\tmov.u32 %r1, %r2 /* no semicolon */\n\t@%p1 ret;", 0, 18, "missing ';' at end of 'mov.u32'", None),
])
def test_inline_syntax_errors(lines, line, col, message, expected):
    e = error_of(in_body(lines))
    assert isinstance(e, PtxSyntaxError)
    assert (e.loc.line, e.loc.col) == (BODY_LINE + line, col), str(e)
    assert message in e.message, str(e)
    if expected:
        assert expected in e.expected, str(e)
    assert str(e).startswith(f"t.ptx:{BODY_LINE + line}:{col}: error: ")


@pytest.mark.parametrize("text,line,col,message", [
    ("", 1, 1, "a PTX module must start with '.version', found end of file"),
    (".version 9\n.target sm_90a\n", 1, 10, "unexpected number '9' after '.version'"),
    (".version 9.0\n.entry k() {}\n", 2, 1, "unexpected directive '.entry' after '.version'"),
    (".version 9.0\n.target\n.entry k() {}\n", 3, 1, "unexpected directive '.entry' in '.target'"),
    (HEADER.replace("64", "48"), 3, 15, "invalid address size 48"),
    (HEADER + "}\n", 4, 1, "unexpected '}' at module scope"),
    (HEADER + "ret;\n", 4, 1, "unexpected 'ret' at module scope"),
    (HEADER + ".visible .bogus k() {}\n", 4, 10, "unknown directive '.bogus' at module scope"),
    (HEADER + ".entry k() ret; }\n", 4, 12, "unexpected 'ret' after the header of 'k'"),
    (HEADER + ".entry k(.param .u64) {}\n", 4, 21, "unexpected ')' in parameter list of 'k'"),
    (HEADER + ".entry k(.param .u64 a .param .u64 b) {}\n", 4, 24, "unexpected directive '.param' in parameter list"),
    (HEADER + ".entry k()\n.maxntid 128, {}\n", 5, 15, "unexpected '{' in '.maxntid'"),
    (HEADER + ".global .u32 g = ;\n", 4, 18, "unexpected ';' in initialiser"),
    (HEADER + ".global .u32 g\n.entry k() {}\n", 4, 15, "missing ';' after variable declaration"),
    (HEADER + ".entry k()\n{\n\t{\n\tret;\n", 7, 6, "unexpected end of file in a '{ }' block"),
    (HEADER + ".entry k()\n{\n\t@%p1\n", 6, 6, "unexpected end of file after guard"),
    (HEADER + ".entry k()\n{\n\tld.u32 %r1, [%r2", 6, 18, "unexpected end of file, missing ']' in address"),
    (HEADER + ".entry k()\n{\n\tld.v2.u32 {%r1", 6, 16, "unexpected end of file, missing '}' in vector operand"),
    (HEADER + ".entry k()\n{\n\tmov.u32 %r1, 1", 6, 16, "unexpected end of file, missing ';' at end of 'mov.u32'"),
])
def test_module_level_syntax_errors(text, line, col, message):
    e = error_of(text)
    assert isinstance(e, PtxSyntaxError)
    assert (e.loc.line, e.loc.col) == (line, col), str(e)
    assert message in e.message, str(e)


def test_error_carries_fields():
    e = error_of(in_body("\tmov.u32 %r1, 0f1;"))
    assert e.loc.file == "t.ptx" and e.loc.text == "\tmov.u32 %r1, 0f1;"
    assert e.message == "invalid immediate '0f1': '0f' must be followed by exactly 8 hex digits"
    assert e.expected.startswith("an integer (123, 0x7B")


def test_parse_instruction_errors():
    with pytest.raises(PtxSyntaxError, match="unexpected 'exit'"):
        parse_instruction("ret; exit")
    with pytest.raises(PtxSyntaxError, match=r"<ptx>:1:13: error: missing operand"):
        parse_instruction("add.s32 %r1,, %r2;")


# ---------------------------------------------------------------- semantic checks, inline


@pytest.mark.parametrize("lines,line,col,message", [
    ("\tmov.u32 %r8, 0;", 0, 10, "undeclared register '%r8'"),  # %r<8> is %r0..%r7
    ("\tmov.u32 %r1, %tid.w;", 0, 15, "undeclared register '%tid.w'"),
    ("\tmov.u32 %r1, %laneid;\n\tmov.u32 %r2, %r1.x;", 1, 15, "undeclared register '%r1.x'"),
    ("\tst.global.u32 [%rd9], %r1;", 0, 17, "undeclared register '%rd9'"),
    ("\tmov.b64 {%r1, %r9}, %rd1;", 0, 16, "undeclared register '%r9'"),
    ("\tmov.u32 %r1, nothing;", 0, 15, "undeclared identifier 'nothing'"),
    ("\tld.param.u64 %rd1, [k_q];", 0, 22, "undeclared identifier 'k_q'"),
    ("\t{\n\t.reg .b32 t;\n\t}\n\tmov.u32 %r1, t;", 3, 15, "undeclared register 't'"),  # t's block is closed
    ("\t{\n\t.reg .pred %q;\n\t}\n\t@%q ret;", 3, 3, "undeclared register '%q'"),
    ("\tbra.uni L1;", 0, 10, "label 'L1' used but not defined"),
    ("L1:\nL1:", 1, 1, "duplicate label 'L1'"),
])
def test_inline_semantic_errors(lines, line, col, message):
    e = error_of(in_body(lines))
    assert isinstance(e, PtxSemanticError)
    assert (e.loc.line, e.loc.col) == (BODY_LINE + line, col), str(e)
    assert e.message == message


def test_check_accepts_scoped_and_special_names():
    text = in_body(
        "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r1, %nctaid.z;\n\tmov.u32 %r1, %warpid;\n\tmov.u32 %r1, %nwarpid;\n"
        "\tmov.u32 %r1, %smid;\n\tmov.u64 %rd1, %clock64;\n\tmov.u32 %r1, %clock;\n\tmov.u64 %rd1, %globaltimer;\n"
        "\tmov.u32 %r1, %lanemask_eq;\n\tmov.u32 %r1, %cluster_ctarank;\n\tmov.u32 %r1, %dynamic_smem_size;\n"
        "\tmov.u32 %r1, WARP_SZ;\n\tld.param.u64 %rd1, [k_p];\n\tmov.u64 %rd2, k_p;\n"
        "\t{\n\t.reg .pred p;\nL1:\n\t{\n\t@p bra L1;\n\t}\n\t}\n"
        "\t{\n\t.reg .pred p;\nL1:\n\t@!p bra L1;\n\t}\n"  # same names again in a sibling block: legal
    )
    check(parse(text))


def test_duplicate_labels_in_sibling_blocks_are_legal_but_not_in_one_block():
    ok = in_body("\t{\nW:\n\tbra W;\n\t}\n\t{\nW:\n\tbra W;\n\t}")
    check(parse(ok))
    e = error_of(in_body("\t{\nW:\nW:\n\t}"))
    assert e.message == "duplicate label 'W'" and e.loc.line == BODY_LINE + 2


# ---------------------------------------------------------------- fuzz: only located syntax errors


def assert_clean_failure(text: str):
    try:
        m = parse(text, "f.ptx")
    except PtxSyntaxError as e:
        lines = text.split("\n")
        assert e.loc.file == "f.ptx" and 1 <= e.loc.line <= len(lines) and e.loc.col >= 1
        assert e.loc.text == lines[e.loc.line - 1].rstrip("\r")
        assert re.match(r"f\.ptx:\d+:\d+: error: ", str(e)) and e.expected
        return
    try:
        check(m)
    except PtxSemanticError as e:
        assert e.loc is not None and e.expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(REAL)), frac=st.floats(0, 1))
def test_truncated_real_ptx_fails_cleanly(name, frac):
    text = REAL[name]
    assert_clean_failure(text[: int(len(text) * frac)])


@pytest.mark.parametrize("name", sorted(REAL))
def test_truncated_inside_a_function_fails_at_the_cut(name):
    """Everything before the cut is valid, so the error sits on the line of the last token."""
    text = REAL[name]
    cuts = 0
    for cut in range(text.index("{"), len(text), max(1, len(text) // 211)):
        piece = text[:cut]
        if piece.count("{") <= piece.count("}"):
            continue
        try:
            last_line = tokenize(piece)[-1].line
        except PtxSyntaxError:  # cut inside a /* comment */: the lexer names the comment
            last_line = None
        with pytest.raises(PtxSyntaxError) as e:
            parse(piece)
        if last_line is not None:
            assert e.value.loc.line == last_line, str(e.value)
        cuts += 1
    assert cuts > 50


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(REAL)), where=st.floats(0, 1),
       junk=st.sampled_from(list("#;,{}[]()<>@!+-|=:\"'`~^&*\\?") + ["/*", "0x", "0f12", ".", "..", "%", "\n", "U"]),
       delete=st.integers(0, 3))
def test_garbled_real_ptx_fails_cleanly(name, where, junk, delete):
    text = REAL[name]
    at = int(len(text) * where)
    assert_clean_failure(text[:at] + junk + text[at + delete:])
