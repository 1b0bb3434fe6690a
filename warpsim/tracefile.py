"""warpsim trace files: recorded truth from a real GPU.

A trace file is ONE ``.npz`` file (a zip archive that ``numpy.load`` can open) holding

* ``manifest.json`` -- a UTF-8 JSON document that describes everything (see below), and
* one ``<name>.npy`` member per array (standard NumPy ``.npy`` format, little-endian, no pickles).

``unzip -p FILE.npz manifest.json`` shows the manifest; ``numpy.load(FILE.npz)["d"]`` gives an array.
Use :func:`read_trace` to read one with every check done, and :func:`write_trace` to write one.

Manifest, format version 1 (``"format": "warpsim-trace"``, ``"version": 1``)::

    {
      "format":   "warpsim-trace",
      "version":  1,
      "kind":     "instruction" | "program" | "timing",
      "name":     short name of the trace (free text),
      "created":  ISO 8601 UTC time of the capture,
      "device":   {"name": GPU name, "compute_capability": "9.0", "driver": driver version,
                   "cuda": CUDA version the program ran with, ...more keys allowed},
      "ptx":      the complete PTX module text the GPU ran (str),
      "launch":   how the PTX was launched (dict; per kind, see below),
      "meta":     free-form description (dict): forms, selectors, input class, UB labels, ...,
      "arrays":   {name: {"shape": [...], "dtype": "<u4", "sha256": hex of the raw bytes}},
      "checksum": {"algorithm": "sha256", "arrays": hex, "manifest": hex}
    }

``checksum.arrays`` is SHA-256 over, for every array in sorted name order, the bytes
``name 0x00 dtype.str 0x00 "d0,d1,..." 0x00 <C-order little-endian data>``.
``checksum.manifest`` is SHA-256 over the manifest without its ``checksum`` key, serialised as
``json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` in UTF-8. Together
they catch any change to the data or to the description (PTX text included).

Per kind, :func:`read_trace` also checks:

* ``instruction`` -- arrays ``a``, ``b``, ``c``, ``e``, ``d`` (uint32, shape ``(N, 32, nregs)``, one
  row per warp-instance, one column per lane, ``e`` has ``nregs == 1``). Optional ``kernel_index``
  (shape ``(N,)``, integer) indexes ``meta["kernels"]`` (a list); ``launch["launches"]`` lists the
  launches (kernel, first instance, count, grid, block).
* ``program`` -- ``launch`` has ``kernel`` (str), ``grid`` and ``block`` (3 ints each) and
  ``params`` (list of ``{"name", "type", "array"?: name, "value"?: number}``); every array a param
  names exists. Pointer params name an input array ``in_<x>``; the memory after the run is ``out_<x>``.
* ``timing`` -- arrays ``start`` and ``end`` (integer clocks, same shape).

Only numpy and the standard library are used, so this file can be copied or loaded on its own
(the GPU capture harness loads it by path on machines where warpsim is not installed).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

try:  # part of warpsim's error family when the package is importable; standalone otherwise
    from isa.errors import WarpsimError as _Base
except Exception:  # pragma: no cover - standalone use on the GPU machine
    _Base = Exception

FORMAT_NAME = "warpsim-trace"
FORMAT_VERSION = 1
SUPPORTED_VERSIONS = (1,)
KINDS = ("instruction", "program", "timing")
MANIFEST_MEMBER = "manifest.json"
REQUIRED_KEYS = ("format", "version", "kind", "name", "created", "device", "ptx", "launch", "meta",
                 "arrays", "checksum")
REQUIRED_DEVICE_KEYS = ("name", "compute_capability", "driver", "cuda")
_ALLOWED_DTYPE_KINDS = "biuf"  # bool, signed, unsigned, float: never objects or pickles
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed member dates: same content -> same bytes


class TraceError(_Base):
    """A trace file that cannot be trusted: names the file and says what is wrong."""

    def __init__(self, path, what: str):
        self.path = str(path)
        self.what = what
        super().__init__(f"{self.path}: {what}")


@dataclass
class Trace:
    """A trace read from disk (or about to be written)."""

    manifest: dict
    arrays: dict = field(default_factory=dict)
    path: str | None = None

    kind = property(lambda self: self.manifest["kind"])
    name = property(lambda self: self.manifest["name"])
    version = property(lambda self: self.manifest["version"])
    device = property(lambda self: self.manifest["device"])
    ptx = property(lambda self: self.manifest["ptx"])
    launch = property(lambda self: self.manifest["launch"])
    meta = property(lambda self: self.manifest["meta"])
    created = property(lambda self: self.manifest["created"])

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def __contains__(self, name: str) -> bool:
        return name in self.arrays


# --------------------------------------------------------------------------- checksums


def _canonical_json(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _le(arr: np.ndarray) -> np.ndarray:
    """C-contiguous little-endian copy (no copy when it already is)."""
    arr = np.asarray(arr)
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and not np.little_endian):
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return np.ascontiguousarray(arr)


def array_sha256(arr: np.ndarray) -> str:
    """SHA-256 of one array's raw C-order little-endian bytes."""
    return hashlib.sha256(_le(arr).tobytes()).hexdigest()


def arrays_checksum(arrays: Mapping[str, np.ndarray]) -> str:
    """SHA-256 over all arrays (names, dtypes, shapes and data), in sorted name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = _le(arrays[name])
        h.update(name.encode("utf-8") + b"\0")
        h.update(a.dtype.str.encode("ascii") + b"\0")
        h.update(",".join(str(int(s)) for s in a.shape).encode("ascii") + b"\0")
        h.update(a.tobytes())
    return h.hexdigest()


def manifest_checksum(manifest: Mapping[str, Any]) -> str:
    """SHA-256 over the canonical JSON of the manifest without its ``checksum`` key."""
    return hashlib.sha256(_canonical_json({k: v for k, v in manifest.items() if k != "checksum"})).hexdigest()


# --------------------------------------------------------------------------- writing


def _jsonable(obj):
    """Turn numpy scalars/arrays inside meta/launch into plain JSON values."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    return obj


def build_manifest(kind: str, arrays: Mapping[str, np.ndarray], *, name: str, ptx: str,
                   launch: Mapping, device: Mapping, meta: Mapping | None = None,
                   created: str | None = None) -> dict:
    """The manifest :func:`write_trace` stores (checksums included)."""
    arrays = {k: _le(v) for k, v in arrays.items()}
    if created is None:
        created = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    m = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "kind": kind,
        "name": name,
        "created": created,
        "device": _jsonable(dict(device)),
        "ptx": ptx,
        "launch": _jsonable(dict(launch)),
        "meta": _jsonable(dict(meta or {})),
        "arrays": {k: {"shape": [int(s) for s in v.shape], "dtype": v.dtype.str, "sha256": array_sha256(v)}
                   for k, v in sorted(arrays.items())},
    }
    m["checksum"] = {"algorithm": "sha256", "arrays": arrays_checksum(arrays), "manifest": manifest_checksum(m)}
    return m


def write_trace(path, kind: str, arrays: Mapping[str, np.ndarray], *, name: str, ptx: str,
                launch: Mapping, device: Mapping, meta: Mapping | None = None,
                created: str | None = None, compresslevel: int = 9) -> str:
    """Write a trace atomically (temporary file in the same folder, then ``os.replace``).

    The manifest is validated exactly as :func:`read_trace` validates it, so nothing unreadable is
    ever written. Returns the path written.
    """
    path = os.fspath(path)
    arrays = {str(k): _le(v) for k, v in arrays.items()}
    manifest = build_manifest(kind, arrays, name=name, ptx=ptx, launch=launch, device=device, meta=meta,
                              created=created)
    _validate_manifest(path, manifest)
    _validate_arrays(path, manifest, arrays)

    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=compresslevel) as zf:
                info = zipfile.ZipInfo(MANIFEST_MEMBER, date_time=_ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, json.dumps(manifest, indent=1, ensure_ascii=False).encode("utf-8"))
                for k in sorted(arrays):
                    buf = io.BytesIO()
                    np.lib.format.write_array(buf, arrays[k], allow_pickle=False)
                    info = zipfile.ZipInfo(k + ".npy", date_time=_ZIP_DATE)
                    info.compress_type = zipfile.ZIP_DEFLATED
                    zf.writestr(info, buf.getvalue())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


# --------------------------------------------------------------------------- reading


def _is_int_list(x, n=None) -> bool:
    return (isinstance(x, list) and (n is None or len(x) == n)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in x))


def _validate_manifest(path, m) -> None:
    if not isinstance(m, dict):
        raise TraceError(path, f"manifest is a JSON {type(m).__name__}, expected an object")
    if m.get("format") != FORMAT_NAME:
        raise TraceError(path, f"not a warpsim trace: manifest 'format' is {m.get('format')!r}, "
                               f"expected {FORMAT_NAME!r}")
    v = m.get("version")
    if v not in SUPPORTED_VERSIONS:
        raise TraceError(path, f"unsupported trace format version {v!r}; this reader knows version(s) "
                               f"{', '.join(map(str, SUPPORTED_VERSIONS))}")
    missing = [k for k in REQUIRED_KEYS if k not in m]
    if missing:
        raise TraceError(path, f"manifest lacks required key(s): {', '.join(missing)}")
    if m["kind"] not in KINDS:
        raise TraceError(path, f"unknown trace kind {m['kind']!r}; expected one of {', '.join(KINDS)}")
    for key, typ in (("name", str), ("created", str), ("ptx", str), ("device", dict), ("launch", dict),
                     ("meta", dict), ("arrays", dict), ("checksum", dict)):
        if not isinstance(m[key], typ):
            raise TraceError(path, f"manifest key {key!r} is a {type(m[key]).__name__}, expected {typ.__name__}")
    miss_dev = [k for k in REQUIRED_DEVICE_KEYS if k not in m["device"]]
    if miss_dev:
        raise TraceError(path, f"manifest 'device' lacks: {', '.join(miss_dev)}")
    for name, spec in m["arrays"].items():
        if not isinstance(spec, dict) or not _is_int_list(spec.get("shape")) or not isinstance(spec.get("dtype"), str) \
                or not isinstance(spec.get("sha256"), str):
            raise TraceError(path, f"manifest entry for array {name!r} must have 'shape' (list of ints), "
                                   f"'dtype' (str) and 'sha256' (str); got {spec!r}")
        try:
            dt = np.dtype(spec["dtype"])
        except TypeError:
            raise TraceError(path, f"array {name!r}: unknown dtype {spec['dtype']!r}") from None
        if dt.kind not in _ALLOWED_DTYPE_KINDS:
            raise TraceError(path, f"array {name!r}: dtype {spec['dtype']!r} not allowed (numeric or bool only)")
    c = m["checksum"]
    if c.get("algorithm") != "sha256" or not isinstance(c.get("arrays"), str) or not isinstance(c.get("manifest"), str):
        raise TraceError(path, f"manifest 'checksum' must be {{'algorithm': 'sha256', 'arrays': hex, "
                               f"'manifest': hex}}; got {c!r}")
    _validate_kind(path, m)


def _shape(m, name):
    return tuple(m["arrays"][name]["shape"])


def _validate_kind(path, m) -> None:
    kind, arrs, launch, meta = m["kind"], m["arrays"], m["launch"], m["meta"]
    if kind == "instruction":
        for k in "abced":
            if k not in arrs:
                raise TraceError(path, f"instruction trace lacks array {k!r} (needs a, b, c, e, d)")
            if np.dtype(arrs[k]["dtype"]) != np.dtype("<u4"):
                raise TraceError(path, f"instruction trace array {k!r} has dtype {arrs[k]['dtype']}, expected "
                                       f"<u4 (raw 32-bit registers)")
            s = _shape(m, k)
            if len(s) != 3 or s[1] != 32:
                raise TraceError(path, f"instruction trace array {k!r} has shape {s}, expected (N, 32, nregs)")
        n = _shape(m, "a")[0]
        for k in "bced":
            if _shape(m, k)[0] != n:
                raise TraceError(path, f"instruction trace array {k!r} has {_shape(m, k)[0]} instances, "
                                       f"array 'a' has {n}")
        if _shape(m, "e")[2] != 1:
            raise TraceError(path, f"instruction trace array 'e' has shape {_shape(m, 'e')}, expected (N, 32, 1)")
        if "kernel_index" in arrs:
            if _shape(m, "kernel_index") != (n,) or np.dtype(arrs["kernel_index"]["dtype"]).kind not in "iu":
                raise TraceError(path, f"'kernel_index' must be an integer array of shape ({n},); got "
                                       f"{arrs['kernel_index']}")
            if not isinstance(meta.get("kernels"), list) or not meta["kernels"]:
                raise TraceError(path, "instruction trace has 'kernel_index' but meta['kernels'] is not a "
                                       "non-empty list")
    elif kind == "program":
        for k in ("kernel", "grid", "block", "params"):
            if k not in launch:
                raise TraceError(path, f"program trace launch lacks {k!r} (needs kernel, grid, block, params)")
        if not isinstance(launch["kernel"], str):
            raise TraceError(path, "program trace launch 'kernel' must be a string")
        for k in ("grid", "block"):
            if not _is_int_list(launch[k], 3):
                raise TraceError(path, f"program trace launch {k!r} must be 3 ints; got {launch[k]!r}")
        if not isinstance(launch["params"], list):
            raise TraceError(path, "program trace launch 'params' must be a list")
        for p in launch["params"]:
            if not isinstance(p, dict) or "name" not in p or "type" not in p:
                raise TraceError(path, f"program trace param {p!r} needs 'name' and 'type'")
            for key in ("array", "out_array"):
                if key in p and p[key] not in arrs:
                    raise TraceError(path, f"program trace param {p['name']!r} names array {p[key]!r}, "
                                           f"which the trace does not have")
    elif kind == "timing":
        for k in ("start", "end"):
            if k not in arrs:
                raise TraceError(path, f"timing trace lacks array {k!r} (needs start and end clocks)")
            if np.dtype(arrs[k]["dtype"]).kind not in "iu":
                raise TraceError(path, f"timing trace array {k!r} has dtype {arrs[k]['dtype']}, expected integers")
        if _shape(m, "start") != _shape(m, "end"):
            raise TraceError(path, f"timing trace 'start' {_shape(m, 'start')} and 'end' {_shape(m, 'end')} "
                                   f"differ in shape")


def _validate_arrays(path, m, arrays) -> None:
    names, listed = set(arrays), set(m["arrays"])
    if names - listed:
        raise TraceError(path, f"array(s) {', '.join(sorted(names - listed))} not listed in the manifest")
    for name, spec in m["arrays"].items():
        if name not in arrays:
            raise TraceError(path, f"manifest lists array {name!r} but the archive has no member {name + '.npy'!r}")
        a = arrays[name]
        if a.dtype != np.dtype(spec["dtype"]):
            raise TraceError(path, f"array {name!r} has dtype {a.dtype.str}, manifest says {spec['dtype']}")
        if list(a.shape) != spec["shape"]:
            raise TraceError(path, f"array {name!r} has shape {tuple(a.shape)}, manifest says {tuple(spec['shape'])}")
        if array_sha256(a) != spec["sha256"]:
            raise TraceError(path, f"array {name!r} fails its SHA-256 check (data changed after writing)")
    if arrays_checksum(arrays) != m["checksum"]["arrays"]:
        raise TraceError(path, "SHA-256 checksum over the arrays does not match the manifest")


def read_trace(path) -> Trace:
    """Read and fully validate a trace file; raise :class:`TraceError` saying what is wrong."""
    path = os.fspath(path)
    try:
        zf = zipfile.ZipFile(path, "r")
    except FileNotFoundError:
        raise TraceError(path, "no such file") from None
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        size = os.path.getsize(path) if os.path.exists(path) else 0
        raise TraceError(path, f"not a readable trace archive (truncated or not a zip/npz file, "
                               f"{size} bytes): {exc}") from None
    with zf:
        members = zf.namelist()
        if MANIFEST_MEMBER not in members:
            raise TraceError(path, f"archive has no {MANIFEST_MEMBER!r} member (not a warpsim trace, or it was "
                                   f"removed); members: {', '.join(members) or 'none'}")

        def _read(member: str) -> bytes:
            try:
                return zf.read(member)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
                raise TraceError(path, f"member {member!r} is corrupted (flipped or missing bytes): {exc}") from None

        manifest = _parse_manifest(path, _read(MANIFEST_MEMBER))
        expected = {MANIFEST_MEMBER} | {k + ".npy" for k in manifest["arrays"]}
        extra = sorted(set(members) - expected)
        if extra:
            raise TraceError(path, f"unexpected member(s) not listed in the manifest: {', '.join(extra)}")
        arrays = {}
        for name in manifest["arrays"]:
            member = name + ".npy"
            if member not in members:
                raise TraceError(path, f"manifest lists array {name!r} but the archive has no member {member!r}")
            data = _read(member)
            try:
                arrays[name] = np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
            except Exception as exc:  # malformed .npy header or short data
                raise TraceError(path, f"member {member!r} is not a valid .npy array: {exc}") from None
        _validate_arrays(path, manifest, arrays)
    return Trace(manifest=manifest, arrays=arrays, path=path)


def read_manifest(path) -> dict:
    """Only the manifest (validated, manifest checksum checked); arrays are not read."""
    path = os.fspath(path)
    try:
        with zipfile.ZipFile(path, "r") as zf:
            raw = zf.read(MANIFEST_MEMBER)
    except FileNotFoundError:
        raise TraceError(path, "no such file") from None
    except KeyError:
        raise TraceError(path, f"archive has no {MANIFEST_MEMBER!r} member") from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
        raise TraceError(path, f"not a readable trace archive (truncated or corrupted): {exc}") from None
    return _parse_manifest(path, raw)


def _parse_manifest(path, raw: bytes) -> dict:
    """The manifest's bytes → a dict whose schema and SHA-256 checksum have been checked."""
    try:
        m = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TraceError(path, f"{MANIFEST_MEMBER} is not valid UTF-8 JSON: {exc}") from None
    _validate_manifest(path, m)
    if manifest_checksum(m) != m["checksum"]["manifest"]:
        raise TraceError(path, "manifest fails its SHA-256 check (the description or PTX text was changed after "
                               "writing)")
    return m


__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "KINDS", "Trace", "TraceError", "write_trace", "read_trace",
           "read_manifest", "build_manifest", "arrays_checksum", "array_sha256", "manifest_checksum"]
