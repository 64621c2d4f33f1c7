# Licensed under the Apache License, Version 2.0.
"""A MetaSchedule builder that does not time out on small machines.

TVM's ``default_build`` imports ``tvm.s_tir.tensor_intrin`` in every build worker. That import
takes ~36 s on a 2-core machine, and ``LocalBuilder`` re-creates its worker pool for every batch,
so with the default 30 s timeout every build fails. :func:`make_builder` returns a
``LocalBuilder`` whose build function does what ``default_build`` does without that import.
Schedules that use tensor intrinsics (tensorize) need them registered: pass
``tensor_intrin=True`` for those; the workers then import them through ``tvm_gnn``'s hook
(:mod:`.intrinsics`), in about 2 s.
"""

from __future__ import annotations

import logging

from tvm.s_tir import meta_schedule as ms
from tvm_ffi import register_global_func

logger = logging.getLogger(__name__)

#: Global function names under which the build functions are registered.
BUILD_FUNC = "tvm_gnn.builder.build"
BUILD_FUNC_WITH_INTRIN = "tvm_gnn.builder.build_with_tensor_intrin"


def build(mod, target, _params=None):
    """Build ``mod`` for ``target`` as ``default_build`` does, minus the intrinsics import."""
    from tvm.driver import build as tvm_build
    from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

    mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
    return tvm_build(mod, target=target)


def _build_with_tensor_intrin(mod, target, params):
    import tvm.s_tir.tensor_intrin  # noqa: F401  (registers the intrinsics)

    return build(mod, target, params)


register_global_func(BUILD_FUNC, build, override=True)
register_global_func(BUILD_FUNC_WITH_INTRIN, _build_with_tensor_intrin, override=True)


def _initializer() -> None:
    """Runs in each popen build worker: importing this module registers the build functions."""
    import tvm_gnn.measure.builder  # noqa: F401


def make_builder(
    *,
    max_workers: int | None = None,
    timeout_sec: float = 30.0,
    tensor_intrin: bool = False,
) -> ms.builder.LocalBuilder:
    """Create a ``LocalBuilder`` that builds ``llvm`` and ``cuda`` candidates in under a second.

    Parameters
    ----------
    max_workers : int, optional
        Build worker processes; defaults to the number of CPUs.
    timeout_sec : float
        Per-candidate build timeout in seconds (MetaSchedule's default, 30 s).
    tensor_intrin : bool
        Import ``tvm.s_tir.tensor_intrin`` in the workers, as TVM's default builder does. Only
        needed for schedules that tensorize; it costs ~36 s per worker per batch on 2 cores, so
        raise ``timeout_sec`` with it.

    Returns
    -------
    builder : LocalBuilder
        The builder, to pass as ``builder=`` to ``ms.tune_tir`` and friends.
    """
    return ms.builder.LocalBuilder(
        max_workers=max_workers,
        timeout_sec=timeout_sec,
        f_build=BUILD_FUNC_WITH_INTRIN if tensor_intrin else BUILD_FUNC,
        initializer=_initializer,
    )
