# Licensed under the Apache License, Version 2.0.
"""A tuned network compiled with its database, checked against PyTorch, and timed."""

from __future__ import annotations

import logging
import math

import numpy as np

logger = logging.getLogger(__name__)


# Bumped when how a tuned network is compiled changes; budgets.json from another version is redone.
# 2: the database is applied to the tuned (already fused) functions, not to a re-fused module.
COMPILE_VERSION = 2


class OutputMismatchError(RuntimeError):
    """The tuned network's output differs from its reference's (PyTorch's, or for Ansor the
    untuned build's)."""


def compile_with_database(database, mod, target):
    """Build the fused Relax module ``mod`` with every PrimFunc replaced by its tuned schedule.

    ``mod`` is what :func:`tvm_gnn.networks.to_relax` returns: already legalized and fused (the
    ``zero`` pipeline), and the tasks were extracted from it. TVM's ``compile_relax`` would
    legalize and fuse it a second time, which merges a convolution's fused function with the
    elementwise one after it into functions that were never tuned (ResNet-18 then runs as if
    untuned). Like TVM's ``static_shape_tuning`` pipeline, the database is applied to the very
    functions that were tuned, then the module is lowered and finalized.

    Returns
    -------
    executable, untuned : relax.VMExecutable, list[str]
        The build, and the PrimFuncs the database had no record for (left unscheduled).
    """
    import tvm
    from tvm import relax, tirx
    from tvm.relax import pipeline as rp

    with target, database, tvm.transform.PassContext(opt_level=3):
        applied = relax.transform.MetaScheduleApplyDatabase(enable_warning=False)(mod)
    untuned = sorted(
        gv.name_hint
        for gv, f in applied.functions.items()
        if isinstance(f, tirx.PrimFunc) and not (f.attrs and f.attrs.get("tirx.is_scheduled"))
    )
    gpu = "gpu" in target.keys
    if untuned:
        logger.warning(
            "no tuning record for %d function(s), left %s: %s",
            len(untuned),
            "to dlight's fallback GPU schedule" if gpu else "unscheduled",
            ", ".join(untuned),
        )
        if gpu:  # a GPU kernel needs its threads bound to build at all
            from tvm.s_tir import dlight

            with target:
                applied = dlight.ApplyDefaultSchedule(dlight.gpu.Fallback())(applied)
    try:
        passes = [*rp.dataflow_lower_passes(target), *rp.finalize_passes(target)]
    except AttributeError:  # apache-tvm 0.26.0's backend packages lack it (upstream patch 0006)
        import importlib

        name = {"llvm": "cpu_generic", "cuda": "cuda"}.get(target.kind.name, "gpu_generic")
        backend = importlib.import_module(f"tvm.relax.backend.{name}.pipeline")
        passes = [*backend.dataflow_lower_passes(target), *backend.finalize_passes(target)]
    lower = tvm.transform.Sequential(passes)
    with target, tvm.transform.PassContext(opt_level=3):
        executable = relax.build(applied, target=target, relax_pipeline=lower)
    return executable, untuned


def compile_checked(
    database,
    mod,
    target,
    example,
    expected,
    *,
    rtol: float = 1e-3,
    atol: float = 1e-4,
    what: str = "network",
):
    """Compile ``mod`` with ``database`` and check its output against ``expected``.

    Returns
    -------
    vm, inp, untuned : relax.VirtualMachine, tvm.runtime.Tensor, list[str]
        The compiled network, its input on the device, and the functions the database had no
        record for.

    Raises
    ------
    OutputMismatchError
        If the compiled network's output is not allclose to ``expected``.
    """
    import tvm
    from tvm import relax

    executable, untuned = compile_with_database(database, mod, target)
    dev = tvm.cpu() if target.kind.name == "llvm" else tvm.device(target.kind.name)
    vm = relax.VirtualMachine(executable, dev)
    inp = tvm.runtime.tensor(example.numpy(), dev)
    out = vm["main"](inp)
    got = (
        out[0]
        if isinstance(out, (list, tuple))
        or hasattr(out, "__getitem__")
        and not hasattr(out, "numpy")
        else out
    ).numpy()
    check_output(got, expected, rtol=rtol, atol=atol, what=what)
    return vm, inp, untuned


def check_output(got, expected, *, rtol: float, atol: float, what: str, against="PyTorch's"):
    """:class:`OutputMismatchError` unless the tuned output ``got`` is allclose to ``expected``
    (the output of the reference ``against``)."""
    if got.shape != expected.shape or not np.allclose(got, expected, rtol=rtol, atol=atol):
        diff = float(np.max(np.abs(got - expected))) if got.shape == expected.shape else math.nan
        raise OutputMismatchError(
            f"{what}: tuned output differs from {against} (shape {got.shape} vs "
            f"{expected.shape}, max abs diff {diff:.3g}, rtol={rtol}, atol={atol})"
        )


def time_network(vm, inp, repeats: int) -> list[float]:
    """Milliseconds per run of the compiled network, ``repeats`` times (each at least 50 ms)."""
    timer = vm.time_evaluator("main", inp.device, number=1, repeat=repeats, min_repeat_ms=50)
    return [float(t) * 1e3 for t in timer(inp).results]


def compile_check_time(
    database,
    mod,
    target,
    example,
    expected,
    *,
    repeats: int = 10,
    rtol: float = 1e-3,
    atol: float = 1e-4,
    what: str = "network",
):
    """Compile ``mod`` with ``database``, check it against ``expected``, time it.

    Returns
    -------
    runs, untuned : list[float], list[str]
        Milliseconds per timed run, and the functions the database had no record for.

    Raises
    ------
    OutputMismatchError
        If the compiled network's output is not allclose to ``expected``.
    """
    vm, inp, untuned = compile_checked(
        database, mod, target, example, expected, rtol=rtol, atol=atol, what=what
    )
    return time_network(vm, inp, repeats), untuned
