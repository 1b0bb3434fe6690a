"""``warpsim run``: argument specs, summary, --out files, errors."""
from pathlib import Path

import numpy as np
import pytest

from warpsim.cli import main
from warpsim.cmd_run import parse_arg

PTX = str(Path(__file__).parent / "ptx" / "machine" / "kernels.ptx")


def test_run_vadd_writes_outputs(tmp_path, capsys):
    a = np.arange(200, dtype=np.float32)
    np.save(tmp_path / "a.npy", a)
    rc = main(["run", PTX, "--kernel", "vadd", "--grid", "2", "--block", "128", "--arg", str(tmp_path / "a.npy"),
               "--arg", str(tmp_path / "a.npy"), "--arg", "zeros:200:f32", "--arg", "i32:200",
               "--out", str(tmp_path / "out")])
    assert rc == 0
    text = capsys.readouterr().out
    assert "kernel vadd  grid 2  block 128" in text and "warp instructions in 2 CTAs" in text
    c = np.load(tmp_path / "out" / "arg2_vadd_param_2.npy")
    assert np.array_equal(c, 2 * a)


def test_run_2d_grid_and_scalar_specs(tmp_path):
    rc = main(["run", PTX, "--kernel", "scale2d", "--grid", "2,2,1", "--block", "16,8", "--arg", "zeros:16,32:f64",
               "--arg", "zeros:16,32:f64", "--arg", "i32:32", "--arg", "i32:16", "--arg", "f64:2", "--out",
               str(tmp_path)])
    assert rc == 0
    assert np.array_equal(np.load(tmp_path / "arg1_scale2d_param_1.npy"), np.repeat(np.arange(16.0)[:, None], 32, 1))


def test_arg_specs():
    assert parse_arg("u64:7") == np.uint64(7) and parse_arg("u64:7").dtype == np.uint64
    assert parse_arg("f32:1.5") == np.float32(1.5)
    z = parse_arg("zeros:32,4:i16")
    assert z.shape == (32, 4) and z.dtype == np.int16


def test_errors_are_one_line_messages(capsys):
    assert main(["run", PTX, "--kernel", "vadd", "--arg", "zeros:8:f32"]) == 1
    assert "takes 4 arguments" in capsys.readouterr().err
    assert main(["run", PTX, "--kernel", "vadd", "--arg", "q7:3"]) == 1
    assert "unknown dtype 'q7'" in capsys.readouterr().err
    assert main(["run", PTX, "--kernel", "nope"]) == 1
    assert "no kernel named 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", PTX])  # --kernel is required


def test_python_dash_m_warpsim_is_the_command():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "warpsim", "forms"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "m16n8k16" in r.stdout


def test_bench_writes_every_figure(tmp_path):
    """`warpsim bench` runs (its figures are measured, never asserted: only that each is written and positive)."""
    import json
    from warpsim.bench_engine import ENGINE_BENCHES
    from warpsim.cli import main
    out = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--filter", "m16n8k16.f32.f16.f16.f32", "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert set(got["engines"]) == {name for name, _ in ENGINE_BENCHES} and all(v > 0 for v in got["engines"].values())
    assert got["mma_sp_instances_per_s"]["m16n8k16.f32.f16.f16.f32"] > 0 and got["machine"]["cores_used"] == 1
