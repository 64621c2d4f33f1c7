# Licensed under the Apache License, Version 2.0.
"""Ansor's search states to graphs (TVM 0.19, ``tvm.auto_scheduler``).

A state is a list of transform steps over a task's compute DAG. Its TIR is what Ansor's own
per-store features see on CPUs (``GetPerStoreFeaturesWorkerFunc`` in TVM's ``feature.cc``): the
steps applied to the DAG (``ComputeDAG.apply_steps_from_state``), the TE schedule turned into a
module (``schedule_to_module``) and simplified (``tir.transform.Simplify``). The one step that
has no Python binding in 0.19, ``Schedule.normalize_for_feature_extraction`` (it inlines constant
matrices), is left out. The result has no blocks; buffers keep their dimensions and are realized
(``BufferRealize``), and unrolling is a ``pragma_auto_unroll_max_step`` attribute; the walk
(:mod:`._walk`) reads both.

Lowering costs a few milliseconds a state in TVM's C++, which releases the GIL, so states lower
on a pool of threads (:func:`lower_states`). With the v0.19.0 series applied
(``patches/v0.19.0``), TVM's own ``auto_scheduler.feature.get_lowered_tir_from_states`` does it.
The walk reads each function from its JSON (:mod:`._json`, :func:`lower_states_json`): the 0.19
wheel's FFI is ctypes, and reading TVM's nodes field by field cost more than lowering them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from ..measure.hardware import usable_cores
from ..nn.schema import FeaturizerConfig
from . import _json, _walk
from .graph import batch_of, graphs_of

__all__ = ["featurize_states", "lower_state", "lower_states", "lower_states_json", "state_graphs"]

_SIMPLIFY = None


def lower_state(task, state):
    """The PrimFunc of one state of ``task`` (raises where TVM cannot lower it)."""
    global _SIMPLIFY
    import tvm
    from tvm.driver.build_module import schedule_to_module

    if _SIMPLIFY is None:
        _SIMPLIFY = tvm.tir.transform.Simplify()
    sch, args = task.compute_dag.apply_steps_from_state(state)
    mod = _SIMPLIFY(schedule_to_module(sch, args, name="main"))
    return mod["main"]


def _upstream():
    """TVM's own lowering of states, where the v0.19.0 series is applied (else None)."""
    from tvm.auto_scheduler import feature

    return getattr(feature, "get_lowered_tir_from_states", None)


def _pooled(fn, items, threads: int | None):
    threads = threads or usable_cores()
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(fn, items))


def lower_states(task, states, threads: int | None = None) -> list:
    """One entry per state: its PrimFunc, or the exception that lowering it raised.

    ``threads``: lowering threads (default: the usable cores).
    """
    states = list(states)
    if not states:
        return []
    upstream = _upstream()
    if upstream is not None:
        return list(upstream(states, task, n_threads=threads, return_errors=True))

    def one(state):
        try:
            return lower_state(task, state)
        except Exception as err:  # noqa: BLE001 - returned: a cost model survives any bad state
            return err

    return _pooled(one, states, threads)


def lower_states_json(task, states, threads: int | None = None) -> list:
    """:func:`lower_states` as each function's JSON (``tvm.ir.save_json``, on the same
    threads: one C++ call, where walking TVM's nodes from Python costs a ctypes call a field)."""
    import tvm

    def one(func):
        if isinstance(func, BaseException):
            return func
        try:
            return tvm.ir.save_json(func.body)
        except Exception as err:  # noqa: BLE001 - returned, as lowering errors are
            return err

    return _pooled(one, lower_states(task, states, threads), threads)


def _program(text):
    def program():
        if isinstance(text, BaseException):
            raise text
        return _json.Function(_json.loads(text))

    return program


def featurize_states(task, states, config: FeaturizerConfig, threads: int | None = None):
    """:func:`~tvm_gnn.featurize.graph.featurize_batch` of Ansor states: ``(arrays, ok,
    errors)``, a state that does not lower being one of the errors."""
    texts = lower_states_json(task, states, threads)
    return batch_of([_program(t) for t in texts], config, _walk.walk)


def state_graphs(task, states, config: FeaturizerConfig, threads: int | None = None):
    """One graph (``torch_geometric.data.Data``) per state, None where it failed; and the
    errors (the online data of :mod:`tvm_gnn.cost_models.ansor`)."""
    texts = lower_states_json(task, states, threads)
    return graphs_of([_program(t) for t in texts], config)
