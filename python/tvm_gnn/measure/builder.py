# Licensed under the Apache License, Version 2.0.
"""A MetaSchedule builder that does not time out on small machines.

TVM's ``default_build`` imports ``tvm.s_tir.tensor_intrin`` in every build worker. That import
takes ~36 s on a 2-core machine, and ``LocalBuilder`` re-creates its worker pool for every batch,
so with the default 30 s timeout every build fails. :func:`make_builder` returns a
``LocalBuilder`` whose build function does what ``default_build`` does without that import.
Schedules that use tensor intrinsics (tensorize) need them registered: pass
``tensor_intrin=True`` for those; the workers then import them through ``tvm_gnn``'s hook
(:mod:`.intrinsics`), in about 2 s.

Even without that import, a new build worker spends seconds importing TVM itself, and
``LocalBuilder`` starts new ones for every batch. :class:`KeptPoolBuilder` keeps its workers for
:data:`WORKER_USES` builds each (TVM's own ``maximum_process_uses`` recycling, against the memory
leak that made ``LocalBuilder`` start afresh); ``benchmarks/speed/builder_pool.py`` measures the
gain.
"""

from __future__ import annotations

import logging

from tvm.ir.utils import derived_object
from tvm.s_tir import meta_schedule as ms
from tvm.s_tir.meta_schedule.builder import local_builder
from tvm.s_tir.meta_schedule.utils import get_global_func_with_default_on_worker
from tvm.support.popen_pool import PopenPoolExecutor, StatusKind
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


#: Builds a kept worker process serves before a fresh one replaces it.
WORKER_USES = 256


def _build_one(job):
    """Runs in a build worker: TVM's own build-and-export step for one candidate."""
    return local_builder._worker_func(*job)


def _check_functions(f_build, f_export) -> None:
    """Runs in a build worker: the build and export functions are registered there."""
    get_global_func_with_default_on_worker(name=f_build, default=None)
    get_global_func_with_default_on_worker(name=f_export, default=None)


@derived_object
class KeptPoolBuilder(ms.builder.LocalBuilder._cls):
    """A ``LocalBuilder`` whose build workers serve many batches, not one.

    Each worker is replaced after ``worker_uses`` builds, and at once after a build times out
    (``PopenPoolExecutor`` does both). Call :meth:`close` when done: it stops the workers, which
    otherwise live until the builder is garbage-collected.
    """

    def __init__(self, *, worker_uses: int = WORKER_USES, **kwargs) -> None:
        self.worker_uses = worker_uses
        self._pool = None
        super().__init__(**kwargs)  # its check of the functions starts the first worker

    def _workers(self) -> PopenPoolExecutor:
        if self._pool is None:
            self._pool = PopenPoolExecutor(
                max_workers=self.max_workers,
                timeout=self.timeout_sec,
                initializer=self.initializer,
                maximum_process_uses=self.worker_uses,
            )
        return self._pool

    def _sanity_check(self) -> None:
        self._workers().submit(_check_functions, self.f_build, self.f_export).result()

    def build(self, build_inputs: list) -> list:
        jobs = [
            (
                self.f_build,
                self.f_export,
                b.mod,
                b.target,
                local_builder._serialize_params(b.params),
            )
            for b in build_inputs
        ]
        return [self._result(r) for r in self._workers().map_with_error_catching(_build_one, jobs)]

    def _result(self, done) -> ms.builder.BuilderResult:
        if done.status == StatusKind.COMPLETE:
            return ms.builder.BuilderResult(done.value, None)
        if done.status == StatusKind.TIMEOUT:
            why = f"LocalBuilder: Timeout, killed after {self.timeout_sec} seconds"
        else:
            why = f"LocalBuilder: An exception occurred\n{done.value}"
        return ms.builder.BuilderResult(None, why)

    def close(self) -> None:
        """Stop the build workers (a later :meth:`build` starts new ones)."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown()


def make_builder(
    *,
    max_workers: int | None = None,
    timeout_sec: float = 30.0,
    tensor_intrin: bool = False,
    keep_workers: bool = True,
    worker_uses: int = WORKER_USES,
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
    keep_workers : bool
        Keep the build workers between batches (:class:`KeptPoolBuilder`; call its ``close()``
        when done). ``False`` gives TVM's ``LocalBuilder``, which starts new ones every batch.
    worker_uses : int
        With ``keep_workers``: builds a worker serves before a fresh one replaces it.

    Returns
    -------
    builder : LocalBuilder
        The builder, to pass as ``builder=`` to ``ms.tune_tir`` and friends.
    """
    kept = {"worker_uses": worker_uses} if keep_workers else {}
    return (KeptPoolBuilder if keep_workers else ms.builder.LocalBuilder)(
        **kept,
        max_workers=max_workers,
        timeout_sec=timeout_sec,
        f_build=BUILD_FUNC_WITH_INTRIN if tensor_intrin else BUILD_FUNC,
        initializer=_initializer,
    )
