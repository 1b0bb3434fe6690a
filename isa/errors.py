"""Errors meant for people.

Every error names *where* (file:line:col with the source line and a caret, or the lane and
instruction), *what* went wrong, and *what was expected*.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A place in a PTX source: 1-based line and column, plus the whole source line."""

    file: str
    line: int
    col: int
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def caret(self) -> str:
        """The source line with a caret under the column (empty when the text is unknown)."""
        if not self.text:
            return ""
        pad = "".join("\t" if ch == "\t" else " " for ch in self.text[: max(self.col - 1, 0)])
        return f"    {self.text}\n    {pad}^"


class WarpsimError(Exception):
    """Base of every error warpsim raises on purpose."""


class PtxError(WarpsimError):
    """Something wrong in a PTX source, located."""

    def __init__(self, loc: Loc | None, message: str, expected: str | None = None):
        self.loc, self.message, self.expected = loc, message, expected
        super().__init__(self._render())

    def _render(self) -> str:
        head = f"{self.loc}: error: {self.message}" if self.loc else f"error: {self.message}"
        parts = [head]
        if self.loc and self.loc.caret():
            parts.append(self.loc.caret())
        if self.expected:
            parts.append(f"    expected {self.expected}")
        return "\n".join(parts)


class PtxSyntaxError(PtxError):
    """The text does not parse."""


class PtxSemanticError(PtxError):
    """The text parses but is not a valid program (undeclared register, wrong operand count, ...)."""


class UnsupportedInstruction(PtxError):
    """A valid PTX instruction warpsim does not model. Never silently skipped."""


class IllegalInstruction(PtxError):
    """An instruction form the target architecture cannot run (refused as ptxas refuses it)."""


class UndefinedBehavior(WarpsimError):
    """The program did something the PTX ISA leaves undefined.

    ``rule`` names the rule (with its PTX ISA section), ``lane`` and ``value`` say where and what.
    """

    def __init__(self, rule: str, *, lane: int | None = None, value=None, where: str = "", detail: str = ""):
        self.rule, self.lane, self.value, self.where, self.detail = rule, lane, value, where, detail
        msg = f"undefined behaviour: {rule}"
        if lane is not None:
            msg += f"; lane {lane}"
        if value is not None:
            msg += f"; value {value:#x}" if isinstance(value, int) else f"; value {value}"
        if detail:
            msg += f"; {detail}"
        if where:
            msg = f"{where}: {msg}"
        super().__init__(msg)


class LocatedUndefinedBehavior(UndefinedBehavior):
    """An :class:`UndefinedBehavior` built from its whole message (the location is in it), so that it can be
    rebuilt from ``e.args`` as the timed engine does (``type(e)(*e.args)``)."""

    def __init__(self, message: str, *, rule: str = "", where: str = "", detail: str = ""):
        WarpsimError.__init__(self, message)
        self.rule, self.where, self.detail, self.lane, self.value = rule or message, where, detail, None, None

    @classmethod
    def at(cls, where: str, rule: str, detail: str = ""):
        msg = f"undefined behaviour: {rule}" + (f"; {detail}" if detail else "")
        return cls(f"{where}: {msg}" if where else msg, rule=rule, where=where, detail=detail)


class HardwareTrap(WarpsimError):
    """What the GPU would do: the kernel traps (e.g. cudaErrorIllegalInstruction)."""


class MemoryFault(WarpsimError):
    """An access outside every allocation, or misaligned."""
