# Licensed under the Apache License, Version 2.0.
"""A copy of the installed ``tvm`` package with the upstream patch series (``patches/``) applied.

The wheel's ``tvm`` package is byte-identical to upstream's ``python/tvm`` at the commit the
series targets, so the series applies to a copy of it: Python sources are copied, everything
else (the shared libraries, ~300 MB) is linked. A process with the returned folder first on its
``PYTHONPATH`` imports the patched TVM; the installed one is not touched.

    .venv/bin/python benchmarks/upstream/patched_tvm.py /tmp/patched   # prints what goes on
    PYTHONPATH
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATCHES = sorted((ROOT / "patches").glob("*.patch"))


def _copy_package(src: Path, dst: Path) -> None:
    def copy(s, d):
        if s.endswith(".py"):
            return shutil.copy2(s, d)
        os.symlink(os.path.abspath(s), d)
        return d

    shutil.copytree(src, dst, copy_function=copy, ignore=shutil.ignore_patterns("__pycache__"))


def patched_copy(root: Path, patches: list[Path] = PATCHES) -> Path:
    """Copy the installed ``tvm`` to ``root/python/tvm`` and apply ``patches`` in order with
    ``git apply`` (a rejected hunk raises ``RuntimeError`` naming the patch); return
    ``root/python``. The series' new test files land under ``root/tests``."""
    import tvm

    _copy_package(Path(tvm.__file__).parent, root / "python" / "tvm")
    for patch in patches:
        proc = subprocess.run(
            ["git", "apply", "--verbose", str(patch)], cwd=root, capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{patch.name} does not apply:\n{proc.stderr}")
    return root / "python"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="an empty or new folder")
    args = parser.parse_args(argv)
    if args.root.exists() and any(args.root.iterdir()):
        parser.error(f"{args.root} is not empty")
    print(patched_copy(args.root))
    return 0


if __name__ == "__main__":
    sys.exit(main())
