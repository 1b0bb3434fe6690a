"""print -> parse is the identity: on random instructions and modules (hypothesis) and on every
real PTX file under tests/ptx (parse -> print -> parse); printed real files still assemble."""
from __future__ import annotations

import math
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from isa.ptx import format_instruction, format_module, parse, parse_file, parse_instruction
from isa.ptx.ast import (
    Addr, CallPrototype, Function, Guard, Imm, Instruction, Label, Module, Param, Pragma, Reg, RegDecl, Sym,
    VarDecl, Vec,
)

PTX = Path(__file__).parent / "ptx"
REAL = sorted(p for p in PTX.rglob("*.ptx") if "bad" not in p.relative_to(PTX).parts)

# ---------------------------------------------------------------- strategies: operands

_tail = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$", max_size=8)
SPECIALS = ["%tid.x", "%ntid.y", "%ctaid.z", "%nctaid.x", "%laneid", "%warpid", "%nwarpid", "%smid", "%clock",
            "%clock64", "%globaltimer", "%lanemask_eq", "%lanemask_lt", "%cluster_ctarank", "%dynamic_smem_size"]
reg_names = st.one_of(
    st.builds(lambda p, n: f"%{p}{n}", st.sampled_from(["r", "rd", "f", "fd", "p", "rs", "SP"]), st.integers(0, 999)),
    st.builds(lambda t: "%" + "r" + t, _tail),
    st.sampled_from(SPECIALS),
    st.builds(lambda n, c: f"%v{n}.{c}", st.integers(0, 9), st.sampled_from("xyzw")),
)
sym_names = st.one_of(
    st.builds(lambda a, b: f"$L__BB{a}_{b}", st.integers(0, 20), st.integers(0, 500)),
    st.builds(lambda t: "s_" + t, _tail),
    st.builds(lambda t: "__$" + t, _tail),
    st.sampled_from(["WARP_SZ", "param0", "retval0", "func_retval0", "_Z6kernelPf_param_0", "smem", "$str"]),
)
regs = st.builds(Reg, reg_names)
syms = st.builds(Sym, sym_names)


def _f32(bits):
    x = struct.unpack("<f", struct.pack("<I", bits))[0]
    return math.nan if x != x else x  # the parser's one NaN object: NaN immediates compare equal


def _f64(bits):
    x = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return math.nan if x != x else x


@st.composite
def int_imms(draw):
    v = draw(st.one_of(st.integers(0, 300), st.integers(0, 2**64 - 1)))
    form = draw(st.sampled_from(["dec", "hex", "HEX", "oct", "bin"]))
    text = {"dec": str(v), "hex": f"0x{v:x}", "HEX": f"0X{v:X}", "oct": "0" + format(v, "o"), "bin": f"0b{v:b}"}[form]
    if draw(st.booleans()):
        text += draw(st.sampled_from("uU"))
    if v and draw(st.booleans()):
        return Imm(-v, "int", None, "-" + text)
    return Imm(v, "int", None, text)


@st.composite
def hex_float_imms(draw):
    if draw(st.booleans()):
        bits = draw(st.integers(0, 2**32 - 1))
        text, value, kind = draw(st.sampled_from(["0f", "0F"])) + f"{bits:08X}", _f32(bits), "f32"
    else:
        bits = draw(st.integers(0, 2**64 - 1))
        text, value, kind = draw(st.sampled_from(["0d", "0D"])) + f"{bits:016x}", _f64(bits), "f64"
    return Imm(value, kind, bits, text)


@st.composite
def dec_float_imms(draw):
    x = draw(st.floats(min_value=0, allow_nan=False, allow_infinity=False))
    text = repr(x)
    if draw(st.booleans()) and x:
        x, text = -x, "-" + text
    return Imm(x, "f64", struct.unpack("<Q", struct.pack("<d", x))[0], text)


imms = st.one_of(int_imms(), hex_float_imms(), dec_float_imms())
addrs = st.builds(Addr, st.one_of(regs, syms, st.none()), st.integers(-2**31, 2**31))
vec_items = st.one_of(regs, st.just(Reg("_")), int_imms())
operands = st.one_of(
    regs, syms, imms, addrs, st.just(Reg("_")),
    st.builds(lambda xs: Vec(tuple(xs)), st.lists(vec_items, min_size=1, max_size=8)),
    st.builds(lambda xs: Vec(tuple(xs), "()"), st.lists(st.one_of(syms, regs), max_size=4)),
    st.builds(lambda a, b: Vec((a, b), "|"), regs, regs),
)

OPCODES = ["mma", "tcgen05", "ld", "st", "add", "mov", "bra", "setp", "cvt", "elect", "mbarrier", "call", "ldmatrix",
           "fence", "atom", "wgmma", "cp", "exit", "ret", "bar", "selp", "fma", "shfl"]
MODS = ["sp::ordered_metadata", "sp", "sync", "aligned", "m16n8k32", "m16n8k64", "row", "col", "f32", "f16", "bf16",
        "e4m3", "e2m1", "kind::f8f6f4", "kind::mxf4nvf4", "kind::f16", "block_scale", "scale_vec::2X",
        "scale_vec::4X", "cta_group::1", "cta_group::2", "shared::cta", "shared::cluster", "mbarrier::arrive::one",
        "16x64b", "32x32b", "x1", "x128", "pack::16b", "v4", "b32", "u64", "satfinite", "wait::ld",
        "fence::before_thread_sync", "uni", "global", "nc", "L2::cache_hint", "relu"]
opcodes = st.one_of(st.sampled_from(OPCODES),
                    st.builds(lambda a, t: a + t, st.sampled_from("abcdefghijklmnopqrstuvwxyz"), _tail))
mods = st.one_of(st.sampled_from(MODS), st.from_regex(r"[A-Za-z0-9_]{1,6}(::[A-Za-z0-9_]{1,4}){0,2}", fullmatch=True))
guards = st.one_of(st.none(), st.builds(Guard, st.one_of(reg_names, st.just("p")), st.booleans()))
instructions = st.builds(lambda o, m, ops, g: Instruction(o, tuple(m), tuple(ops), g),
                         opcodes, st.lists(mods, max_size=12), st.lists(operands, max_size=7), guards)


@settings(max_examples=600, deadline=None)
@given(ins=instructions)
def test_instruction_roundtrip(ins):
    text = format_instruction(ins)
    back = parse_instruction(text)
    assert back == ins, text
    assert format_instruction(back) == text


# ---------------------------------------------------------------- strategies: modules

INT_TYPES = ["b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"]
FLOAT_TYPES = ["f32", "f64"]
aligns = st.sampled_from([None, 1, 2, 4, 8, 16, 128])


@st.composite
def init_values(draw, vtype, n):
    if vtype == "f32":
        vals = draw(st.lists(st.floats(width=32, allow_nan=False), min_size=1, max_size=n))
    elif vtype == "f64":
        vals = draw(st.lists(st.floats(allow_nan=False), min_size=1, max_size=n))
    elif vtype == "u64" and draw(st.booleans()):
        vals = draw(st.lists(syms, min_size=1, max_size=n))
    else:
        vals = draw(st.lists(st.integers(-2**31, 2**32 - 1), min_size=1, max_size=n))
    return tuple(vals)


@st.composite
def var_decls(draw, name, spaces, top_level):
    space = draw(st.sampled_from(spaces))
    vtype = draw(st.sampled_from(INT_TYPES + FLOAT_TYPES))
    extern = top_level and space == "shared" and draw(st.booleans())
    vector = None if extern else draw(st.sampled_from([None, None, 2, 4]))
    if extern:
        dims = (0,)
    else:
        dims = tuple(draw(st.lists(st.integers(1, 6), max_size=3)))
    count = 1
    for d in dims + ((vector,) if vector else ()):
        count *= d
    init = None
    if not extern and space in ("global", "const") and draw(st.booleans()):
        init = draw(init_values(vtype, count if (dims or vector) else 1))
    visible = top_level and not extern and draw(st.booleans())
    weak = top_level and not extern and not visible and draw(st.booleans())
    return VarDecl(space, vtype, name, align=draw(aligns), dims=dims, init=init, extern=extern, visible=visible,
                   vector=vector, weak=weak)


@st.composite
def params(draw, name, allow_reg):
    space = "reg" if allow_reg and draw(st.booleans()) else "param"
    ptype = draw(st.sampled_from(INT_TYPES + FLOAT_TYPES + ["pred"] if space == "reg" else INT_TYPES + FLOAT_TYPES))
    ptr_space = None
    if space == "param" and ptype in ("u64", "b64", "s64") and draw(st.booleans()):
        ptr_space = draw(st.sampled_from(["", "global", "shared", "const", "local"]))
    dims = () if ptr_space is not None or space == "reg" else tuple(draw(st.lists(st.integers(1, 64), max_size=1)))
    return Param(ptype, name, align=draw(aligns) if space == "param" else None, dims=dims, space=space,
                 ptr_space=ptr_space)


DIRECTIVES = [".maxntid 128, 1, 1", ".reqntid 64", ".minnctapersm 2", ".maxnreg 64", ".maxclusterrank 8",
              ".reqnctapercluster 2, 1, 1", ".explicitcluster", ".noreturn", '.pragma "nounroll"']


@st.composite
def statements(draw, fname, depth=0):
    """A body: a list of statements and nested blocks (lists), never an empty block."""
    kind = draw(st.sampled_from(["ins", "ins", "ins", "reg", "var", "label", "pragma", "proto", "block"]))
    n = draw(st.integers(0, 10**6))
    if kind == "block" and depth < 3:
        return draw(st.lists(statements(fname, depth + 1), min_size=1, max_size=5))
    if kind == "reg":
        return RegDecl(draw(st.sampled_from(INT_TYPES + FLOAT_TYPES + ["pred"])), f"%{fname}_r{n}",
                       count=draw(st.one_of(st.none(), st.integers(0, 300))), vector=draw(st.sampled_from([None, 2, 4])))
    if kind == "var":
        return draw(var_decls(f"{fname}_v{n}", ["shared", "local", "param"], top_level=False))
    if kind == "label":
        return Label(f"$L__{fname}_{n}")
    if kind == "pragma":
        return Pragma(draw(st.sampled_from(["nounroll", "used_bytes_mask 0xffff", "enable_smem_spilling"])))
    if kind == "proto":
        rets = tuple(draw(st.lists(params("_", False), max_size=1)))
        return CallPrototype(f"prototype_{n}", rets, tuple(draw(st.lists(params("_", False), max_size=3))))
    return draw(instructions)


def flatten(items, out, path, counter):
    for it in items:
        if isinstance(it, list):
            bid = counter[0]
            counter[0] += 1
            flatten(it, out, path + (bid,), counter)
        else:
            out.append(type(it)(**{**it.__dict__, "block": path}) if hasattr(it, "block") else it)
    return out


@st.composite
def functions(draw, name, declaration):
    kind = draw(st.sampled_from(["entry", "func"]))
    rets = tuple(draw(st.lists(params(f"{name}_ret", False), max_size=1))) if kind == "func" else ()
    ps = tuple(draw(params(f"{name}_param_{i}", kind == "func")) for i in range(draw(st.integers(0, 4))))
    body = ()
    if not declaration:
        body = tuple(flatten(draw(st.lists(statements(name), max_size=25)), [], (), [0]))
    flags = draw(st.sampled_from(["", "visible", "weak", "extern"] if declaration else ["", "visible", "weak"]))
    return Function(kind, name, ps, body, rets=rets, visible=flags == "visible", extern=flags == "extern",
                    weak=flags == "weak", directives=tuple(draw(st.lists(st.sampled_from(DIRECTIVES), max_size=3))))


@st.composite
def modules(draw):
    targets = draw(st.lists(st.sampled_from(["sm_90a", "sm_100a", "sm_80", "texmode_independent", "debug"]),
                            min_size=1, max_size=3, unique=True))
    decls = tuple(draw(functions(f"decl{i}", True)) for i in range(draw(st.integers(0, 2))))
    globals_ = tuple(draw(var_decls(f"g{i}", ["global", "const", "shared"], True)) for i in range(draw(st.integers(0, 4))))
    funcs = tuple(draw(functions(f"fn{i}", False)) for i in range(draw(st.integers(0, 3))))
    return Module((draw(st.integers(1, 9)), draw(st.integers(0, 9))), tuple(targets), draw(st.sampled_from([32, 64])),
                  funcs, globals_, decls=decls)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(m=modules())
def test_module_roundtrip(m):
    text = format_module(m)
    back = parse(text)
    assert back == m, text
    assert format_module(back) == text
    for f, g in zip(m.functions, back.functions):
        assert [getattr(s, "block", None) for s in f.body] == [getattr(s, "block", None) for s in g.body], text


def test_roundtrip_detects_a_difference():
    """The property above is not vacuous: a changed modifier or operand is seen."""
    ins = parse_instruction("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
                            "{%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3,%r4}, {%f1,%f2,%f3,%f4}, %r5, 0x0;")
    text = format_instruction(ins)
    assert parse_instruction(text.replace("m16n8k32", "m16n8k16")) != ins
    assert parse_instruction(text.replace("0x0", "0")) != ins  # Imm.text is compared
    assert parse_instruction(text.replace("%r5", "%r6")) != ins


# ---------------------------------------------------------------- every real PTX file


def test_real_files_found():
    names = {p.name for p in REAL}
    assert {"basic.ptx", "mma_sp.ptx", "misc.ptx", "linkage.ptx", "tcgen05.ptx", "handwritten.ptx"} <= names


@pytest.mark.parametrize("path", REAL, ids=[str(p.relative_to(PTX)) for p in REAL])
def test_real_file_roundtrip(path):
    m = parse_file(path)
    text = format_module(m)
    back = parse(text, "printed.ptx")
    assert back == m
    assert format_module(back) == text
    for f, g in zip(m.functions, back.functions):
        assert [getattr(s, "block", ()) for s in f.body] == [getattr(s, "block", ()) for s in g.body]
    assert sum(len(f.body) for f in m.functions) > 0


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
@pytest.mark.parametrize("path", REAL, ids=[str(p.relative_to(PTX)) for p in REAL])
def test_printed_real_file_assembles(path, tmp_path):
    m = parse_file(path)
    out = tmp_path / "printed.ptx"
    out.write_text(format_module(m))
    r = subprocess.run(["ptxas", "-c", f"-arch={m.arch}", str(out), "-o", str(tmp_path / "o.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
