"""Trace file format: round trip and every way a file can be damaged."""
from __future__ import annotations

import json
import os
import zipfile

import numpy as np
import pytest

from warpsim.tracefile import (FORMAT_VERSION, TraceError, manifest_checksum, read_manifest, read_trace,
                               write_trace)

DEVICE = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "driver": "580.159.04", "cuda": "13.0"}
PTX = ".version 9.0\n.target sm_90a\n.address_size 64\n// kernel text\n"


def _instr_arrays(n=5, seed=1):
    rng = np.random.default_rng(seed)
    u = lambda r: rng.integers(0, 2**32, size=(n, 32, r), dtype=np.uint32)
    return {"a": u(2), "b": u(2), "c": u(4), "e": u(1), "d": u(4),
            "kernel_index": np.zeros(n, dtype=np.uint16)}


def _write(path, **kw):
    arrays = kw.pop("arrays", None) or _instr_arrays()
    return write_trace(path, "instruction", arrays, name="f16_k16_f32/normal", ptx=PTX,
                       launch={"block": [128, 1, 1], "launches": [{"kernel": "k0", "first": 0, "count": 5,
                                                                    "grid": [2, 1, 1]}]},
                       device=DEVICE, meta={"kernels": [{"name": "k0", "selector": 0}], "class": "normal"}, **kw)


def _rewrite(src, dst, drop=(), replace=None):
    """Copy a zip member by member, dropping or replacing some members."""
    replace = replace or {}
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            data = replace.get(info.filename, zin.read(info.filename))
            zout.writestr(info.filename, data)


def test_round_trip(tmp_path):
    arrays = _instr_arrays()
    p = _write(tmp_path / "t.npz", arrays=arrays)
    t = read_trace(p)
    assert t.kind == "instruction" and t.version == FORMAT_VERSION
    assert t.device["name"] == DEVICE["name"] and t.ptx == PTX
    assert t.meta["class"] == "normal" and t.launch["block"] == [128, 1, 1]
    for k, v in arrays.items():
        assert t[k].dtype == v.dtype and np.array_equal(t[k], v)
    # plain numpy can open it too, and the manifest is plain JSON
    with np.load(p) as z:
        assert np.array_equal(z["d"], arrays["d"])
    assert read_manifest(p)["arrays"]["a"]["shape"] == [5, 32, 2]
    # no temporary file left behind, and writing is deterministic for equal content
    assert os.listdir(tmp_path) == ["t.npz"]
    p2 = _write(tmp_path / "t2.npz", arrays=arrays, created=t.created)
    assert open(p, "rb").read() == open(p2, "rb").read()


def test_other_kinds_round_trip(tmp_path):
    x = np.arange(64, dtype=np.float32)
    p = write_trace(tmp_path / "p.npz", "program", {"in_x": x, "out_x": x * 2}, name="prog", ptx=PTX,
                    launch={"kernel": "k", "grid": [1, 1, 1], "block": [64, 1, 1],
                            "params": [{"name": "x", "type": "u64", "array": "in_x", "out_array": "out_x"}]},
                    device=DEVICE)
    assert np.array_equal(read_trace(p)["out_x"], x * 2)
    s = np.arange(8, dtype=np.int64).reshape(2, 4)
    p = write_trace(tmp_path / "t.npz", "timing", {"start": s, "end": s + 100}, name="tim", ptx=PTX,
                    launch={}, device=DEVICE)
    assert int((read_trace(p)["end"] - read_trace(p)["start"]).min()) == 100


def test_truncated_file(tmp_path):
    p = _write(tmp_path / "t.npz")
    data = open(p, "rb").read()
    open(p, "wb").write(data[: len(data) // 2])
    with pytest.raises(TraceError, match=r"not a readable trace archive \(truncated"):
        read_trace(p)


def test_flipped_byte_in_array_data(tmp_path):
    p = _write(tmp_path / "t.npz")
    with zipfile.ZipFile(p) as zf:
        info = zf.getinfo("d.npy")
    data = bytearray(open(p, "rb").read())
    fname_len = int.from_bytes(data[info.header_offset + 26: info.header_offset + 28], "little")
    extra_len = int.from_bytes(data[info.header_offset + 28: info.header_offset + 30], "little")
    start = info.header_offset + 30 + fname_len + extra_len
    data[start + info.compress_size // 2] ^= 0x10
    open(p, "wb").write(bytes(data))
    with pytest.raises(TraceError, match=r"member 'd\.npy' is corrupted") as ei:
        read_trace(p)
    assert ei.value.path == str(p)


def test_tampered_array_with_valid_zip(tmp_path):
    """An array replaced by a well-formed but different one fails the SHA-256 check."""
    p = _write(tmp_path / "t.npz")
    t = read_trace(p)
    d = t["d"].copy()
    d[0, 0, 0] ^= 1
    import io
    buf = io.BytesIO()
    np.lib.format.write_array(buf, d)
    q = tmp_path / "q.npz"
    _rewrite(p, q, replace={"d.npy": buf.getvalue()})
    with pytest.raises(TraceError, match=r"array 'd' fails its SHA-256 check"):
        read_trace(q)


def test_tampered_manifest(tmp_path):
    p = _write(tmp_path / "t.npz")
    m = read_manifest(p)
    m["ptx"] = m["ptx"].replace("kernel", "kernal")
    q = tmp_path / "q.npz"
    _rewrite(p, q, replace={"manifest.json": json.dumps(m)})
    with pytest.raises(TraceError, match=r"manifest fails its SHA-256 check"):
        read_trace(q)


def test_wrong_version(tmp_path):
    p = _write(tmp_path / "t.npz")
    m = read_manifest(p)
    m["version"] = 99
    m["checksum"]["manifest"] = manifest_checksum(m)
    q = tmp_path / "q.npz"
    _rewrite(p, q, replace={"manifest.json": json.dumps(m)})
    with pytest.raises(TraceError, match=r"unsupported trace format version 99; this reader knows version\(s\) 1"):
        read_trace(q)


def test_missing_array_member(tmp_path):
    p = _write(tmp_path / "t.npz")
    q = tmp_path / "q.npz"
    _rewrite(p, q, drop=("d.npy",))
    with pytest.raises(TraceError, match=r"manifest lists array 'd' but the archive has no member 'd\.npy'"):
        read_trace(q)


def test_missing_manifest(tmp_path):
    p = _write(tmp_path / "t.npz")
    q = tmp_path / "q.npz"
    _rewrite(p, q, drop=("manifest.json",))
    with pytest.raises(TraceError, match=r"archive has no 'manifest\.json' member"):
        read_trace(q)


def test_shape_mismatch(tmp_path):
    p = _write(tmp_path / "t.npz")
    import io
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros((5, 32, 3), np.uint32))
    q = tmp_path / "q.npz"
    _rewrite(p, q, replace={"d.npy": buf.getvalue()})
    with pytest.raises(TraceError, match=r"array 'd' has shape \(5, 32, 3\), manifest says \(5, 32, 4\)"):
        read_trace(q)


def test_extra_member(tmp_path):
    p = _write(tmp_path / "t.npz")
    q = tmp_path / "q.npz"
    _rewrite(p, q)
    with zipfile.ZipFile(q, "a") as zf:
        zf.writestr("evil.npy", b"x")
    with pytest.raises(TraceError, match=r"unexpected member\(s\) not listed in the manifest: evil\.npy"):
        read_trace(q)


def test_write_refuses_bad_instruction_trace(tmp_path):
    arrays = _instr_arrays()
    arrays["d"] = arrays["d"][:3]
    with pytest.raises(TraceError, match=r"array 'd' has 3 instances, array 'a' has 5"):
        _write(tmp_path / "t.npz", arrays=arrays)
    assert not os.listdir(tmp_path)  # nothing (not even a temp file) was left


def test_write_refuses_object_arrays(tmp_path):
    with pytest.raises(TraceError, match=r"dtype '\|O' not allowed"):
        write_trace(tmp_path / "t.npz", "timing", {"start": np.zeros(2, np.int64), "end": np.zeros(2, np.int64),
                                                   "x": np.array([None, 1], dtype=object)},
                    name="x", ptx=PTX, launch={}, device=DEVICE)


def test_missing_file(tmp_path):
    with pytest.raises(TraceError, match=r"no such file"):
        read_trace(tmp_path / "nope.npz")
