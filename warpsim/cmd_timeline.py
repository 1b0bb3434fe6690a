"""``warpsim timeline FILE.ptx --kernel K --grid G --block B --arg ... --json OUT.json --png OUT.png``.

Runs the kernel on the timed engine (arguments as for ``warpsim run``) and writes

* a Chrome / Perfetto trace-event JSON (open in ui.perfetto.dev or chrome://tracing): one track per warp
  (each instruction a slice from issue to completion, with its pc, text and operand-ready cycle) and one
  track per tensor pipe (each tensor op a slice for the cycles it occupies the pipe); 1 µs of the trace
  is 1 cycle;
* a PNG: warps × cycles, every instruction a bar (tensor ops coloured), and the tensor-pipe occupancy
  of each sub-partition underneath.
"""
from __future__ import annotations

import json

from warpsim.cmd_run import add_launch_arguments, parse_arg, parse_dim


def chrome_trace(tl, kernel: str = "") -> dict:
    """The trace-event JSON object of a :class:`warpsim.timing.model.Timeline`."""
    ev = []
    seen_w, seen_p = set(), set()
    for cta, warp, pc, text, issue, ready, done in tl.records:
        sm = tl.sm_of_cta.get(cta, 0)
        if (cta, warp) not in seen_w:
            seen_w.add((cta, warp))
            ev.append({"ph": "M", "name": "thread_name", "pid": 1 + cta, "tid": warp,
                       "args": {"name": f"warp {warp} (sub-partition {warp % 4})"}})
            ev.append({"ph": "M", "name": "process_name", "pid": 1 + cta,
                       "args": {"name": f"CTA {cta} on SM {sm}"}})
        ev.append({"ph": "X", "name": text.split()[0] if text else f"pc {pc}", "pid": 1 + cta, "tid": warp,
                   "ts": issue, "dur": max(done - issue, 0.5),
                   "args": {"pc": pc, "text": text, "issue": issue, "operands_ready": ready, "complete": done}})
    base = 100000
    for sm, sp, start, end, cta, warp, pc in tl.tensor:
        pid = base + sm
        if (sm, sp) not in seen_p:
            seen_p.add((sm, sp))
            ev.append({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": f"SM {sm} tensor pipes"}})
            ev.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": sp,
                       "args": {"name": f"tensor pipe, sub-partition {sp}"}})
        ev.append({"ph": "X", "name": f"warp {warp} pc {pc}", "pid": pid, "tid": sp, "ts": start,
                   "dur": end - start, "args": {"cta": cta, "warp": warp, "pc": pc}})
    return {"traceEvents": ev, "displayTimeUnit": "ns",
            "otherData": {"kernel": kernel, "cycles": tl.cycles, "timing_table": tl.params,
                          "time_unit": "1 trace microsecond = 1 SM cycle"}}


def plot_png(tl, path: str, title: str = "") -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    warps = sorted({(r[0], r[1]) for r in tl.records})
    pipes = sorted({(t[0], t[1]) for t in tl.tensor})
    rows = {w: i for i, w in enumerate(warps)}
    prow = {p: len(warps) + 1 + i for i, p in enumerate(pipes)}
    h = max(2.5, 0.35 * (len(warps) + len(pipes) + 2) + 1.2)
    fig, ax = plt.subplots(figsize=(12, h))
    tensor_pcs = {(t[4], t[5], t[6]) for t in tl.tensor}
    other, tens = {}, {}
    for cta, warp, pc, text, issue, ready, done in tl.records:
        y = rows[(cta, warp)]
        d = tens if (cta, warp, pc) in tensor_pcs else other
        d.setdefault(y, []).append((issue, max(done - issue, 0.6)))
    for y, bars in other.items():
        ax.broken_barh(bars, (y - 0.35, 0.7), facecolors="#9aa5b1", edgecolors="none", alpha=0.8)
    for y, bars in tens.items():
        ax.broken_barh(bars, (y - 0.35, 0.7), facecolors="#d1495b", edgecolors="#7a1f2b", linewidth=0.3,
                       alpha=0.6)
    colors = ["#00798c", "#edae49", "#66a182", "#2e4057", "#8d96a3", "#d1495b"]
    for sm, sp, start, end, cta, warp, pc in tl.tensor:
        ax.broken_barh([(start, end - start)], (prow[(sm, sp)] - 0.4, 0.8),
                       facecolors=colors[warp % len(colors)], edgecolors="white", linewidth=0.3)
    labels = [f"CTA{c} w{w}" for c, w in warps] + [""] + [f"SM{s} TC{p}" for s, p in pipes]
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("cycle")
    ax.set_title(title or "warpsim timeline", fontsize=10)
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color="#9aa5b1", label="instruction issue→complete"),
                       Patch(color="#d1495b", label="tensor op issue→complete"),
                       Patch(color="#00798c", label="tensor pipe occupied (colour = warp)")],
              loc="upper right", fontsize=7, framealpha=0.9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(args) -> int:
    from warpsim.module import RawModule

    mod = RawModule(path=args.file, arch=args.arch, ub_policy=args.ub_policy, timing=True,
                    device=args.device)
    kernel = mod.get_function(args.kernel)
    values = [parse_arg(a) for a in args.arg]
    stats = kernel(parse_dim(args.grid), parse_dim(args.block), values, shared_mem=args.shared_mem)
    tl = kernel.last_timeline
    print(f"kernel {args.kernel}  grid {args.grid}  block {args.block}  arch {mod.arch}  table {tl.params}")
    print(f"{stats.warp_instructions} warp instructions, {tl.cycles:.0f} cycles, "
          f"{len(tl.tensor)} tensor-pipe ops")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(chrome_trace(tl, args.kernel), fh)
        print(f"wrote {args.json}")
    if args.png:
        plot_png(tl, args.png, f"{args.kernel}: {tl.cycles:.0f} cycles ({tl.params})")
        print(f"wrote {args.png}")
    return 0


def register(sub) -> None:

    p = sub.add_parser("timeline", help="run a kernel on the timed engine; write a Perfetto JSON and a PNG")
    add_launch_arguments(p)
    p.add_argument("--json", default=None, help="Chrome/Perfetto trace-event JSON to write")
    p.add_argument("--png", default=None, help="PNG picture to write")
    p.set_defaults(func=run)
