"""The PTX front end: parse, check and print PTX text.

    from isa.ptx import parse, parse_file, check, format_module
    m = parse_file("kernel.ptx"); check(m)
"""
from isa.ptx.check import check
from isa.ptx.parser import parse, parse_file, parse_instruction
from isa.ptx.printer import format_function, format_instruction, format_module, format_operand, format_statement

__all__ = ["parse", "parse_file", "parse_instruction", "check", "format_module", "format_function",
           "format_instruction", "format_operand", "format_statement"]
