"""The debugger shell (``warpsim debug``): a ``cmd.Cmd`` over :class:`warpsim.debug.engine.Session`,
in cuda-gdb's vocabulary with pdb's short forms.

Streams are passed in, so a test drives it with a transcript::

    sh = Shell(session, stdin=io.StringIO("b mma.sp\\nc\\nfrag E\\n"), stdout=out, echo=True)
    sh.cmdloop()

An empty line repeats the last command; ``help`` lists the commands (first docstring line = syntax and
short form, as pdb's); ``help CMD`` prints the whole docstring.
"""
from __future__ import annotations

import cmd
import inspect
import os
import re
import struct

import numpy as np

from isa.errors import WarpsimError
from warpsim.debug import state as S
from warpsim.debug import values as V
from warpsim.debug.engine import DebugError

_HYPHENATED = ("reverse-step", "reverse-stepi", "reverse-continue")
_SIZES = {"b": 1, "h": 2, "w": 4, "g": 8}
_PER_LINE = {1: 8, 2: 8, 4: 4, 8: 2}


class Shell(cmd.Cmd):
    prompt = "(warpsim) "
    intro = None

    def __init__(self, session, stdin=None, stdout=None, *, color: bool | None = None, echo: bool = False):
        super().__init__(stdin=stdin, stdout=stdout)
        if stdin is not None:
            self.use_rawinput = False
        self.s = session
        self.color = bool(color) if color is not None else bool(getattr(self.stdout, "isatty", lambda: False)())
        self.echo = echo
        self.displays: dict[int, str] = {}
        self._display_prev: dict[tuple, list[str]] = {}
        self._display_n = 0
        self._list_next: int | None = None
        self.errors = 0

    # ------------------------------------------------------------------ plumbing
    def out(self, text: str = "") -> None:
        self.stdout.write(text + "\n")

    def precmd(self, line: str) -> str:
        if self.echo:
            self.stdout.write(("" if line == "EOF" else line) + "\n")
        head, _, rest = line.strip().partition(" ")
        if head in _HYPHENATED:
            return head.replace("-", "_") + (" " + rest if rest else "")
        return line

    def onecmd(self, line: str):
        if line.lstrip().startswith("#"):  # a comment (transcripts explain themselves); not repeated
            return False
        try:
            return super().onecmd(line)
        except WarpsimError as err:
            self.errors += 1
            self.out(f"*** {err}")
        except (ValueError, KeyError) as err:
            self.errors += 1
            self.out(f"*** {err}")
        return False

    def default(self, line: str) -> None:
        self.errors += 1
        self.out(f"*** unknown command '{line.split()[0]}' (help lists the commands)")

    def do_help(self, arg: str) -> None:
        """h(elp) [COMMAND]
        Without an argument, list the commands (syntax and short form); with one, explain it."""
        arg = arg.strip().replace("-", "_")
        if arg:
            fn = getattr(self, "do_" + arg, None)
            if fn is None or not fn.__doc__:
                self.out(f"*** no help on '{arg}'")
                return
            self.out(inspect.cleandoc(fn.__doc__))
            return
        self.out("Commands (help COMMAND for details; an empty line repeats the last command):")
        seen = set()
        for name in sorted(n[3:] for n in dir(self) if n.startswith("do_")):
            fn = getattr(self, "do_" + name)
            if fn.__func__ in seen or not fn.__doc__ or name == "EOF":
                continue
            seen.add(fn.__func__)
            self.out("  " + inspect.cleandoc(fn.__doc__).splitlines()[0])

    do_h = do_help

    def do_EOF(self, arg):
        """Leave at the end of input."""
        return True

    def do_quit(self, arg):
        """q(uit)
        Leave the debugger."""
        return True

    do_q = do_quit

    # ------------------------------------------------------------------ reporting stops
    def report(self, stop) -> None:
        s = self.s
        if stop.reason == "exited":
            self.out(f"[{stop.message}]")
            return
        if stop.focus_changed:
            self.out(s.focus_line())
        if stop.reason == "exception":
            self.out(f"CUDA Exception (stopped before the instruction; its effects are undone): {stop.message}")
        elif stop.reason in ("no-history", "history-start"):
            self.out("No more reverse-execution history.")
        elif stop.reason == "breakpoint":
            bp = stop.breakpoint
            kind = "Temporary breakpoint" if bp.temporary else "Breakpoint"
            self.out(f"\n{kind} {bp.number}, {s.name} () at {s.location(stop.pc)}")
        self.where()
        self.show_displays()

    def where(self) -> None:
        s = self.s
        w = s.warp()
        pc = s.next_pc(w)
        if pc is None:
            self.out(f"warp {w.warp_id} has exited")
            return
        if pc >= len(s.program.ops):
            self.out(f"warp {w.warp_id}: past the last instruction")
            return
        line = s.line_of(pc)
        g = s.group(w)
        extra = ""
        if (w.live & ~g).any():
            extra = f"   [active {S.mask_hex(g)}, divergent {S.mask_hex(w.live & ~g)}]"
        if w.blocked is not None:
            extra += f"   [waiting at barrier {w.blocked[0]}]"
        self.out(f"{line}\t{s.source_text(pc)}{extra}")

    # ------------------------------------------------------------------ running
    def _count(self, arg: str) -> int:
        arg = arg.strip()
        if not arg:
            return 1
        try:
            n = int(arg, 0)
        except ValueError:
            raise DebugError(f"expected a count, got '{arg}'") from None
        if n < 1:
            raise DebugError("the count must be at least 1")
        return n

    def _repeat(self, fn, arg: str) -> None:
        n = self._count(arg)
        stop = None
        for _ in range(n):
            stop = fn()
            if stop.reason != "step":
                break
        self._list_next = None
        self.report(stop)

    def do_step(self, arg):
        """s(tep) [N]
        Step the focused warp until the focused lane has run one instruction (lanes on the other side of a
        divergent branch are stepped over, as cuda-gdb's step_divergent_lanes). A warp waiting at a
        barrier lets the other warps run until it is released."""
        self._repeat(self.s.step, arg)

    do_s = do_step

    def do_stepi(self, arg):
        """si, stepi [N]
        Execute one warp instruction of the focused warp (whatever lanes are at its lowest PC)."""
        self._repeat(self.s.stepi, arg)

    do_si = do_stepi

    def do_next(self, arg):
        """n(ext) [N]
        Step over calls; the machine runs a single function (no `call`), so this is `step`."""
        self._repeat(self.s.next, arg)

    do_n = do_next

    def do_continue(self, arg):
        """c(ontinue)
        Run all warps in the CTA scheduler's order until a breakpoint, an error or the end of the kernel."""
        self._list_next = None
        self.report(self.s.continue_())

    do_c = do_cont = do_continue

    def do_run(self, arg):
        """r(un)
        Start the kernel from the beginning (restarting it if it has run: memory is rebuilt from the
        arguments; breakpoints and displays stay) and continue to the first breakpoint or the end."""
        if self.s.started:
            self.s.restart()
            self.out(f"Restarting kernel {self.s.name} from the beginning.")
        self._display_prev.clear()
        self._list_next = None
        self.report(self.s.continue_())

    do_r = do_run

    def do_reverse_step(self, arg):
        """rs, reverse-step [N]
        Step back: undo instructions until the focused lane's previous instruction is undone (the exact
        earlier registers, PCs, masks and memory come back)."""
        self._repeat(self.s.reverse_step, arg)

    do_rs = do_reverse_step

    def do_reverse_stepi(self, arg):
        """rsi, reverse-stepi [N]
        Undo one warp instruction of the focused warp (and any later instruction of other warps)."""
        self._repeat(self.s.reverse_stepi, arg)

    do_rsi = do_reverse_stepi

    def do_reverse_continue(self, arg):
        """rc, reverse-continue
        Run backwards until a warp is about to execute a breakpoint, or the history runs out."""
        self._list_next = None
        self.report(self.s.reverse_continue())

    do_rc = do_reverse_continue

    # ------------------------------------------------------------------ breakpoints
    def _break(self, arg: str, temporary: bool) -> None:
        m = re.match(r"(.*?)(?:\s+if\s+(.+))?$", arg.strip())
        loc, cond = m.group(1).strip(), m.group(2)
        if loc.startswith("if ") or loc == "if":
            loc, cond = "", arg.strip()[3:]
        if not loc:
            pc = self.s.next_pc(self.s.warp())
            if pc is None:
                raise DebugError("the focused warp has exited: give a location")
            loc = f"*{pc}"
        bp = self.s.break_at(loc, cond, temporary)
        self.out(bp.describe())

    def do_break(self, arg):
        """b(reak) [LOCATION] [if COND]
        Set a breakpoint. LOCATION: a PTX line (42 or file.ptx:42), a CUDA line from the PTX's .loc
        (file.cu:21), a label ($L__BB0_3), an instruction index (*17), the kernel's name, or an opcode
        prefix (mma.sp, bar, st.shared). Without one: the focused warp's next instruction. COND is
        evaluated per lane (e.g. %r4 == 7 && %p1); the breakpoint stops when a lane at that instruction
        satisfies it, and the focus moves to that lane."""
        self._break(arg, False)

    do_b = do_break

    def do_tbreak(self, arg):
        """tbreak [LOCATION] [if COND]
        Set a temporary breakpoint: deleted when it is hit."""
        self._break(arg, True)

    def do_delete(self, arg):
        """d(elete) [N ...]
        Delete the breakpoints numbered N (all of them without an argument)."""
        nums = [int(x) for x in arg.split()] if arg.strip() else None
        gone = self.s.delete(nums)
        if not gone:
            self.out("No breakpoints.")
        else:
            self.out(f"Deleted breakpoint{'s' if len(gone) > 1 else ''} {' '.join(map(str, gone))}")

    do_d = do_delete

    # ------------------------------------------------------------------ info and focus
    def do_info(self, arg):
        """info warps | lanes [warp N] | breakpoints | registers [REG ...] | display
        warps: cuda-gdb's `info cuda warps` (active and divergent lane masks, next PC and line);
        lanes: `info cuda lanes` (state, PC, thread of each lane of the focused warp or of warp N);
        breakpoints, registers (the focused lane's, typed as declared), display."""
        words = arg.split()
        if words and words[0] == "cuda":
            words = words[1:]
        what = words[0] if words else ""
        rest = words[1:]
        s = self.s
        if what in ("warps", "warp"):
            self.out(S.warps_table(s.warp_states()))
        elif what in ("lanes", "lane"):
            n = s.focus_warp
            if len(rest) == 2 and rest[0] == "warp":
                n = int(rest[1])
            elif rest:
                raise DebugError("usage: info lanes [warp N]")
            self.out(S.lanes_table(s, s.warp(n)))
        elif what in ("breakpoints", "break", "b"):
            if not s.breakpoints:
                self.out("No breakpoints.")
                return
            rows = [[str(bp.number), "tbreak" if bp.temporary else "break", bp.where, str(bp.hits),
                     bp.cond or ""] for bp in s.breakpoints.values()]
            self.out(S.table(["Num", "Type", "Where", "Hits", "Condition"], rows))
        elif what in ("registers", "reg", "r"):
            names = None
            if rest:
                names = [V.parse_ref(x, s.warp().regs).name for x in rest]
            self.out(str(S.LaneRegisters.of(s, s.warp(), s.focus_lane, names)))
        elif what == "display":
            if not self.displays:
                self.out("There are no auto-display expressions now.")
            for n, e in self.displays.items():
                self.out(f"{n}: {e}")
        else:
            raise DebugError("info what? warps, lanes, breakpoints, registers or display")

    def _focus(self, arg: str) -> None:
        words = arg.split()
        if not words:
            self.out(self.s.focus_line().replace("Switching focus to", "Current focus:"))
            return
        coords = {}
        it = iter(words)
        for w in it:
            if w not in ("warp", "lane"):
                raise DebugError(f"focus takes 'warp N' and/or 'lane M', not '{w}'")
            try:
                coords[w] = int(next(it), 0)
            except (StopIteration, ValueError):
                raise DebugError(f"'{w}' needs a number") from None
        self.s.focus(coords.get("warp"), coords.get("lane"))
        self._list_next = None
        self.out(self.s.focus_line())
        self.where()

    def do_focus(self, arg):
        """focus [warp N] [lane M]
        Move the focus to warp N, lane M (an omitted coordinate keeps its value) and print cuda-gdb's
        "[Switching focus to ...]" line; without arguments, show the current focus."""
        self._focus(arg)

    def do_cuda(self, arg):
        """cuda [warp N] [lane M]
        cuda-gdb's spelling of `focus`."""
        self._focus(arg)

    # ------------------------------------------------------------------ values
    def do_print(self, arg):
        """p(rint) EXPR
        Print a register of the focused lane, typed as declared or through a view: %r4, %r4.s32, %f1.f32,
        %r1.f16x2, %r1.bf16x2, %r1.e4m3x4, %r1.s8x4, %rd2.u64, %tid.x ($r4 works too). Floats are exact
        (Python repr: they read back to the same bits) with the bits in hex beside. Element 0 of a packed
        view is the low bits. Other expressions (%r4 * 2 + 1, %p1 && %r3 > 0) print their value."""
        s = self.s
        text = arg.strip()
        if not text:
            raise DebugError("print what? (e.g. p %r4, p %r1.f16x2)")
        w = s.warp()
        try:
            ref = V.parse_ref(text, w.regs)
        except V.ExprError:
            ref = None
        if ref is not None:
            arr = w.regs[ref.name]
            view, bits = V.lane_values(arr, s.program.regs.get(ref.name, ""), ref.view)
            self.out(f"{ref.label()} = {V.fmt_lane(bits[s.focus_lane], view, V.reg_bits(arr))}")
            return
        v = s.evaluate(text)[s.focus_lane]
        self.out(f"{text} = {V.fmt_number(v.item() if hasattr(v, 'item') else v)}")

    do_p = do_print

    def _lane_cells(self, expr: str):
        s = self.s
        w = s.warp()
        try:
            ref = V.parse_ref(expr, w.regs)
        except V.ExprError:
            vals = s.evaluate(expr)
            return expr, [V.fmt_number(v.item() if hasattr(v, "item") else v) for v in vals]
        arr = w.regs[ref.name]
        view, bits = V.lane_values(arr, s.program.regs.get(ref.name, ""), ref.view)
        label = ref.label() if ref.view else f"{ref.name} (.{s.program.regs.get(ref.name, view.name)})"
        return label, [V.fmt_lane(b, view, V.reg_bits(arr), with_hex=False) for b in bits]

    def _show_display(self, n: int, expr: str) -> None:
        s = self.s
        w = s.warp()
        label, cells = self._lane_cells(expr)
        key = (n, s.cta_index, w.warp_id)
        prev = self._display_prev.get(key)
        changed = np.array([prev is not None and prev[i] != cells[i] for i in range(32)])
        self._display_prev[key] = cells
        self.out(str(S.LaneTable(n, label, w.warp_id, cells, changed, w.live, self.color)))

    def show_displays(self) -> None:
        for n, expr in self.displays.items():
            try:
                self._show_display(n, expr)
            except WarpsimError as err:
                self.out(f"{n}: {expr}: *** {err}")

    def do_display(self, arg):
        """display [EXPR]
        Show EXPR (a register with an optional view) for all 32 lanes of the focused warp after every
        stop, as an 8 x 4 table (row = groupID = lane/4, column = threadID_in_group = lane%4, as in the mma
        fragment figures). Values that changed since the last stop are marked * (highlighted with colour).
        Without EXPR, show every display now."""
        expr = arg.strip()
        if not expr:
            self.show_displays()
            return
        self._lane_cells(expr)  # check it now
        self._display_n += 1
        self.displays[self._display_n] = expr
        self._show_display(self._display_n, expr)

    def do_undisplay(self, arg):
        """undisplay [N ...]
        Stop showing displays N (all without an argument)."""
        nums = [int(x) for x in arg.split()] if arg.strip() else list(self.displays)
        for n in nums:
            if n not in self.displays:
                raise DebugError(f"no display number {n}")
            del self.displays[n]

    def do_x(self, arg):
        """x/NFU ADDRESS
        Examine memory: N units (default 1) of size U (b 1, h 2, w 4, g 8 bytes; default w) in format F
        (x hex, d signed, u unsigned, f float; default x). ADDRESS: &var (a .shared variable, a .param or a
        .global), a number or a register of the focused lane (generic addresses: the shared/local/param
        windows, else global), or SPACE:ADDR with SPACE one of shared, global, local, param."""
        m = re.match(r"/(\d*)([a-z]*)\s+(.+)$", arg.strip()) or re.match(r"()()(.+)$", arg.strip())
        if not m or not m.group(3):
            raise DebugError("usage: x/NFU ADDRESS (e.g. x/4w &smem, x/8xh %rd9, x/2g global:0x7f0000000000)")
        n = int(m.group(1)) if m.group(1) else 1
        letters = m.group(2)
        size, fmt = 4, "x"
        for ch in letters:
            if ch in _SIZES:
                size = _SIZES[ch]
            elif ch in "xduf":
                fmt = ch
            else:
                raise DebugError(f"unknown letter '{ch}' in x/{letters} (sizes b h w g, formats x d u f)")
        if fmt == "f" and size == 1:
            raise DebugError("no 1-byte float format (x/f takes h, w or g)")
        space, addr = self.s.resolve_address(m.group(3))
        data = self.s.read_memory(space, addr, n * size)
        per = _PER_LINE[size]
        for i in range(0, n, per):
            chunk = data[i * size: min(n, i + per) * size]
            cells = [_unit(chunk[j:j + size], size, fmt) for j in range(0, len(chunk), size)]
            self.out(f"{self._addr_label(space, addr + i * size)}:\t" + "\t".join(cells))

    def _addr_label(self, space: str, addr: int) -> str:
        s = self.s
        sym = ""
        table = {"shared": s.program.shared, "params": s.program.params}.get(space, {})
        for name, var in table.items():
            if var.offset <= addr < var.offset + max(var.size, 1):
                sym = f" <{name}+{addr - var.offset}>" if addr != var.offset else f" <{name}>"
        if space == "global":
            for base, size, _, name in s.launch.gmem.regions:
                if base <= addr < base + size:
                    sym = f" <{name}+{addr - base}>" if addr != base else f" <{name}>"
            return f"0x{addr:x}{sym}"
        return f"{space} 0x{addr:x}{sym}"

    # ------------------------------------------------------------------ source
    def do_list(self, arg):
        """l(ist) [LINE | FIRST,LAST | -]
        List PTX source: around the focused warp's next instruction (marked =>), then onwards on repeat;
        around LINE; FIRST..LAST; or the lines before the last listing (-). Breakpoint lines are marked b."""
        s = self.s
        lines = s.source_lines
        if not lines:
            raise DebugError("no PTX source text to list")
        a = arg.strip()
        pc = s.next_pc(s.warp())
        cur = s.line_of(pc) if pc is not None else None
        if a == "-":
            last = (self._list_first or 1) - 1
            first, end = max(1, last - 9), last
        elif "," in a:
            x, y = a.split(",", 1)
            first, end = int(x), int(y)
        elif a:
            c = int(a)
            first, end = max(1, c - 5), c + 4
        elif self._list_next is not None:
            first, end = self._list_next, self._list_next + 9
        else:
            c = cur or 1
            first, end = max(1, c - 5), c + 4
        end = min(end, len(lines))
        if first > len(lines):
            raise DebugError(f"line {first} is past the end of the file ({len(lines)} lines)")
        bp_lines = {s.line_of(p) for bp in s.breakpoints.values() for p in bp.pcs}
        for ln in range(first, end + 1):
            mark = ("b" if ln in bp_lines else " ") + ("=>" if ln == cur else "  ")
            self.out(f"{mark} {ln:4}  {lines[ln - 1].expandtabs(4).rstrip()}")
        self._list_first, self._list_next = first, end + 1

    do_l = do_list
    _list_first = None

    # ------------------------------------------------------------------ tensor core, TMEM, time
    def do_frag(self, arg):
        """frag [A|B|C|D|E ...]
        The focused warp's mma.sp operands as matrices (its pending mma.sp if that is the next
        instruction, else the last one it executed), through the PTX fragment layouts: each element with
        the lane T# that holds it; A compressed and as the metadata places it in the dense matrix; E as
        every lane's e register split into its 4-bit codes (which lanes the sparsity selector reads, which
        row and chunk each code describes, invalid codes marked !) and decoded into dense columns. C is
        the accumulator as read, D what the instruction wrote. Without arguments, all five."""
        ops = arg.replace(",", " ").split() or list("ABCDE")
        bad = [o for o in ops if o.upper() not in ("A", "B", "C", "D", "E")]
        if bad:
            raise DebugError(f"frag takes A, B, C, D or E, not '{bad[0]}'")
        f = self.s.frag()
        self.out(f.header())
        for o in ops:
            self.out("")
            self.out(f.operand_text(o))

    def do_tmem(self, arg):
        """tmem [LANE ...]
        The CTA's Tensor Memory (tcgen05, sm_100a+): allocations and the first columns of each
        allocation for lanes 0 32 64 96 (or the lanes given); or why there is none."""
        t, note = self.s.tmem()
        if t is None:
            self.out(note)
            return
        lanes = [int(x) for x in arg.split()] or list(range(0, 128, 32))
        self.out(str(S.TmemView(t, lanes)))

    def do_cycle(self, arg):
        """cycle
        With timing on (the default; `warpsim debug --no-timing` turns it off): the simulated cycle at
        which the focused warp's next instruction issues, from a run of the timed engine (warpsim.timing)
        on the same launch. With timing off: the warp's retired warp-instruction count."""
        s = self.s
        value, what = s.cycle()
        n = f"{s.warp().steps} warp instructions retired"
        tl = f"timed engine, {s.timeline.params}" if s.timeline is not None else "the session's clock"
        if what == "cycle":
            self.out(f"warp {s.focus_warp}: cycle {value:g} (simulated, {tl}: its next instruction issues then; "
                     f"{n})")
        elif what == "cycle (finished)":
            self.out(f"warp {s.focus_warp}: finished; all its instructions had completed by cycle {value:g} "
                     f"(simulated, {tl}; {n})")
        elif what == "diverged":
            self.out(f"warp {s.focus_warp}: no simulated cycle here: the timed run executed another "
                     f"instruction at this point (a data race or %clock-dependent path?); {n}")
        else:
            self.out(f"warp {s.focus_warp}: {value} warp instructions retired (timing is off: no simulated "
                     f"cycle; {s.retired()} in the launch so far)")

    def do_set(self, arg):
        """set color on|off
        Colour: highlight changed display values (otherwise marked *)."""
        words = arg.split()
        if len(words) == 2 and words[0] in ("color", "colour") and words[1] in ("on", "off"):
            self.color = words[1] == "on"
            return
        raise DebugError("usage: set color on|off")


def _unit(raw: bytes, size: int, fmt: str) -> str:
    u = int.from_bytes(raw, "little")
    if fmt == "x":
        return f"0x{u:0{2 * size}x}"
    if fmt == "u":
        return str(u)
    if fmt == "d":
        return str(u - (1 << (8 * size)) if u >> (8 * size - 1) else u)
    if size == 2:
        return repr(float(np.frombuffer(raw, np.float16)[0]))
    return repr(struct.unpack("<f" if size == 4 else "<d", raw)[0])


def main_loop(session, stdin=None, stdout=None, *, batch: str | None = None, color: bool | None = None) -> int:
    """Run the shell: interactively, or the commands of ``batch`` (echoed) and leave."""
    k = session
    intro = (f"warpsim debug: kernel {k.name} of {os.path.basename(k.program.file)}, grid {_dim(k.grid)}, "
             f"block {_dim(k.block)} ({len(k.warps)} warp{'s' if len(k.warps) > 1 else ''} per CTA), "
             f"arch {k.mod.arch}. `help` lists the commands.")
    if batch is not None:
        with open(batch) as f:
            sh = Shell(session, stdin=f, stdout=stdout, color=color, echo=True)
            sh.intro = intro
            sh.cmdloop()
            return 1 if sh.errors else 0
    sh = Shell(session, stdin=stdin, stdout=stdout, color=color)
    sh.intro = intro
    sh.cmdloop()
    return 0


def _dim(t) -> str:
    return ",".join(str(x) for x in (t[:1] if t[1:] == (1, 1) else t[:2] if t[2] == 1 else t))
