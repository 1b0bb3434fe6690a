"""A Debug Adapter Protocol server for the debugger (``warpsim dap``): JSON messages with
``Content-Length`` framing on stdin/stdout, a thin layer over :class:`warpsim.debug.engine.Session`.

Threads are the warps of the current CTA (thread id = warp + 1); each has one stack frame, the PTX
line of its next instruction. Scopes: the focused lane's registers (``presentationHint: registers``),
every register across the 32 lanes, and the warp's masks. ``launch`` takes ``program`` (the PTX
path), ``kernel``, ``grid``, ``block``, ``args`` (``warpsim run`` argument strings, or numbers),
``sharedMem``, ``stopOnEntry`` (default true). Requests: initialize, launch, setBreakpoints
(PTX lines, or CUDA lines of the file named in the PTX's ``.file``), setInstructionBreakpoints is not
offered, configurationDone, threads, stackTrace, scopes, variables, evaluate, next, stepIn, stepOut,
continue, stepBack, reverseContinue, pause, disconnect, terminate.
"""
from __future__ import annotations

import json
import os
import sys

from isa.errors import WarpsimError
from warpsim.debug import values as V

REG_SCOPE, LANES_SCOPE, WARP_SCOPE, LANE_VAR = 1_000_000, 2_000_000, 4_000_000, 10_000_000


class DapServer:
    def __init__(self, instream, outstream, log=None):
        self.inp, self.outp, self.log = instream, outstream, log
        self.seq = 1
        self.session = None
        self.stop_on_entry = True
        self.pending_bps: dict[str, list] = {}
        self.source_bps: dict[str, list[int]] = {}
        self.done = False

    # ---------------------------------------------------------------- framing
    def read(self):
        length = None
        while True:
            line = self.inp.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                if length is None:
                    continue
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        body = self.inp.read(length)
        return json.loads(body.decode("utf-8"))

    def send(self, msg: dict) -> None:
        msg["seq"] = self.seq
        self.seq += 1
        body = json.dumps(msg).encode("utf-8")
        self.outp.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.outp.flush()

    def respond(self, req, body=None, success=True, message=None) -> None:
        msg = {"type": "response", "request_seq": req["seq"], "command": req["command"], "success": success}
        if body is not None:
            msg["body"] = body
        if message is not None:
            msg["message"] = message
        self.send(msg)

    def event(self, name: str, body=None) -> None:
        msg = {"type": "event", "event": name}
        if body is not None:
            msg["body"] = body
        self.send(msg)

    # ---------------------------------------------------------------- loop
    def serve(self) -> int:
        while not self.done:
            req = self.read()
            if req is None:
                break
            if req.get("type") != "request":
                continue
            handler = getattr(self, "on_" + req["command"], None)
            if handler is None:
                self.respond(req, success=False, message=f"unsupported request '{req['command']}'")
                continue
            try:
                handler(req, req.get("arguments") or {})
            except WarpsimError as err:
                self.respond(req, success=False, message=str(err))
        return 0

    # ---------------------------------------------------------------- requests
    def on_initialize(self, req, args):
        self.respond(req, {
            "supportsConfigurationDoneRequest": True, "supportsConditionalBreakpoints": True,
            "supportsStepBack": True, "supportsSteppingGranularity": True, "supportsTerminateRequest": True,
            "supportsEvaluateForHovers": True,
        })

    def on_launch(self, req, args):
        from warpsim.cmd_run import parse_arg
        from warpsim.debug.engine import Session

        program = args.get("program")
        if not program or not os.path.exists(program):
            self.respond(req, success=False, message=f"launch: 'program' must be a PTX file, got {program!r}")
            return
        kernel = args.get("kernel")
        if not kernel:
            from warpsim.cmd_debug import _kernel_name
            from warpsim.module import RawModule

            kernel = _kernel_name(RawModule(path=program, arch=args.get("arch")), None)
        values = [parse_arg(a) if isinstance(a, str) else a for a in args.get("args", [])]
        self.session = Session(program, kernel, _dim(args.get("grid", 1)), _dim(args.get("block", 32)), values,
                               shared_mem=int(args.get("sharedMem", 0)), arch=args.get("arch"),
                               ub_policy=args.get("ubPolicy", "error"), timing=args.get("timing"))
        self.stop_on_entry = bool(args.get("stopOnEntry", True))
        self.respond(req)
        for path, bps in self.pending_bps.items():
            self._set_breakpoints(path, bps)
        self.event("initialized")

    def on_setBreakpoints(self, req, args):
        path = (args.get("source") or {}).get("path") or (args.get("source") or {}).get("name", "")
        bps = args.get("breakpoints") or [{"line": n} for n in args.get("lines", [])]
        if self.session is None:
            self.pending_bps[path] = bps
            self.respond(req, {"breakpoints": [{"verified": False, "line": b["line"],
                                                "message": "pending until launch"} for b in bps]})
            return
        self.respond(req, {"breakpoints": self._set_breakpoints(path, bps)})

    def _set_breakpoints(self, path, bps):
        s = self.session
        old = [n for n in self.source_bps.pop(path, []) if n in s.breakpoints]
        if old:
            s.delete(old)
        out, numbers = [], []
        for b in bps:
            try:
                bp = s.break_at(f"{path}:{b['line']}", b.get("condition") or None)
            except WarpsimError as err:
                out.append({"verified": False, "line": b["line"], "message": str(err)})
                continue
            numbers.append(bp.number)
            line = s.line_of(min(bp.pcs)) if bp.kind == "line" else b["line"]
            out.append({"id": bp.number, "verified": True, "line": line,
                        "source": {"name": os.path.basename(path), "path": path}})
        self.source_bps[path] = numbers
        return out

    def on_configurationDone(self, req, args):
        self.respond(req)
        if self.session is None:
            return
        if self.stop_on_entry:
            self.event("stopped", {"reason": "entry", "threadId": self.session.focus_warp + 1,
                                   "allThreadsStopped": True})
        else:
            self._report(self.session.continue_())

    def on_threads(self, req, args):
        s = self._need()
        threads = []
        for w in s.warps:
            b = s.cta.ctaid
            state = " (exited)" if w.done else ""
            threads.append({"id": w.warp_id + 1, "name": f"warp {w.warp_id} of block ({b[0]},{b[1]},{b[2]}){state}"})
        self.respond(req, {"threads": threads})

    def on_stackTrace(self, req, args):
        s = self._need()
        w = s.warp(int(args["threadId"]) - 1)
        pc = s.next_pc(w)
        ins = s.instruction(pc)
        if ins is None:
            self.respond(req, {"stackFrames": [], "totalFrames": 0})
            return
        path = os.path.abspath(ins.loc.file if ins.loc else s.program.file)
        frame = {"id": w.warp_id + 1, "name": f"{s.name} (warp {w.warp_id}, pc {pc})",
                 "source": {"name": os.path.basename(path), "path": path},
                 "line": ins.loc.line if ins.loc else 0, "column": ins.loc.col if ins.loc else 1,
                 "instructionPointerReference": str(pc)}
        self.respond(req, {"stackFrames": [frame], "totalFrames": 1})

    def on_scopes(self, req, args):
        s = self._need()
        wid = int(args["frameId"]) - 1
        lane = s.focus_lane if wid == s.focus_warp else 0
        self.respond(req, {"scopes": [
            {"name": f"Registers (lane {lane})", "variablesReference": REG_SCOPE + wid,
             "presentationHint": "registers", "expensive": False},
            {"name": "Registers (all 32 lanes)", "variablesReference": LANES_SCOPE + wid, "expensive": False},
            {"name": "Warp", "variablesReference": WARP_SCOPE + wid, "expensive": False},
        ]})

    def on_variables(self, req, args):
        s = self._need()
        ref = int(args["variablesReference"])
        names = _reg_names(s)
        if ref >= LANE_VAR:
            wid, idx = divmod(ref - LANE_VAR, 10_000)
            name = names[idx]
            arr = s.warp(wid).regs[name]
            view, bits = V.lane_values(arr, s.program.regs.get(name, ""), None)
            out = [{"name": f"lane {i}", "value": V.fmt_lane(bits[i], view, V.reg_bits(arr)), "variablesReference": 0}
                   for i in range(32)]
        elif ref >= WARP_SCOPE:
            st = s.warp_state(ref - WARP_SCOPE)
            from warpsim.debug.state import mask_hex

            out = [{"name": k, "value": v, "variablesReference": 0} for k, v in (
                ("active lanes", mask_hex(st.active)), ("divergent lanes", mask_hex(st.divergent)),
                ("pc", "-" if st.pc is None else str(st.pc)), ("line", st.where), ("state", st.state),
                ("instructions retired", str(st.retired)))]
        elif ref >= LANES_SCOPE:
            wid = ref - LANES_SCOPE
            out = []
            for i, name in enumerate(names):
                arr = s.warp(wid).regs[name]
                view, bits = V.lane_values(arr, s.program.regs.get(name, ""), None)
                vals = [V.fmt_lane(b, view, V.reg_bits(arr), with_hex=False) for b in bits]
                out.append({"name": name, "value": "[" + ", ".join(vals[:4]) + ", ...]", "type": "." + s.program.regs[name],
                            "variablesReference": LANE_VAR + wid * 10_000 + i, "indexedVariables": 32})
        elif ref >= REG_SCOPE:
            wid = ref - REG_SCOPE
            lane = s.focus_lane if wid == s.focus_warp else 0
            out = [{"name": n, "value": v, "type": "." + t, "variablesReference": 0}
                   for n, t, v in s.lane_registers(wid, lane).rows]
        else:
            out = []
        self.respond(req, {"variables": out})

    def on_evaluate(self, req, args):
        s = self._need()
        expr = args.get("expression", "").strip()
        frame = args.get("frameId")
        wid = int(frame) - 1 if frame else s.focus_warp
        w = s.warp(wid)
        try:
            ref = V.parse_ref(expr, w.regs)
        except V.ExprError:
            ref = None
        lane = s.focus_lane if wid == s.focus_warp else 0
        if ref is not None:
            arr = w.regs[ref.name]
            view, bits = V.lane_values(arr, s.program.regs.get(ref.name, ""), ref.view)
            result = V.fmt_lane(bits[lane], view, V.reg_bits(arr))
        else:
            v = s.evaluate(expr, wid)[lane]
            result = V.fmt_number(v.item() if hasattr(v, "item") else v)
        self.respond(req, {"result": result, "variablesReference": 0})

    def _focus_thread(self, args):
        s = self._need()
        tid = args.get("threadId")
        if tid is not None and int(tid) - 1 != s.focus_warp:
            wid = int(tid) - 1
            s.focus(wid, s.focus_lane if s.focus_lane < s.nlanes(wid) else 0)
        return s

    def on_next(self, req, args):
        s = self._focus_thread(args)
        self.respond(req)
        self._report(s.stepi() if args.get("granularity") == "instruction" else s.next())

    def on_stepIn(self, req, args):
        s = self._focus_thread(args)
        self.respond(req)
        self._report(s.stepi() if args.get("granularity") == "instruction" else s.step())

    on_stepOut = on_next

    def on_continue(self, req, args):
        s = self._need()
        self.respond(req, {"allThreadsContinued": True})
        self._report(s.continue_())

    def on_stepBack(self, req, args):
        s = self._focus_thread(args)
        self.respond(req)
        self._report(s.reverse_stepi() if args.get("granularity") == "instruction" else s.reverse_step())

    def on_reverseContinue(self, req, args):
        s = self._need()
        self.respond(req)
        self._report(s.reverse_continue())

    def on_pause(self, req, args):
        self.respond(req)  # requests run to completion; there is never anything to pause

    def on_disconnect(self, req, args):
        self.respond(req)
        self.done = True

    on_terminate = on_disconnect

    def _need(self):
        if self.session is None:
            raise WarpsimError("no kernel launched (send 'launch' first)")
        return self.session

    def _report(self, stop) -> None:
        s = self.session
        if stop.reason == "exited":
            self.event("output", {"category": "console", "output": f"[{stop.message}]\n"})
            self.event("exited", {"exitCode": 0})
            self.event("terminated")
            return
        if stop.focus_changed:
            self.event("output", {"category": "console", "output": s.focus_line() + "\n"})
        body = {"threadId": s.focus_warp + 1, "allThreadsStopped": True}
        if stop.reason == "breakpoint":
            body.update(reason="breakpoint", hitBreakpointIds=[stop.breakpoint.number],
                        description=f"Breakpoint {stop.breakpoint.number}")
        elif stop.reason == "exception":
            body.update(reason="exception", description="error", text=stop.message)
        else:
            body.update(reason="step")
            if stop.message:
                body["description"] = stop.message
        self.event("stopped", body)


def _dim(v):
    if isinstance(v, str):
        from warpsim.cmd_run import parse_dim

        return parse_dim(v)
    return tuple(v) if isinstance(v, list) else v


def _reg_names(s) -> list[str]:
    from warpsim.debug.state import _sorted_regs

    return _sorted_regs(s.program.regs)


def serve(instream=None, outstream=None) -> int:
    """Serve one debug session on binary streams (stdin/stdout by default)."""
    return DapServer(instream or sys.stdin.buffer, outstream or sys.stdout.buffer).serve()


if __name__ == "__main__":
    sys.exit(serve())
