# Licensed under the Apache License, Version 2.0.
"""Where torch and PyTorch Geometric put their files: nothing of theirs outlives the process in
the temporary folder.

- PyG writes each message-passing layer class's generated ``propagate`` module
  (``*_propagate_*.py``) into the temporary folder the first time the class is built, and never
  removes it. :func:`generated_modules` points it at one folder of this process, removed when the
  process exits.
- Importing PyTorch Geometric makes torch raise its own ``torch.jit.script`` deprecation notice,
  which is not the user's to act on: :func:`quiet_torch_notices` filters it.
- Beside TVM 0.19 (Ansor's, from ``xtc-tvm-python-bindings``), importing triton crashes the
  process: TVM loads its ``libLLVM.so`` into the global symbol namespace and triton's own LLVM
  binds to it (a segmentation fault in ``triton/knobs.py``, which torch imports with
  ``torch._dynamo``, as PyTorch Geometric does). :func:`keep_triton_out` makes ``import triton``
  fail cleanly there, so torch takes the path it takes without triton; tvm_gnn runs on the CPU
  and never needs it.
- torch's compiler makes a ``torchinductor_<user>`` folder in the temporary folder. The package
  points it (``TORCHINDUCTOR_CACHE_DIR``, unless the user set it) at a cache that processes share
  and reuse: :data:`TORCH_CACHE`, under ``$XDG_CACHE_HOME`` (default ``~/.cache``).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import warnings
from pathlib import Path

#: torch's compiler cache, shared by every process of the package (and reused across them)
TORCH_CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tvm_gnn" / "torchinductor"
)
_STATE: dict[str, str | None] = {"folder": None}


def point_torch_cache() -> None:
    """Set ``TORCHINDUCTOR_CACHE_DIR`` to :data:`TORCH_CACHE` unless it is set; call it before
    torch is imported (``import tvm_gnn`` does)."""
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(TORCH_CACHE))


def keep_triton_out() -> None:
    """Where the installed TVM is 0.19 (no ``tvm_ffi``) and triton is not yet loaded, make
    ``import triton`` raise ``ImportError`` for the rest of the process (see the module
    docstring); call it before torch's compiler is imported (``import tvm_gnn`` does)."""
    import importlib.util
    import sys

    if "triton" in sys.modules or importlib.util.find_spec("tvm_ffi") is not None:
        return
    if importlib.util.find_spec("tvm") is not None:
        sys.modules["triton"] = None  # import triton -> ImportError; torch: "no triton"


def quiet_torch_notices() -> None:
    """Filter torch's ``torch.jit.script`` deprecation notice (raised by importing PyTorch
    Geometric) for the rest of the process: the CLI and the benchmark scripts call it first."""
    warnings.filterwarnings("ignore", message=".*torch.jit.script.*is deprecated")


def _folder() -> str:
    folder = _STATE["folder"]
    if folder is None or not os.path.isdir(folder):
        folder = tempfile.mkdtemp(prefix="tvm-gnn-pyg-")
        atexit.register(shutil.rmtree, folder, True)
        _STATE["folder"] = folder
    return folder


@contextlib.contextmanager
def generated_modules():
    """For the block, PyG's generated modules go into this process's own folder (removed at
    exit; the modules stay loaded). The process's temporary folder is restored after it."""
    saved = tempfile.tempdir
    tempfile.tempdir = _folder()
    try:
        yield
    finally:
        tempfile.tempdir = saved
