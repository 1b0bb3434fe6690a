"""Recursive-descent PTX parser: ``parse(text) -> Module``.

Reads what ``nvcc -ptx`` writes (sm_90a, sm_100a): module header, ``.entry``/``.func`` with
parameter and return lists, performance directives, ``.reg``/variable declarations, labels,
guarded instructions, nested ``{ }`` scopes (flattened; each statement keeps its block path),
``.loc``/``.file`` debug lines, ``.callprototype``, and every operand form.

Every syntax error is a :class:`PtxSyntaxError` at the offending token (or just after the
previous token when something is missing at the end of a line).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from isa.errors import Loc, PtxSyntaxError
from isa.ptx.ast import (
    Addr, CallPrototype, Function, Guard, Imm, Instruction, Label, Module, Param, Pragma, Reg,
    RegDecl, Sym, VarDecl, Vec,
)
from isa.ptx.lexer import BAD, BADNUM, DIR, EOF, ID, NUM, PUNCT, STR, Token, tokenize

SPACES = ("reg", "sreg", "const", "global", "local", "param", "shared", "tex")
VAR_SPACES = ("const", "global", "local", "shared", "param", "tex")
LINKAGE = ("extern", "visible", "weak", "common")
TYPES = frozenset(
    "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f16 f16x2 bf16 bf16x2 tf32 f32 f64 pred "
    "e4m3 e5m2 e4m3x2 e5m2x2 e2m1x2 e2m3x2 e3m2x2 ue8m0x2 texref samplerref surfref".split()
)
VECTORS = {"v2": 2, "v4": 4, "v8": 8}
# function directives between the parameter list and the body: name -> takes integers
FUNC_DIRECTIVES = {
    "maxntid": True, "reqntid": True, "minnctapersm": True, "maxnctapersm": True, "maxnreg": True,
    "maxclusterrank": True, "reqnctapercluster": True, "explicitcluster": False, "noreturn": False,
    "blocksareclusters": False, "abi_preserve": True, "abi_preserve_control": True,
}
MODULE_ITEMS = "'.entry', '.func', a variable declaration (.global, .const, .shared) or a linkage (.visible, .extern, .weak)"
STATEMENT = "an instruction, a label, a declaration (.reg, .shared, .local, .param) or '}'"
OPERAND = "an operand (register, immediate, [address], {vector} or symbol)"


def _describe(tok: Token) -> str:
    if tok.kind == EOF:
        return "end of file"
    if tok.kind == PUNCT:
        return f"'{tok.text}'"
    if tok.kind == DIR:
        return f"directive '{tok.text}'"
    if tok.kind == NUM:
        return f"number '{tok.text}'"
    if tok.kind == STR:
        return f"string {tok.text}"
    if tok.kind == ID:
        return f"register '{tok.text}'" if tok.text.startswith("%") else f"'{tok.text}'"
    return f"'{tok.text}'"


class _Quals:
    """The dotted qualifiers of a declaration, in any order: space, type, vector, align, ptr."""

    __slots__ = ("space", "type", "vector", "align", "ptr_space", "linkage", "first")

    def __init__(self):
        self.space = self.type = self.vector = self.align = self.ptr_space = None
        self.linkage: list[str] = []
        self.first: Token | None = None


class _Parser:
    def __init__(self, text: str, file: str):
        self.text, self.file = text, file
        self.lines = text.split("\n")
        self.toks = tokenize(text, file, self.lines)
        self.i = 0
        # per-function state
        self.block: tuple[int, ...] = ()
        self.block_count = 0
        self.src_line: int | None = None

    # ------------------------------------------------------------ token helpers

    def loc(self, tok: Token, col: int | None = None) -> Loc:
        text = self.lines[tok.line - 1].rstrip("\r") if tok.line <= len(self.lines) else ""
        return Loc(self.file, tok.line, tok.col if col is None else col, text)

    def peek(self, k: int = 0) -> Token:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else self.toks[-1]

    def next(self) -> Token:
        tok = self.toks[self.i]
        if tok.kind != EOF:
            self.i += 1
        return tok

    def is_punct(self, ch: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == PUNCT and tok.text == ch

    def accept(self, ch: str) -> Token | None:
        if self.is_punct(ch):
            return self.next()
        return None

    def error(self, tok: Token, message: str, expected: str | None = None, col: int | None = None):
        raise PtxSyntaxError(self.loc(tok, col), message, expected=expected)

    def unexpected(self, tok: Token, expected: str, where: str = ""):
        """Raise the right error for ``tok`` standing where ``expected`` should be."""
        if tok.kind == BADNUM:
            self.error(tok, f"invalid immediate '{tok.text}': {tok.reason}",
                       "an integer (123, 0x7B, 0b1111011, 0173, 123U) or a float (0f3F800000, 0d3FF0000000000000, 1.5)")
        if tok.kind == BAD:
            self.error(tok, f"invalid character '{tok.text}'{where}", expected)
        self.error(tok, f"unexpected {_describe(tok)}{where}", expected)

    def missing_after(self, prev: Token, what: str, expected: str, where: str = ""):
        """Something is missing after ``prev``: point just past it when the next token is on a later line."""
        tok = self.peek()
        if tok.kind == EOF or tok.line != prev.line:
            msg = f"missing {what}{where}" if tok.kind != EOF else f"unexpected end of file, missing {what}{where}"
            self.error(prev, msg, expected, col=prev.end_col)
        self.unexpected(tok, expected, where)

    def expect_punct(self, ch: str, where: str = "", expected: str | None = None) -> Token:
        if self.is_punct(ch):
            return self.next()
        prev = self.toks[self.i - 1] if self.i else self.peek()
        self.missing_after(prev, f"'{ch}'", expected or f"'{ch}'", where)

    def expect_id(self, what: str, where: str = "") -> Token:
        tok = self.peek()
        if tok.kind == ID:
            return self.next()
        self.unexpected(tok, what, where)

    def expect_int(self, what: str, where: str = "") -> int:
        tok = self.peek()
        if tok.kind == NUM and tok.value[1] == "int":
            self.next()
            return tok.value[0]
        self.unexpected(tok, what, where)

    def skip_line(self, tok: Token) -> None:
        """Drop the rest of ``tok``'s line (``.loc``/``.file`` carry no ';')."""
        while self.peek().kind != EOF and self.peek().line == tok.line:
            self.next()

    # ------------------------------------------------------------ module

    def parse_module(self) -> Module:
        version = self.parse_version()
        target = self.parse_target()
        address_size = 32
        if self.peek().kind == DIR and self.peek().text == ".address_size":
            self.next()
            address_size = self.expect_int("an address size (32 or 64)", " after '.address_size'")
            if address_size not in (32, 64):
                self.error(self.toks[self.i - 1], f"invalid address size {address_size}", "32 or 64")
        functions, decls, globals_ = [], [], []
        self.verbatim: list[str] = []
        while self.peek().kind != EOF:
            item = self.parse_module_item()
            if isinstance(item, Function):
                (decls if item.body is None else functions).append(item)
            elif item is not None:
                globals_.extend(item)
        decls = [dataclasses.replace(d, body=()) for d in decls]
        return Module(version, target, address_size, tuple(functions), tuple(globals_),
                      file=self.file, source=self.text, decls=tuple(decls), verbatim=tuple(self.verbatim))

    def parse_version(self) -> tuple[int, int]:
        tok = self.peek()
        if not (tok.kind == DIR and tok.text == ".version"):
            self.error(tok, f"a PTX module must start with '.version', found {_describe(tok)}",
                       "'.version' (e.g. .version 9.0)")
        self.next()
        num = self.peek()
        parts = num.text.split(".")
        if num.kind != NUM or len(parts) != 2 or not all(p.isdigit() for p in parts):
            self.unexpected(num, "a version number MAJOR.MINOR (e.g. 9.0)", " after '.version'")
        self.next()
        return int(parts[0]), int(parts[1])

    def parse_target(self) -> tuple[str, ...]:
        tok = self.peek()
        if not (tok.kind == DIR and tok.text == ".target"):
            self.unexpected(tok, "'.target' (e.g. .target sm_90a)", " after '.version'")
        self.next()
        names = [self.expect_id("a target name (e.g. sm_90a)", " in '.target'").text]
        while self.accept(","):
            names.append(self.expect_id("a target name (e.g. sm_90a)", " in '.target'").text)
        return tuple(names)

    def parse_module_item(self):
        tok = self.peek()
        if tok.kind != DIR:
            self.unexpected(tok, MODULE_ITEMS, " at module scope")
        name = tok.text[1:]
        if name == "file":
            self.next()
            self.skip_line(tok)
            self.verbatim.append(self.lines[tok.line - 1].strip())
            return None
        if name == "pragma":
            self.next()
            text = self.parse_pragma_text(tok)
            self.expect_punct(";", " after '.pragma'")
            self.verbatim.append(f'.pragma "{text}";')
            return None
        if name == "section":
            self.skip_section(tok)
            return None
        linkage = []
        while self.peek().kind == DIR and self.peek().text[1:] in LINKAGE:
            linkage.append(self.next().text[1:])
        head = self.peek()
        if head.kind == DIR and head.text in (".entry", ".func"):
            return self.parse_function(linkage, tok)
        if head.kind == DIR and head.text.split(".")[1].split("::")[0] in VAR_SPACES:
            decls = self.parse_var_decls(linkage, tok)
            return decls
        if head.kind == DIR:
            self.error(head, f"unknown directive '{head.text}' at module scope", MODULE_ITEMS)
        self.unexpected(head, MODULE_ITEMS, " at module scope")

    def skip_section(self, tok: Token) -> None:
        """``.section .debug_xxx { ... }`` (``-G`` output): skipped, braces matched."""
        self.next()
        while self.peek().kind != EOF and not self.is_punct("{"):
            self.next()
        open_tok = self.expect_punct("{", " after '.section'")
        depth = 1
        while depth:
            t = self.next()
            if t.kind == EOF:
                self.error(t, "unexpected end of file in '.section'", f"'}}' to close the '{{' at {open_tok.line}:{open_tok.col}")
            if t.kind == PUNCT and t.text in "{}":
                depth += 1 if t.text == "{" else -1
        self.verbatim.append("\n".join(self.lines[tok.line - 1:t.line]).strip())

    # ------------------------------------------------------------ declarations

    def read_quals(self, where: str) -> _Quals:
        """Consume dotted qualifier tokens (``.param .u64 .ptr .global .align 8``, ``.reg .v4 .f32``)."""
        q = _Quals()
        after_ptr = False
        while self.peek().kind == DIR:
            tok = self.next()
            q.first = q.first or tok
            parts = tok.text[1:].split(".")
            for k, part in enumerate(parts):
                if part == "align":
                    if k != len(parts) - 1:
                        self.error(tok, f"'.align' must be followed by a number in '{tok.text}'", "'.align N'")
                    q.align = self.parse_align(where)
                elif part == "ptr":
                    q.ptr_space, after_ptr = "", True
                elif part in SPACES and after_ptr and q.space is not None:
                    q.ptr_space = part
                elif part in SPACES or part.split("::")[0] in SPACES:
                    q.space = part
                elif part in LINKAGE:
                    q.linkage.append(part)
                elif part in VECTORS:
                    q.vector = VECTORS[part]
                elif part in TYPES:
                    q.type = part
                else:
                    self.error(tok, f"unknown qualifier '.{part}'{where}",
                               "a state space (.reg .param .shared .global .local .const), a type (.b32 .u64 .f32 ...), "
                               ".align N, .v2/.v4 or .ptr")
        return q

    def parse_align(self, where: str) -> int:
        value = self.expect_int("an alignment (a power of two)", f" after '.align'{where}")
        if value <= 0 or value & (value - 1):
            self.error(self.toks[self.i - 1], f"alignment {value} is not a power of two", "a power of two (1, 2, 4, 8, 16 ...)")
        return value

    def need_type(self, q: _Quals, where: str) -> str:
        if q.type is None:
            self.unexpected(self.peek(), "a type (.b32, .u64, .f32, .pred ...)", where)
        return q.type

    def parse_dims(self, allow_empty: bool) -> tuple[int, ...]:
        dims = []
        while self.is_punct("["):
            open_tok = self.next()
            if self.is_punct("]") and allow_empty:
                self.next()
                dims.append(0)
                continue
            dims.append(self.expect_int("an array size", " in array declaration"))
            self.expect_punct("]", f" to close the '[' at {open_tok.line}:{open_tok.col}")
        return tuple(dims)

    def parse_var_decls(self, linkage: list[str], first: Token) -> list[VarDecl]:
        q = self.read_quals(" in variable declaration")
        linkage = linkage + q.linkage
        if q.space is None:
            self.unexpected(self.peek(), "a state space (.global .shared .local .const .param)", " in variable declaration")
        vtype = self.need_type(q, " in variable declaration")
        out = []
        while True:
            name_tok = self.expect_id("a variable name", " in variable declaration")
            dims = self.parse_dims(allow_empty=True)
            init = None
            if self.accept("="):
                init = self.parse_init(dims + ((q.vector,) if q.vector else ()))
            out.append(VarDecl(q.space, vtype, name_tok.text, align=q.align, dims=dims, init=init,
                               extern="extern" in linkage, visible="visible" in linkage, vector=q.vector,
                               loc=self.loc(first), weak="weak" in linkage, block=self.block))
            if not self.accept(","):
                break
        self.expect_punct(";", " after variable declaration", "';' (or ',' and another name)")
        return out

    def parse_init(self, shape: tuple[int, ...]) -> tuple:
        """``= v`` or ``= {...}``; ``shape`` is the array dims (plus the vector width)."""
        if self.is_punct("{"):
            return tuple(self.parse_init_list(shape[1:]))
        return (self.parse_init_value(),)

    def parse_init_list(self, inner: tuple[int, ...]) -> list:
        """``{a, b, {c, d}}`` flattened; a short inner list is padded to its sub-array size."""
        open_tok = self.expect_punct("{")
        size = 1
        for d in inner:
            size *= d
        out: list = []
        while True:
            if self.is_punct("{"):
                sub = self.parse_init_list(inner[1:])
                out.extend(sub)
                if self.is_punct(","):
                    out.extend([0] * (size - len(sub)))
            else:
                out.append(self.parse_init_value())
            if not self.accept(","):
                break
        if not self.accept("}"):
            self.missing_after(self.toks[self.i - 1], "'}'", f"',' or '}}' (to close the '{{' at {open_tok.line}:{open_tok.col})",
                               " in initialiser list")
        return out

    def parse_init_value(self):
        tok = self.peek()
        if tok.kind == ID:
            self.next()
            if tok.text == "generic" and self.accept("("):
                name = self.expect_id("a variable name", " in 'generic(...)'").text
                self.expect_punct(")", " after 'generic(name'")
                return Sym(f"generic({name})")
            return Sym(tok.text)
        neg = self.accept("-") is not None
        tok = self.peek()
        if tok.kind != NUM:
            self.unexpected(tok, "a constant initial value (number or symbol)", " in initialiser")
        self.next()
        value = tok.value[0]
        return -value if neg else value

    def parse_reg_decls(self, first: Token) -> list[RegDecl]:
        q = self.read_quals(" in '.reg' declaration")
        rtype = self.need_type(q, " in '.reg' declaration")
        out = []
        while True:
            name = self.expect_id("a register name", " in '.reg' declaration").text
            count = None
            if self.accept("<"):
                count = self.expect_int("a register count", f" in '{name}<N>'")
                self.expect_punct(">", f" after '{name}<{count}'")
            out.append(RegDecl(rtype, name, count=count, vector=q.vector, loc=self.loc(first), block=self.block))
            if not self.accept(","):
                break
        self.expect_punct(";", " after '.reg' declaration", "';' (or ',' and another register)")
        return out

    # ------------------------------------------------------------ functions

    def parse_param(self, where: str) -> Param:
        first = self.peek()
        if first.kind != DIR:
            self.unexpected(first, "a parameter declaration ('.param .TYPE name')", where)
        q = self.read_quals(where)
        ptype = self.need_type(q, where)
        name = self.expect_id("a parameter name", where)
        dims = self.parse_dims(allow_empty=False)
        return Param(ptype, name.text, align=q.align, dims=dims, space=q.space or "param",
                     ptr_space=q.ptr_space, loc=self.loc(name))

    def parse_param_list(self, where: str) -> tuple[Param, ...]:
        open_tok = self.expect_punct("(")
        params = []
        close = f"')' to close the '(' at {open_tok.line}:{open_tok.col}"
        if not self.is_punct(")"):
            while True:
                if self.peek().kind == EOF:
                    self.error(self.peek(), f"unexpected end of file{where}", f"a parameter declaration, then {close}")
                params.append(self.parse_param(where))
                if not self.accept(","):
                    break
        if not self.is_punct(")"):
            tok = self.peek()
            if tok.kind == EOF:
                self.error(tok, f"unexpected end of file{where}", close)
            self.unexpected(tok, "',' or ')'", where)
        self.next()
        return tuple(params)

    def parse_function(self, linkage: list[str], first: Token) -> Function:
        kind_tok = self.next()
        kind = kind_tok.text[1:]
        rets = ()
        if kind == "func" and self.is_punct("("):
            rets = self.parse_param_list(" in return parameter list")
        name_tok = self.expect_id("a function name", f" after '.{kind}'")
        name = name_tok.text
        params = ()
        if self.is_punct("("):
            params = self.parse_param_list(f" in parameter list of '{name}'")
        directives = self.parse_func_directives(name)
        common = dict(rets=rets, visible="visible" in linkage, extern="extern" in linkage,
                      directives=directives, loc=self.loc(name_tok), weak="weak" in linkage)
        if self.accept(";"):
            return Function(kind, name, params, None, **common)
        if not self.is_punct("{"):
            self.unexpected(self.peek(), "'{' (a function body) or ';' (a declaration)", f" after the header of '{name}'")
        reg_params = [p.name for p in rets + params if p.space == "reg"]
        body = self.parse_body(name, reg_params)
        return Function(kind, name, params, body, **common)

    def parse_func_directives(self, fname: str) -> tuple[str, ...]:
        out = []
        while self.peek().kind == DIR:
            tok = self.peek()
            name = tok.text[1:]
            if name == "pragma":
                self.next()
                out.append(f'.pragma "{self.parse_pragma_text(tok)}"')
                self.accept(";")
                continue
            if name not in FUNC_DIRECTIVES:
                self.error(tok, f"unknown directive '{tok.text}' in the header of '{fname}'",
                           "a performance directive (" + ", ".join("." + d for d in FUNC_DIRECTIVES) + "), '{' or ';'")
            self.next()
            if not FUNC_DIRECTIVES[name]:
                out.append(tok.text)
                continue
            values = [self.expect_int("an integer", f" after '{tok.text}'")]
            while self.accept(","):
                values.append(self.expect_int("an integer", f" in '{tok.text}'"))
            out.append(f"{tok.text} " + ", ".join(str(v) for v in values))
        return tuple(out)

    def parse_pragma_text(self, tok: Token) -> str:
        s = self.peek()
        if s.kind != STR:
            self.unexpected(s, 'a string (e.g. .pragma "nounroll";)', " after '.pragma'")
        self.next()
        return s.text[1:-1]

    # ------------------------------------------------------------ bodies

    def parse_body(self, fname: str, reg_params=()) -> tuple:
        open_tok = self.next()  # '{'
        self.block, self.block_count, self.src_line = (), 0, None
        opened = [open_tok]
        body: list = []
        while True:
            tok = self.peek()
            if tok.kind == PUNCT and tok.text == "}":
                self.next()
                opened.pop()
                if not opened:
                    break
                self.block = self.block[:-1]
            elif tok.kind == PUNCT and tok.text == "{":
                self.next()
                opened.append(tok)
                self.block = self.block + (self.block_count,)
                self.block_count += 1
            elif tok.kind == EOF:
                o = opened[-1]
                what = f"the body of '{fname}'" if len(opened) == 1 else "a '{ }' block"
                self.error(tok, f"unexpected end of file in {what}", f"'}}' to close the '{{' at {o.line}:{o.col}")
            else:
                self.parse_statement(body)
        self.block = ()
        return _as_registers(tuple(body), reg_params)

    def parse_statement(self, body: list) -> None:
        tok = self.peek()
        if tok.kind == DIR:
            self.parse_body_directive(tok, body)
        elif tok.kind == ID and self.is_punct(":", 1):
            self.next()
            self.next()
            if self.peek().kind == DIR and self.peek().text == ".callprototype":
                body.append(self.parse_callprototype(tok))
            else:
                body.append(Label(tok.text, loc=self.loc(tok), block=self.block))
        elif tok.kind == ID or (tok.kind == PUNCT and tok.text == "@"):
            body.append(self.parse_instruction())
        else:
            self.unexpected(tok, STATEMENT)

    def parse_body_directive(self, tok: Token, body: list) -> None:
        name = tok.text[1:]
        if name == "reg":
            body.extend(self.parse_reg_decls(tok))
        elif name == "loc":
            self.next()
            self.expect_int("a file number", " after '.loc'")
            self.src_line = self.expect_int("a line number", " in '.loc'")
            self.skip_line(tok)
        elif name == "pragma":
            self.next()
            text = self.parse_pragma_text(tok)
            self.expect_punct(";", " after '.pragma'")
            body.append(Pragma(text, loc=self.loc(tok), block=self.block))
        elif name.split(".")[0].split("::")[0] in VAR_SPACES + LINKAGE:
            linkage = []
            while self.peek().kind == DIR and self.peek().text[1:] in LINKAGE:
                linkage.append(self.next().text[1:])
            body.extend(self.parse_var_decls(linkage, tok))
        else:
            self.error(tok, f"unknown directive '{tok.text}' in a function body",
                       "'.reg', '.shared', '.local', '.param', '.const', '.pragma', '.loc', an instruction or a label")

    def parse_callprototype(self, name_tok: Token) -> CallPrototype:
        self.next()  # .callprototype
        rets = ()
        if self.is_punct("("):
            rets = self.parse_param_list(" in '.callprototype' return list")
        underscore = self.peek()
        if not (underscore.kind == ID and underscore.text == "_"):
            self.unexpected(underscore, "'_' (the placeholder function name)", " in '.callprototype'")
        self.next()
        params = ()
        if self.is_punct("("):
            params = self.parse_param_list(" in '.callprototype' parameter list")
        self.expect_punct(";", " after '.callprototype'")
        return CallPrototype(name_tok.text, rets, params, loc=self.loc(name_tok), block=self.block)

    # ------------------------------------------------------------ instructions

    def parse_instruction(self) -> Instruction:
        guard = None
        if self.accept("@"):
            negated = self.accept("!") is not None
            reg = self.expect_id("a predicate register", " in guard '@'")
            guard = Guard(reg.text, negated)
        op = self.peek()
        if op.kind != ID or not op.text[0].isalpha():
            self.unexpected(op, "an instruction opcode (e.g. add.s32)", " after guard" if guard else "")
        self.next()
        parts = op.text.split(".")
        operands = []
        where = f" in '{op.text}'"
        if not self.is_punct(";") and self.next_line_starts_statement(op):
            self.missing_after(op, "';'", "';' or an operand", f" at end of '{op.text}'")
        if not self.is_punct(";"):
            while True:
                operands.append(self.parse_operand(where))
                if self.accept(","):
                    continue
                if self.is_punct(";"):
                    break
                prev, tok = self.toks[self.i - 1], self.peek()
                if tok.kind != EOF and tok.line == prev.line:
                    self.unexpected(tok, "',' or ';'", f" after operand {len(operands)} of '{op.text}'")
                self.missing_after(prev, "';'", "',' or ';'", f" at end of '{op.text}'")
        self.next()  # ';'
        return Instruction(parts[0], tuple(parts[1:]), tuple(operands), guard, loc=self.loc(op),
                           src_line=self.src_line, block=self.block)

    def next_line_starts_statement(self, prev: Token) -> bool:
        """After an opcode: is the next token, on a later line, clearly the start of another statement?"""
        tok = self.peek()
        if tok.kind == EOF:
            return True
        if tok.line == prev.line:
            return False
        if tok.kind == DIR or (tok.kind == PUNCT and tok.text in "@}"):
            return True
        if tok.kind == ID:
            after = self.peek(1)
            return (after.kind == PUNCT and after.text == ":") or after.kind in (ID, NUM) or (
                after.kind == PUNCT and after.text in "[{")
        return False

    def parse_operand(self, where: str):
        tok = self.peek()
        if tok.kind == ID:
            self.next()
            first = Reg(tok.text) if tok.text.startswith("%") or tok.text == "_" else Sym(tok.text)
            if self.accept("|"):
                second = self.expect_id("a predicate register", f" after '|'{where}")
                return Vec((first, Reg(second.text) if second.text.startswith("%") else Sym(second.text)), "|")
            return first
        if tok.kind == PUNCT:
            ch = tok.text
            if ch == "[":
                return self.parse_address(where)
            if ch == "{":
                return self.parse_vector(where)
            if ch == "(":
                return self.parse_paren_list(where)
            if ch == "-":
                return self.parse_imm(where)
            if ch in ",;":
                self.error(tok, f"missing operand{where}", OPERAND)
        if tok.kind == NUM:
            return self.parse_imm(where)
        self.unexpected(tok, OPERAND, where)

    def parse_imm(self, where: str) -> Imm:
        neg = self.accept("-")
        tok = self.peek()
        if tok.kind != NUM:
            self.unexpected(tok, "a number after '-'" if neg else "a number", where)
        self.next()
        value, kind, bits = tok.value
        text = tok.text
        if neg:
            text = "-" + text
            value = -value
            if kind == "f32":
                bits ^= 1 << 31
            elif kind == "f64":
                bits ^= 1 << 63
        return Imm(value, kind, bits, text)

    def parse_vector(self, where: str) -> Vec:
        open_tok = self.next()
        items = []
        while True:
            tok = self.peek()
            if tok.kind == ID:
                self.next()
                items.append(Reg(tok.text) if tok.text.startswith("%") or tok.text == "_" else Sym(tok.text))
            elif tok.kind == NUM or (tok.kind == PUNCT and tok.text == "-"):
                items.append(self.parse_imm(where))
            elif tok.kind == PUNCT and tok.text in ",}":
                self.error(tok, f"missing vector element{where}", "a register, '_' or an immediate")
            else:
                self.unexpected(tok, "a register, '_' or an immediate", f" in vector operand{where}")
            if self.accept(","):
                continue
            if self.accept("}"):
                return Vec(tuple(items))
            self.missing_after(self.toks[self.i - 1], "'}'", f"'}}' to close the '{{' at {open_tok.line}:{open_tok.col}",
                               f" in vector operand{where}")

    def parse_paren_list(self, where: str) -> Vec:
        open_tok = self.next()
        items = []
        if not self.is_punct(")"):
            while True:
                tok = self.expect_id("a parameter name", f" in '(...)' list{where}")
                items.append(Reg(tok.text) if tok.text.startswith("%") or tok.text == "_" else Sym(tok.text))
                if not self.accept(","):
                    break
        if not self.accept(")"):
            self.missing_after(self.toks[self.i - 1], "')'", f"')' to close the '(' at {open_tok.line}:{open_tok.col}",
                               f" in '(...)' list{where}")
        return Vec(tuple(items), "()")

    def parse_address(self, where: str) -> Addr:
        open_tok = self.next()
        tok = self.peek()
        base = None
        offset = 0
        if tok.kind == ID:
            self.next()
            base = Reg(tok.text) if tok.text.startswith("%") else Sym(tok.text)
            if self.is_punct("+") or self.is_punct("-"):
                sign = -1 if self.next().text == "-" else 1
                offset = sign * self.parse_offset(where)
        elif tok.kind == NUM or (tok.kind == PUNCT and tok.text == "-"):
            offset = self.parse_offset(where)
        elif tok.kind == PUNCT and tok.text == "]":
            self.error(tok, f"empty address '[]'{where}", "a register, a variable name or an integer address")
        else:
            self.unexpected(tok, "a register, a variable name or an integer address", f" in address{where}")
        if not self.accept("]"):
            tok = self.peek()
            if tok.kind != EOF and tok.line == self.toks[self.i - 1].line:
                self.unexpected(tok, "']'" if base is None or offset else "'+', '-' or ']'", f" in address{where}")
            self.missing_after(self.toks[self.i - 1], "']'", f"']' to close the '[' at {open_tok.line}:{open_tok.col}",
                               f" in address{where}")
        return Addr(base, offset)

    def parse_offset(self, where: str) -> int:
        imm = self.parse_imm(f" in address{where}")
        if imm.kind != "int":
            self.error(self.toks[self.i - 1], f"address offset '{imm.text}' is not an integer", "an integer offset")
        return imm.value


# ---------------------------------------------------------------- post-pass


def _as_registers(body: tuple, reg_params=()) -> tuple:
    """Bare names declared with ``.reg`` (``.reg .pred p;``, ``.reg`` parameters) are registers, not symbols."""
    names = {n for n in reg_params if not n.startswith("%")}
    for s in body:
        if isinstance(s, RegDecl) and not s.name.startswith("%"):
            names.update(s.names())
    if not names:
        return body
    out = []
    for s in body:
        if isinstance(s, Instruction) and any(_mentions(op, names) for op in s.operands):
            s = dataclasses.replace(s, operands=tuple(_rename(op, names) for op in s.operands))
        out.append(s)
    return tuple(out)


def _mentions(op, names) -> bool:
    if isinstance(op, Sym):
        return op.name in names
    if isinstance(op, Addr):
        return isinstance(op.base, Sym) and op.base.name in names
    if isinstance(op, Vec):
        return any(_mentions(x, names) for x in op.items)
    return False


def _rename(op, names):
    if isinstance(op, Sym) and op.name in names:
        return Reg(op.name)
    if isinstance(op, Addr) and isinstance(op.base, Sym) and op.base.name in names:
        return Addr(Reg(op.base.name), op.offset)
    if isinstance(op, Vec):
        return Vec(tuple(_rename(x, names) for x in op.items), op.delim)
    return op


# ---------------------------------------------------------------- public


def parse(text: str, file: str = "<ptx>") -> Module:
    """Parse a whole PTX module. Raises :class:`PtxSyntaxError` on the first syntax error."""
    return _Parser(text, file).parse_module()


def parse_file(path) -> Module:
    """Parse the PTX file at ``path`` (errors name the path)."""
    p = Path(path)
    return parse(p.read_text(), str(p))


def parse_instruction(text: str, file: str = "<ptx>") -> Instruction:
    """Parse one instruction (``@%p1 add.s32 %r1, %r2, 3;``); the trailing ';' may be omitted."""
    if not text.rstrip().endswith(";"):
        text = text.rstrip() + ";"
    p = _Parser(text, file)
    ins = p.parse_instruction()
    if p.peek().kind != EOF:
        p.unexpected(p.peek(), "end of input after the instruction")
    return ins
