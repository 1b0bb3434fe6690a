"""The PTX lexer: text -> a list of :class:`Token`.

One compiled regular expression does the work. Words keep their dotted and ``::`` parts
(``mma.sp::ordered_metadata.sync``, ``%tid.x``, ``.ptr.global.align``) so the parser splits them
itself. Bad characters and malformed numbers become ``bad``/``badnum`` tokens rather than
errors, so the parser can say what it expected in their place. Only an unterminated comment or
string stops the lexer.
"""
from __future__ import annotations

import math
import re
import struct

from isa.errors import Loc, PtxSyntaxError

# kinds
ID, DIR, NUM, BADNUM, STR, PUNCT, BAD, EOF = "id", "dir", "num", "badnum", "str", "punct", "bad", "eof"

_PART = r"(?:(?:\.|::)[A-Za-z0-9_$]+)*"
_TOKEN_RE = re.compile(
    r"""
     (?P<ws>[ \t\r\f\v]+)
    |(?P<nl>\n)
    |(?P<lc>//[^\n]*)
    |(?P<bc>/\*.*?\*/)
    |(?P<ubc>/\*)
    |(?P<dir>\.[A-Za-z_][A-Za-z0-9_$]*""" + _PART + r""")
    |(?P<id>(?:[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+|_)""" + _PART + r""")
    |(?P<num>0[xXbBfFdD][A-Za-z0-9_]*
            |[0-9][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]*)?(?:(?<=[eE])[+-][0-9]+)?)
    |(?P<str>"(?:[^"\\\n]|\\.)*")
    |(?P<ustr>")
    |(?P<punct>[,;:{}\[\]()<>@!+\-|=])
    |(?P<bad>.)
    """,
    re.X | re.S,
)

_HEX = "0123456789abcdefABCDEF"


class Token:
    """One token: ``kind``, ``text`` as written, 1-based ``line``/``col`` of its first character
    and ``end_col`` one past its last (on ``line``). ``value`` holds a number's
    ``(value, kind, bits)``; ``reason`` why a ``badnum`` is bad."""

    __slots__ = ("kind", "text", "line", "col", "end_col", "value", "reason")

    def __init__(self, kind, text, line, col, end_col, value=None, reason=""):
        self.kind, self.text, self.line, self.col, self.end_col = kind, text, line, col, end_col
        self.value, self.reason = value, reason

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r}, {self.line}:{self.col})"


def _f32(bits: int) -> float:
    x = struct.unpack("<f", struct.pack("<I", bits))[0]
    return math.nan if x != x else x  # one shared NaN object keeps AST equality reflexive


def _f64(bits: int) -> float:
    x = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return math.nan if x != x else x


def f64_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _int_body(text: str, base: int, digits: str, what: str, prefix: str = ""):
    """Value of an integer literal's digits after ``prefix`` (``U`` suffix allowed), or why it is bad."""
    body = text[:-1] if text[-1:] in ("u", "U") else text
    if not body:
        return None, f"'{prefix}' needs at least one {what} digit"
    for ch in body:
        if ch not in digits:
            return None, f"invalid {what} digit '{ch}'"
    value = int(body, base)
    if value >= 1 << 64:
        return None, "integer constant does not fit in 64 bits"
    return value, ""


_DEC_FLOAT = re.compile(r"[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+")
_DEC_INT = re.compile(r"([0-9]+)(.*)", re.S)


def _int(value, why):
    return ((value, "int", None), "") if not why else (None, why)


def classify_number(text: str):
    """``((value, kind, bits), "")`` for a valid PTX numeric literal, ``(None, reason)`` otherwise.

    kinds: ``int`` (decimal, ``0x`` hex, ``0b`` binary, ``0`` octal, optional ``U``), ``f32``
    (``0f`` + 8 hex digits), ``f64`` (``0d`` + 16 hex digits, or a decimal float)."""
    head = text[:2].lower()
    if head in ("0f", "0d"):
        width = 8 if head == "0f" else 16
        digits = text[2:]
        if len(digits) != width or any(c not in _HEX for c in digits):
            return None, f"'{text[:2]}' must be followed by exactly {width} hex digits"
        bits = int(digits, 16)
        return ((_f32(bits), "f32", bits) if width == 8 else (_f64(bits), "f64", bits)), ""
    if head == "0x":
        return _int(*_int_body(text[2:], 16, _HEX, "hex", text[:2]))
    if head == "0b":
        return _int(*_int_body(text[2:], 2, "01", "binary", text[:2]))
    if _DEC_FLOAT.fullmatch(text):
        value = float(text)
        if math.isinf(value):
            return None, "floating-point constant out of range"
        return (value, "f64", f64_bits(value)), ""
    digits, rest = _DEC_INT.fullmatch(text).groups()
    if rest not in ("", "u", "U"):
        return None, f"invalid suffix '{rest}' on integer constant"
    if len(digits) > 1 and digits[0] == "0":
        return _int(*_int_body(text[1:], 8, "01234567", "octal", "0"))
    return _int(*_int_body(text, 10, "0123456789", "decimal"))


def tokenize(text: str, file: str = "<ptx>", lines: list[str] | None = None) -> list[Token]:
    """All tokens of ``text`` with an ``eof`` token at the end (placed just after the last token)."""
    toks: list[Token] = []
    append = toks.append
    line, line_start = 1, 0
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind == "ws" or kind == "lc":
            continue
        start = m.start()
        if kind == "nl":
            line, line_start = line + 1, start + 1
            continue
        col = start - line_start + 1
        s = m.group()
        if kind == "bc":
            n = s.count("\n")
            if n:
                line, line_start = line + n, start + s.rfind("\n") + 1
            continue
        if kind == "num":
            value, reason = classify_number(s)
            if value is None:
                append(Token(BADNUM, s, line, col, col + len(s), reason=reason))
            else:
                append(Token(NUM, s, line, col, col + len(s), value))
            continue
        if kind == "ubc" or kind == "ustr":
            lines = lines if lines is not None else text.split("\n")
            what = "comment" if kind == "ubc" else "string"
            raise PtxSyntaxError(Loc(file, line, col, lines[line - 1].rstrip("\r")),
                                 f"unterminated {what}", expected="'*/'" if kind == "ubc" else "a closing '\"'")
        append(Token(kind, s, line, col, col + len(s)))
    if toks:
        last = toks[-1]
        append(Token(EOF, "", last.line, last.end_col, last.end_col))
    else:
        append(Token(EOF, "", 1, 1, 1))
    return toks
