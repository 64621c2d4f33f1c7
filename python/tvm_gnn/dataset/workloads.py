# Licensed under the Apache License, Version 2.0.
"""A database's workloads as TVM's ``Workload``, under any supported TVM.

A workload line holds the IRModule in TVM's JSON graph, which only the TVM that wrote it is sure
to read: TVM 0.27 cannot read 0.26's (``Cannot convert from type `ir.Type` to `BigInt```). Each
network folder of the committed archive therefore also keeps its workloads as TVMScript
(:data:`SCRIPT_FILE`, ``{shash: script}``, written under 0.26 by
``benchmarks/dataset/workload_scripts.py``), which both versions parse to the same programs:
the records' traces replay on them and featurize exactly as under 0.26
(``tests/dataset/test_workloads.py``). The JSON is tried first; the script only where it fails.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

SCRIPT_FILE = "workload_scripts.json.gz"


class Workloads:
    """The workloads of one network folder, by line of its workload file, parsed once each."""

    def __init__(self, folder: Path, lines: list[str]):
        self.folder, self.lines = Path(folder), lines
        self._parsed: dict[int, object] = {}
        self._scripts: dict[str, str] | None = None

    def __getitem__(self, index: int):
        if index not in self._parsed:
            self._parsed[index] = self._parse(self.lines[index])
        return self._parsed[index]

    def _parse(self, line: str):
        from tvm.s_tir import meta_schedule as ms

        entry = json.loads(line)
        try:
            return ms.database.Workload.from_json(entry)
        except Exception as err:  # noqa: BLE001 - TVM raises its own error types
            script = self.scripts().get(str(entry[0]))
            if script is None:
                raise
            try:
                return ms.database.Workload(_from_script(script))
            except Exception:  # noqa: BLE001 - say why the JSON failed, not the script
                raise err from None

    def scripts(self) -> dict[str, str]:
        if self._scripts is None:
            path = self.folder / SCRIPT_FILE
            self._scripts = read_scripts(path, len(self.lines)) if path.exists() else {}
        return self._scripts


def read_scripts(path: Path, workloads: int) -> dict[str, str]:
    """A :data:`SCRIPT_FILE`, checked: :class:`~tvm_gnn.errors.DataError` naming it and what is
    lost (the folder's ``workloads`` this TVM reads only through it) if it is cut or not one."""
    from ..errors import DataError

    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as err:
        reason = getattr(err, "msg", None) or str(err).splitlines()[0] or type(err).__name__
        data, why = None, f"cut or corrupt ({reason})"
    else:
        why = "not a map of workload hashes to TVMScript"
    if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()):
        return data
    raise DataError(
        f"{path}: {why}; a TVM that cannot read the workloads' JSON (0.27 reading 0.26's) reads "
        f"the {workloads} workloads of its folder only through it. Restore it (`git checkout`, "
        "or `tvm-gnn unpack` again)"
    )


def _from_script(script: str):
    import tvm

    mod = tvm.script.from_source(script)
    return mod if isinstance(mod, tvm.IRModule) else tvm.IRModule({"main": mod})


def scripts_of(lines: list[str]) -> dict[str, str]:
    """``{shash: TVMScript}`` of workload lines this TVM reads (what :data:`SCRIPT_FILE` holds)."""
    from tvm.s_tir import meta_schedule as ms

    out = {}
    for line in lines:
        entry = json.loads(line)
        out[str(entry[0])] = ms.database.Workload.from_json(entry).mod.script()
    return out
