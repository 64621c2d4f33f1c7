# Licensed under the Apache License, Version 2.0.
"""How long the first ``TuneContext`` of a process takes: TVM's import of its tensor intrinsics,
as TVM does it and through ``tvm_gnn``'s import hook (``tvm_gnn.measure.intrinsics``).

Each row is a fresh process: bare (``tvm`` alone) or with torch and PyG loaded first, as in every
``tvm-gnn`` command that holds a model. The digest is of the intrinsics the import registered,
printed as TVMScript: the two ways must agree.

    .venv/bin/python benchmarks/intrinsics_import.py
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys

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


def first_context(torch: bool, hook: bool) -> dict:
    """One fresh process's first TuneContext: ``modules`` loaded before it, its ``seconds``, the
    ``digest`` of the intrinsics it registered, the ``loader`` that imported them and the module
    ``inspect.stack`` belongs to afterwards (``stack_after``)."""
    out = subprocess.run(
        [sys.executable, "-c", RUN.format(torch=torch, hook=hook)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.splitlines()[-1])


def main(argv=None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    from tvm_gnn.measure.hardware import cpu_model, usable_cores

    today = datetime.date.today().isoformat()
    python = platform.python_version()
    print(f"Machine: {cpu_model()}, {usable_cores()} cores; Python {python}; {today}\n")
    print(
        "| process | modules loaded | TVM's import (s) | through the hook (s) | same intrinsics |"
    )
    print("|---|---:|---:|---:|---|")
    for torch in (False, True):
        slow, fast = (first_context(torch, hook) for hook in (False, True))
        name = "torch and PyG loaded" if torch else "tvm alone"
        same = "yes" if slow["digest"] == fast["digest"] else "NO"
        print(
            f"| {name} | {slow['modules']:,} | {slow['seconds']:.1f} | {fast['seconds']:.1f} "
            f"| {same} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
