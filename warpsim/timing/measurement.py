"""Reading the H100 measurement files of ``traces/h100`` (``l1_rate.json``, ``ifetch.json``, ...)."""
from __future__ import annotations

import json


def load(path: str, kind: str, keys: tuple) -> dict:
    """The JSON object in ``path``; a ValueError naming the file if it is not JSON or lacks one of ``keys``
    (it is then not a ``kind`` file)."""
    with open(path) as fh:
        try:
            doc = json.load(fh)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not JSON ({err})") from None
    if not isinstance(doc, dict) or any(k not in doc for k in keys):
        raise ValueError(f"{path}: not the {kind} measurement (no {' and '.join(repr(k) for k in keys)})")
    return doc


def load_rows(path: str, kind: str, bad, keys: tuple = ("how", "rows")) -> dict:
    """:func:`load` of a file of launches (``rows``, at least one), each row checked by ``bad(row)``: None, or
    what is wrong with it, raised as a ValueError naming the file."""
    doc = load(path, kind, keys)
    if not doc["rows"]:
        raise ValueError(f"{path}: no launches")
    for r in doc["rows"]:
        why = bad(r)
        if why:
            raise ValueError(f"{path}: {why}")
    return doc


def load_warp_rows(path: str, kind: str, kernels, warps, clocks: int, what: str) -> dict:
    """:func:`load_rows` of a probe whose every row is a launch of one of ``kernels`` with one of ``warps`` warps and
    ``clocks`` clocks a warp (``what`` they are, for the message)."""
    def bad(r):
        if r.get("kernel") not in kernels or r.get("warps") not in warps \
                or shape(r.get("t")) != (r.get("warps"), clocks):
            return (f"a row ({r.get('kernel')!r}, {r.get('warps')!r} warps) is not of KERNELS and WARPS with "
                    f"{what} a warp")
    return load_rows(path, kind, bad)


def expanded(runs: list) -> list:
    """A run-length coded list (``[[item, count], ...]``, as the capture scripts' ``runs_of`` writes the loops of a
    measurement file) in full."""
    return [x for x, count in runs for _ in range(count)]


def arguments(argv, doc: str) -> list | None:
    """An analysis's command-line arguments (``sys.argv[1:]`` unless ``argv`` is given), or None once its
    module's ``doc`` is printed for ``-h`` / ``--help``."""
    import sys
    argv = sys.argv[1:] if argv is None else list(argv)
    if "-h" in argv or "--help" in argv:
        print((doc or "").strip())
        return None
    return argv


def shape(t) -> tuple:
    """The shape of a nested list of clocks in a measurement file; () if it is ragged or not integers."""
    import numpy as np
    try:
        return np.shape(np.asarray(t, np.int64))
    except (ValueError, TypeError):
        return ()


def warp_cycles(t) -> float:
    """A warp's cycles between its two clock reads (``t``: ``[warp][t0, t1]``), the mean over the warps."""
    import numpy as np
    t = np.asarray(t, np.int64)
    return float(np.mean(t[:, 1] - t[:, 0]))


def medians(rows: list, fields: tuple, stat=warp_cycles, later: bool = True) -> dict:
    """``{row's fields: median of stat(row's clocks)}`` over the launches after the first (``repeat`` > 0; all
    of them unless ``later``); a stat of several figures (a tuple) gives each figure's median."""
    import numpy as np
    got: dict = {}
    for r in rows:
        if not later or r["repeat"] > 0:
            got.setdefault(tuple(r[f] for f in fields), []).append(stat(r["t"]))
    out = {}
    for k, v in got.items():
        m = np.median(np.asarray(v, np.float64), axis=0)
        out[k] = float(m) if m.ndim == 0 else tuple(float(x) for x in m)
    return out


def opened(argv, doc: str, load, path: str) -> dict | None:
    """The measurement file an analysis's command line names (its first argument, else ``path``) read by
    ``load``, with the file's ``how`` printed; None once ``doc`` is printed for ``-h`` / ``--help``."""
    argv = arguments(argv, doc)
    if argv is None:
        return None
    got = load(argv[0] if argv else path)
    print(got["how"])
    return got


def options(text: str) -> dict:
    """Table overrides given on the command line as a JSON object (``'{"l1": {"miss": 300}}'``); a
    SystemExit that says what was expected otherwise."""
    try:
        got = json.loads(text)
    except json.JSONDecodeError as err:
        raise SystemExit(f"error: {text!r} is not JSON ({err}); expected an object of table overrides, "
                         "e.g. '{\"l1\": {\"miss\": 300}}'") from None
    if not isinstance(got, dict):
        raise SystemExit(f"error: {text!r} is not a JSON object of table overrides, e.g. '{{\"hold\": 1}}'")
    return got


def options_in(argv: list) -> dict:
    """:func:`options` of the first command-line argument that is a JSON object (``{...}``), none if there is
    none."""
    return options(next((a for a in argv if a.startswith("{")), "{}"))


def h200_module(path: str, timing: bool = True, params=None):
    """``warpsim.RawModule`` of the PTX file at ``path`` timed as the H200 (the sm_90 table with the H200's L2,
    ``params_sm90.TABLE["devices"]``): what the analyses of ``traces/h200`` set beside the H200's cycles; with
    ``params``, timed by those instead (a table changed for a screen or a test)."""
    import warpsim
    if params is not None:
        return warpsim.RawModule(path=path, timing_params=params)
    return warpsim.RawModule(path=path, timing=timing, device="H200")
