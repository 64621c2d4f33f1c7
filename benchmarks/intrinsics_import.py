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
import platform
import subprocess
import sys

RUN = """
import hashlib, sys, time
if {torch}:
    import torch, torch_geometric
if {hook}:
    from tvm_gnn.measure import intrinsics
    intrinsics.install()
import tvm
from tvm.s_tir import meta_schedule as ms
modules = len(sys.modules)
start = time.perf_counter()
ms.TuneContext(target=tvm.target.Target({{"kind": "llvm", "num-cores": 1}}))
seconds = time.perf_counter() - start
from tvm.s_tir.tensor_intrin import cuda, x86
h = hashlib.sha256()
for mod in (cuda, x86):
    for name, value in sorted(vars(mod).items()):
        if isinstance(value, tvm.tirx.PrimFunc):
            h.update(name.encode() + value.script().encode())
print(modules, seconds, h.hexdigest()[:16])
"""


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
        rows = []
        for hook in (False, True):
            out = subprocess.run(
                [sys.executable, "-c", RUN.format(torch=torch, hook=hook)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.split()
            rows.append((int(out[0]), float(out[1]), out[2]))
        (modules, slow, a), (_, fast, b) = rows
        name = "torch and PyG loaded" if torch else "tvm alone"
        print(f"| {name} | {modules:,} | {slow:.1f} | {fast:.1f} | {'yes' if a == b else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
