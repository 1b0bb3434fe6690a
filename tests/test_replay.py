"""warpsim replay: program traces run the same PTX bit-exact; the CLI's table, JSON and exit statuses."""
import glob
import json
import os
import shutil

import pytest

from warpsim import cli
from warpsim.replay import replay_file

ROOT = os.path.join(os.path.dirname(__file__), "..", "traces", "h100")
PROGRAMS = sorted(glob.glob(os.path.join(ROOT, "program", "*.npz")))


@pytest.mark.parametrize("path", PROGRAMS, ids=os.path.basename)
def test_program_trace_is_bit_exact(path):
    res = replay_file(path)
    assert res.kind == "program" and res.ok, res.summary()


def test_programs_include_the_tiled_sparse_gemm_and_divergence():
    names = {os.path.basename(p) for p in PROGRAMS}
    assert "spgemm_f16_f32_m64n64k256.npz" in names and "divergent_collatz.npz" in names


def test_cli_table_and_exit_status(capsys):
    one = os.path.join(ROOT, "instruction", "i8_k32__intextreme.npz")
    assert cli.main(["replay", one, PROGRAMS[0]]) == 0
    out = capsys.readouterr().out
    assert "100.000%" in out and "bit-exact (100.000%): OK" in out and "NVIDIA H100" in out


def test_cli_json(capsys):
    assert cli.main(["replay", "--json", PROGRAMS[0]]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["ok"] and data[0]["kind"] == "program"


def test_cli_exit_2_and_message_on_a_truncated_trace(tmp_path, capsys):
    src = os.path.join(ROOT, "instruction", "i8_k32__intextreme.npz")
    bad = tmp_path / "cut.npz"
    bad.write_bytes(open(src, "rb").read()[:5000])
    assert cli.main(["replay", str(bad)]) == 2
    assert "cut.npz" in capsys.readouterr().err


def test_cli_jobs_replays_files_in_workers_with_the_same_results(tmp_path, capsys):
    """``--jobs 2`` replays the files in two forked workers: the same JSON, file for file and in order, as
    one at a time; a truncated file among them still exits 2 and names it."""
    files = [PROGRAMS[0], os.path.join(ROOT, "instruction", "i8_k32__intextreme.npz"),
             os.path.join(ROOT, "timing", "sp_f16_k16_f32.npz")]
    got = []
    for jobs in ("1", "2"):
        assert cli.main(["replay", "--json", "--jobs", jobs, *files]) == 0
        got.append(json.loads(capsys.readouterr().out))
    assert got[0] == got[1] and [r["path"] for r in got[1]] == [os.path.relpath(f) for f in files]
    bad = tmp_path / "cut.npz"
    bad.write_bytes(open(files[1], "rb").read()[:5000])
    assert cli.main(["replay", "--jobs", "2", files[0], str(bad)]) == 2
    assert "cut.npz" in capsys.readouterr().err


def test_cli_jobs_raises_a_workers_error_here(monkeypatch):
    """An error in a worker that its exception object could not bring back (an __init__ of two arguments)
    is raised here as a RuntimeError with the worker's traceback, not left hanging."""
    from warpsim import replay

    class Odd(Exception):
        def __init__(self, a, b):
            super().__init__(f"odd {a} {b}")

    def fail(*args, **kwargs):
        raise Odd(1, 2)
    monkeypatch.setattr(replay, "replay_file", fail)
    with pytest.raises(RuntimeError, match="Odd: odd 1 2"):
        cli.main(["replay", "--jobs", "2", PROGRAMS[0], PROGRAMS[1]])


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_a_warpsim_error_exits_1_with_its_message_in_either_mode(monkeypatch, capsys, jobs):
    """An error warpsim raises on purpose (a PtxError, whose __init__ takes a location) while replaying: exit
    status 1 and its message, whether the file was replayed here or in a worker."""
    from isa.errors import PtxError
    from warpsim import replay

    def fail(*args, **kwargs):
        raise PtxError(None, "the kernel's PTX is bad", "a valid PTX")
    monkeypatch.setattr(replay, "replay_file", fail)
    assert cli.main(["replay", "--jobs", jobs, PROGRAMS[0], PROGRAMS[1]]) == 1
    assert "the kernel's PTX is bad" in capsys.readouterr().err


def test_timing_replay_reports_a_bad_configuration_and_goes_on():
    """A configuration the trace has no kernel for is an error row; the prefetch of the SASS loops before the
    configurations run does not stop the others."""
    from warpsim.replay_timing import replay_timing

    path = os.path.join(ROOT, "timing", "sp_s4_k64.npz")
    bad, good = replay_timing(path, "sp_s4_k64", configs=[(99, 1, 4), (1, 1, 4)])
    assert bad.error and not good.error and abs(good.simulated_cycles / good.measured_cycles - 1) < 0.05


def test_cli_exit_1_on_a_value_mismatch(tmp_path, capsys):
    """A trace whose recorded D was changed (and re-checksummed) must be reported, not forgiven."""
    import numpy as np
    from warpsim import tracefile

    tr = tracefile.read_trace(os.path.join(ROOT, "instruction", "i8_k32__intextreme.npz"))
    arrays = dict(tr.arrays)
    arrays["d"] = arrays["d"].copy()
    arrays["d"][3, 7, 1] ^= 1
    path = tmp_path / "edited.npz"
    m = tr.manifest
    tracefile.write_trace(path, m["kind"], arrays, name=m["name"], ptx=m["ptx"], launch=m["launch"],
                          device=m["device"], meta=m["meta"])
    assert cli.main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "instance 3, lane 7, register 1" in out and "MISMATCH" in out


def test_timing_table_puts_the_fixed_latency_model_beside_the_calibrated_one():
    """The timing rows and summary show the Accel-Sim-like 32/32 model next to the calibrated one."""
    from warpsim.cmd_replay import table
    from warpsim.replay import GroupResult, TraceResult

    g1 = GroupResult("timing/x ilp1 warps1 reps4", 1, 1, measured_cycles=1000.0, simulated_cycles=1010.0,
                     baseline_cycles=1500.0)
    g2 = GroupResult("timing/x ilp4 warps1 reps4", 1, 0, measured_cycles=1000.0, simulated_cycles=1100.0,
                     baseline_cycles=1040.0)
    out = table([TraceResult("x.npz", "timing", "NVIDIA H100 80GB HBM3", [g1, g2])])
    assert "cycles sim 1010.0 hw 1000.0 (+1.0%)  fixed-latency 1500.0 (+50.0%)" in out
    assert "OUTSIDE 5%  cycles sim 1100.0 hw 1000.0 (+10.0%)  fixed-latency 1040.0 (+4.0%)" in out
    assert "timing: 2 configurations, 1 within 5% of the hardware, median error 5.50%, max 10.0%" in out
    assert ("fixed-latency 32/32 model (Accel-Sim's default): 2 configurations, 1 within 5% of the hardware, "
            "median error 27.00%, max 50.0%") in out


def test_timing_table_names_known_misses_and_counts_the_rest():
    """A configuration outside 5 % that warpsim.timing.known lists gets its cause under it; the summary counts
    the known misses and names the others."""
    from warpsim.cmd_replay import table
    from warpsim.replay import GroupResult, TraceResult
    from warpsim.timing import known

    note = known.note(known.find("sp_s4_k64", 1, 8, 32))
    g1 = GroupResult("timing/sp_s4_k64 ilp1 warps8 reps32", 1, 0, measured_cycles=1000.0, simulated_cycles=1063.0,
                     known=note)
    g2 = GroupResult("timing/x ilp4 warps1 reps4", 1, 0, measured_cycles=1000.0, simulated_cycles=1100.0)
    out = table([TraceResult("x.npz", "timing", "NVIDIA H100 80GB HBM3", [g1, g2])])
    lines = out.splitlines()
    at = next(i for i, ln in enumerate(lines) if "sp_s4_k64 ilp1 warps8" in ln)
    assert lines[at + 1].strip() == note and note.startswith("known: ") and "TIMING_FINDINGS.md#s4-" in note
    assert "outside 5%: 2, 1 of them known misses" in out and "; 1 NOT known" in out
    assert '"known": "known: ' in json.dumps(TraceResult("x.npz", "timing", "H100", [g1]).to_json())


def test_replaying_a_timing_trace_runs_the_fixed_latency_baseline():
    from warpsim.replay_timing import replay_timing

    path = os.path.join(ROOT, "timing", "sp_f16_k16_f32.npz")
    (g,) = replay_timing(path, "sp_f16_k16_f32", configs=[(1, 1, 4)], baseline=32.0)
    # one dependent mma per step: 32-cycle latency instead of the H100's 16.75 makes the loop slower
    assert g.baseline_cycles > 1.2 * g.measured_cycles
    assert abs(g.simulated_cycles - g.measured_cycles) < 0.05 * g.measured_cycles


def test_cli_json_carries_the_fixed_latency_cycles(capsys):
    path = os.path.join(ROOT, "timing", "sp_f16_k16_f32.npz")
    assert cli.main(["replay", "--json", path]) == 0
    groups = json.loads(capsys.readouterr().out)[0]["groups"]
    assert len(groups) == 12 and all(g["baseline_cycles"] > g["measured_cycles"] for g in groups)
