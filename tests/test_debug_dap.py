"""`warpsim dap`: a scripted Debug Adapter Protocol client talking to the server over stdio (a subprocess)."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

PTX_DIR = Path(__file__).parent / "ptx" / "debug"
PTX = PTX_DIR / "spmma.ptx"
ARGS = [str(PTX_DIR / "a.npy"), str(PTX_DIR / "b.npy"), str(PTX_DIR / "e.npy"), "zeros:256:f32", "i32:2",
        "zeros:64:i32"]


class Client:
    def __init__(self):
        self.p = subprocess.Popen([sys.executable, "-m", "warpsim.cli", "dap"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.seq = 0
        self.events = []

    def send(self, command, **arguments):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()
        return self.seq

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            assert line, "server closed the stream: " + self.p.stderr.read().decode()
            if line in (b"\r\n", b"\n"):
                break
            k, _, v = line.decode().partition(":")
            assert k.lower() == "content-length"
            length = int(v)
        return json.loads(self.p.stdout.read(length))

    def request(self, command, **arguments):
        """Send a request; return its response (events that arrive first are kept in self.events)."""
        seq = self.send(command, **arguments)
        while True:
            msg = self.read()
            if msg["type"] == "response" and msg["request_seq"] == seq:
                assert msg["command"] == command
                return msg
            self.events.append(msg)

    def event(self, name):
        """The next event called ``name`` (reading more messages if needed)."""
        for i, m in enumerate(self.events):
            if m["event"] == name:
                return self.events.pop(i)
        while True:
            msg = self.read()
            if msg["type"] == "event" and msg["event"] == name:
                return msg
            self.events.append(msg)

    def close(self):
        try:
            self.p.stdin.close()
        finally:
            self.p.wait(timeout=30)


@pytest.fixture
def client():
    c = Client()
    yield c
    if c.p.poll() is None:
        c.p.kill()
    c.p.wait()


def test_dap_session_breakpoints_stepping_registers_and_end(client):
    c = client
    r = c.request("initialize", adapterID="warpsim", linesStartAt1=True, columnsStartAt1=True)
    assert r["success"] and r["body"]["supportsConfigurationDoneRequest"] and r["body"]["supportsStepBack"]
    r = c.request("launch", program=str(PTX), kernel="spmma_loop", grid=1, block=64, args=ARGS, stopOnEntry=True)
    assert r["success"], r
    c.event("initialized")
    # line 110 (a comment) moves to the next instruction, the remainder loop's mma.sp on line 111; line 999
    # is past the last instruction
    r = c.request("setBreakpoints", source={"path": str(PTX)}, breakpoints=[{"line": 110}, {"line": 999}])
    bps = r["body"]["breakpoints"]
    assert bps[0]["verified"] and bps[0]["line"] == 111
    assert not bps[1]["verified"] and "no instruction" in bps[1]["message"]
    assert c.request("configurationDone")["success"]
    ev = c.event("stopped")
    assert ev["body"]["reason"] == "entry" and ev["body"]["threadId"] == 1

    threads = c.request("threads")["body"]["threads"]
    assert [t["id"] for t in threads] == [1, 2]
    assert threads[1]["name"] == "warp 1 of block (0,0,0)"
    frame = c.request("stackTrace", threadId=1)["body"]["stackFrames"][0]
    assert frame["line"] == 33 and frame["source"]["path"] == str(PTX.resolve())

    c.request("continue", threadId=1)
    ev = c.event("stopped")
    assert ev["body"]["reason"] == "breakpoint" and ev["body"]["hitBreakpointIds"] == [bps[0]["id"]]
    frame = c.request("stackTrace", threadId=1)["body"]["stackFrames"][0]
    assert frame["line"] == 111

    scopes = c.request("scopes", frameId=frame["id"])["body"]["scopes"]
    assert [s["name"] for s in scopes] == ["Registers (lane 0)", "Registers (all 32 lanes)", "Warp"]
    assert scopes[0]["presentationHint"] == "registers"
    regs = {v["name"]: v for v in c.request("variables", variablesReference=scopes[0]["variablesReference"])
            ["body"]["variables"]}
    e = np.load(PTX_DIR / "e.npy")
    assert regs["%r5"]["value"] == f"{int(e[0])} (0x{int(e[0]):08x})" and regs["%r5"]["type"] == ".b32"
    assert regs["%p1"]["value"] == "false" and regs["%f104"]["value"] == "0.0 (0x00000000)"
    lanes_scope = {v["name"]: v for v in c.request("variables", variablesReference=scopes[1]["variablesReference"])
                   ["body"]["variables"]}
    per_lane = c.request("variables", variablesReference=lanes_scope["%r5"]["variablesReference"])["body"]["variables"]
    assert len(per_lane) == 32 and per_lane[4]["name"] == "lane 4"
    assert per_lane[4]["value"] == f"{int(e[4])} (0x{int(e[4]):08x})"
    warp = {v["name"]: v["value"] for v in c.request("variables", variablesReference=scopes[2]["variablesReference"])
            ["body"]["variables"]}
    assert warp["active lanes"] == "0xffffffff" and warp["line"] == "spmma.ptx:111"

    # one step over the mma.sp: D (%f104 of lane 0 = D[0][0]) changes to A.B's element; evaluate with a view
    c.request("next", threadId=1)
    assert c.event("stopped")["body"]["reason"] == "step"
    assert c.request("stackTrace", threadId=1)["body"]["stackFrames"][0]["line"] == 114
    r = c.request("evaluate", expression="%r1.f16x2", frameId=1, context="watch")
    assert r["body"]["result"] == "{1.0, 2.0} (0x40003c00)"
    r = c.request("evaluate", expression="%r62 + 1", frameId=1, context="repl")
    assert r["body"]["result"] == "3"  # %r62 = iters & 3 = 2, the remainder loop's count (decremented next)

    # step back over the mma.sp, then forward again
    c.request("stepBack", threadId=1)
    c.event("stopped")
    assert c.request("stackTrace", threadId=1)["body"]["stackFrames"][0]["line"] == 111

    # clear the breakpoints and run to the end
    assert c.request("setBreakpoints", source={"path": str(PTX)}, breakpoints=[])["body"]["breakpoints"] == []
    c.request("continue", threadId=1)
    assert c.event("exited")["body"]["exitCode"] == 0
    c.event("terminated")
    assert c.request("disconnect")["success"]
    c.close()
    assert c.p.returncode == 0


def test_dap_cuda_source_breakpoint_condition_and_errors(client):
    c = client
    c.request("initialize", adapterID="warpsim")
    r = c.request("stackTrace", threadId=1)
    assert not r["success"] and "launch" in r["message"]
    assert not c.request("launch", program="/nonexistent.ptx")["success"]
    assert c.request("launch", program=str(PTX), block=64, args=ARGS, stopOnEntry=False)["success"]
    # a CUDA line from the PTX's .loc table (spmma.cu line 29: v = -(int)t), for lane 6 only
    r = c.request("setBreakpoints", source={"path": str(PTX_DIR / "spmma.cu")},
                  breakpoints=[{"line": 29, "condition": "%tid.x == 6"}])
    assert r["body"]["breakpoints"][0]["verified"]
    c.request("configurationDone")
    ev = c.event("stopped")
    assert ev["body"]["reason"] == "breakpoint"
    out = c.event("output")["body"]["output"]
    assert out.startswith("[Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (6,0,0)")
    frame = c.request("stackTrace", threadId=1)["body"]["stackFrames"][0]
    assert frame["line"] == 133
    assert c.request("scopes", frameId=1)["body"]["scopes"][0]["name"] == "Registers (lane 6)"
    r = c.request("evaluate", expression="%tid.x", frameId=1)
    assert r["body"]["result"] == "6 (0x00000006)"
    assert not c.request("evaluate", expression="%nope", frameId=1)["success"]
    assert not c.request("readMemory", memoryReference="0")["success"]
    c.request("disconnect")
    c.close()
