# Licensed under the Apache License, Version 2.0.
"""How long the first ``TuneContext`` of a process takes: TVM's import of its tensor intrinsics,
as TVM does it, through ``tvm_gnn``'s import hook (``tvm_gnn.measure.intrinsics``), and with the
upstream patch series applied to TVM (patch 0005 makes the parser's stack cheap; no hook).

Each row is a fresh process: bare (``tvm`` alone) or with torch and PyG loaded first, as in every
``tvm-gnn`` command that holds a model. The digest is of the intrinsics the import registered,
printed as TVMScript: the three ways must agree.

    .venv/bin/python benchmarks/upstream/intrinsics_import.py
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

RUN = """
import hashlib, inspect, json, sys, time
if {torch}:
    import torch, torch_geometric
if {hook}:
    import tvm_gnn  # installs the hook (tvm_gnn.measure.intrinsics)
import tvm
from tvm.s_tir import meta_schedule as ms
modules = len(sys.modules)
start = time.perf_counter()
ms.TuneContext(target=tvm.target.Target({{"kind": "llvm", "num-cores": 1}}))
seconds = time.perf_counter() - start
from tvm.s_tir import TensorIntrin
from tvm.s_tir.tensor_intrin import cuda, x86
assert TensorIntrin.get(x86.AVX512_DOT_16x4_INTRIN) is not None
h = hashlib.sha256()
for mod in (cuda, x86):
    for name, value in sorted(vars(mod).items()):
        if isinstance(value, tvm.tirx.PrimFunc):
            h.update(name.encode() + value.script().encode())
print(json.dumps({{
    "modules": modules,
    "seconds": seconds,
    "digest": h.hexdigest()[:16],
    "loader": type(sys.modules["tvm.s_tir.tensor_intrin"].__loader__).__name__,
    "stack_after": inspect.stack.__module__,
}}))
"""


def first_context(torch: bool, hook: bool, tvm_path: Path | None = None) -> dict:
    """One fresh process's first TuneContext: ``modules`` loaded before it, its ``seconds``, the
    ``digest`` of the intrinsics it registered, the ``loader`` that imported them, the module
    ``inspect.stack`` belongs to afterwards (``stack_after``) and the ``tvm`` it imported. With
    ``tvm_path``, ``tvm`` comes from that folder (a patched copy: ``patched_tvm.py``)."""
    env = dict(os.environ)
    if tvm_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tvm_path), env.get("PYTHONPATH")]))
    code = RUN.format(torch=torch, hook=hook) + "print(json.dumps(tvm.__file__))\n"
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
    ).stdout
    lines = out.splitlines()
    return {**json.loads(lines[-2]), "tvm": json.loads(lines[-1])}


def _patched_tvm(root: Path) -> Path:
    spec = importlib.util.spec_from_file_location(
        "patched_tvm", Path(__file__).with_name("patched_tvm.py")
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.patched_copy(root)


def main(argv=None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    from tvm_gnn.measure.hardware import cpu_identity, cpu_model, usable_cores

    today = datetime.date.today().isoformat()
    python = platform.python_version()
    cpu = f"{cpu_model()} ({cpu_identity()['llvm']})"
    print(f"Machine: {cpu}, {usable_cores()} cores; Python {python}; {today}\n")
    print(
        "| process | modules loaded | TVM's import (s) | through the hook (s) "
        "| TVM with the patches (s) | same intrinsics |"
    )
    print("|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        patched = _patched_tvm(Path(tmp))
        for torch in (False, True):
            slow, fast = (first_context(torch, hook) for hook in (False, True))
            upstream = first_context(torch, False, patched)
            assert upstream["tvm"].startswith(tmp), upstream["tvm"]
            name = "torch and PyG loaded" if torch else "tvm alone"
            same = "yes" if slow["digest"] == fast["digest"] == upstream["digest"] else "NO"
            print(
                f"| {name} | {slow['modules']:,} | {slow['seconds']:.1f} | {fast['seconds']:.1f} "
                f"| {upstream['seconds']:.1f} | {same} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
