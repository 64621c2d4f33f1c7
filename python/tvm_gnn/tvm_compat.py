# Licensed under the Apache License, Version 2.0.
"""The one module that knows which TVM is installed; the rest of the package does not branch.

tvm_gnn runs on two generations of TVM:

- **0.26 and 0.27** (``apache-tvm``): MetaSchedule; the FFI is the separate ``tvm_ffi`` package;
  TIR lives in ``tvm.tirx`` (with ``tvm.s_tir`` for schedulable TIR); a node's data type is
  ``.ty``; operators are named ``tirx.*`` (0.26) or ``prim.*`` (0.27).
- **0.19** (``xtc-tvm-python-bindings``, the last release with ``auto_scheduler``, Ansor): the FFI
  is ``tvm._ffi``; TIR lives in ``tvm.tir``; a node's data type is ``.dtype``; operators are
  named ``tir.*``.

Everything version-specific that the featurizer and the adapters need is named here. The
featurizer's names (:mod:`tvm_gnn.featurize._names`) are 0.26's whatever TVM built the tree.
"""

from __future__ import annotations

import tvm

try:  # 0.26, 0.27
    from tvm_ffi import _ffi_api as _ffi

    #: TVM 0.19 (Ansor's generation) is installed, not 0.26/0.27
    LEGACY = False
except ImportError:  # 0.19: the FFI inside tvm, Array's getters registered by the runtime
    from tvm.runtime import _ffi_api as _ffi

    LEGACY = True

#: the TIR package: ``tvm.tir`` (0.19) or ``tvm.tirx`` (0.26, 0.27)
tir = tvm.tir if LEGACY else tvm.tirx

#: the field holding a TIR expression's data type
DTYPE_FIELD = "dtype" if LEGACY else "ty"

#: the prefix of TIR operators' names (``tir.exp``, ``tirx.exp``); 0.27's ``prim.*`` is mapped
#: in :mod:`tvm_gnn.featurize._names`
OP_PREFIX = "tir." if LEGACY else "tirx."

#: ``Array``'s size and element getters, straight to C: ``Array.__iter__`` goes through three
#: Python layers per element
array_size = _ffi.ArraySize
array_get = _ffi.ArrayGetItem

#: the installed TVM's version string
VERSION = tvm.__version__


def dtype_of(node) -> str:
    """A TIR expression's data type, as a string (``float32``)."""
    return str(getattr(node, DTYPE_FIELD))


def require_ansor() -> None:
    """Raise a clear error unless the installed TVM has ``auto_scheduler`` (0.19)."""
    if not LEGACY:
        raise RuntimeError(
            f"Ansor (tvm.auto_scheduler) needs TVM 0.19, and this environment has TVM {VERSION}: "
            "set one up with `VENV=.venv-tvm019 CONSTRAINTS=constraints-tvm0.19.txt ./build.sh "
            "setup` (docs/ansor.md)"
        )


def require_metaschedule() -> None:
    """Raise a clear error unless the installed TVM has ``tvm.s_tir.meta_schedule`` (0.26+)."""
    if LEGACY:
        raise RuntimeError(
            f"tvm_gnn's MetaSchedule line needs TVM 0.26 or 0.27, and this environment has TVM "
            f"{VERSION}: use Ansor here (--tuner ansor, docs/ansor.md) or the default `./build.sh "
            "setup` environment"
        )
