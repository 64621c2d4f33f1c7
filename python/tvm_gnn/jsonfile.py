# Licensed under the Apache License, Version 2.0.
"""JSON files read back with errors that name the file and the line."""

from __future__ import annotations

import json
from pathlib import Path

from .errors import DataError


def read_json(path):
    """The JSON value in ``path``; :class:`~tvm_gnn.errors.DataError` naming the file, line and
    column if it is not valid JSON, or naming the file if it cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"cannot read {path}: {err}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(
            f"{path}, line {err.lineno} column {err.colno}: not valid JSON ({err.msg})"
        ) from None
