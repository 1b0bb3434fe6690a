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
        raise ValueError(f"{path}: not an {kind} file (no {' and '.join(repr(k) for k in keys)})")
    return doc
