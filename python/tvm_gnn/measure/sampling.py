# Licensed under the Apache License, Version 2.0.
"""Sample MetaSchedule candidates of a workload without measuring them.

Candidates are what MetaSchedule's search hands its cost model: random decisions on the design
space, with the post-processors applied (``ReplayTrace``).
"""

from __future__ import annotations

from .hardware import usable_cores
from .notices import known_notices_dropped


def target_from(spec: str, num_cores: int | None = None, local: bool = False):
    """A ``tvm.target.Target`` from ``llvm``/``cuda`` or any target string/JSON TVM accepts.

    ``llvm`` is this CPU with ``num_cores`` (default: every core this process may use).
    ``cuda`` is the GPU present, with the limits MetaSchedule's GPU rules read (threads and
    shared memory per block, arch) taken from the device: TVM's plain ``Target("cuda")`` has
    no such limits and fails inside the search.

    Any other llvm target (a JSON one naming ``mcpu``, a tag) without ``num-cores`` gets
    ``num_cores`` likewise: MetaSchedule cannot tune for an llvm target without it. Its ``mcpu``
    ``native`` becomes this CPU's LLVM name.

    Raises ``ValueError`` (not TVM's error) for a target TVM does not know, for ``cuda``
    when no CUDA device is present (any CUDA target, with ``local``: one measured on this
    machine), for ``num_cores`` other than the target's own, and for an ``mcpu`` or ``mattr``
    feature LLVM does not know.
    """
    import tvm

    if spec == "llvm":
        return tvm.target.Target({"kind": "llvm", "num-cores": num_cores or usable_cores()})
    if spec == "cuda":
        if not tvm.cuda(0).exist:
            raise ValueError(
                "target 'cuda' takes its limits from the GPU, and no CUDA device is "
                "present; name the GPU instead, e.g. nvidia/nvidia-h100, or give "
                "a JSON target with max_threads_per_block and "
                "max_shared_memory_per_block"
            )
        return tvm.target.Target.from_device(tvm.cuda(0))
    try:
        target = tvm.target.Target(spec)
    except Exception as err:  # noqa: BLE001 - TVM raises its own error types
        raise ValueError(f"unknown target {spec!r}: {err}") from None
    if target.kind.name == "cuda" and local and not tvm.cuda(0).exist:
        raise ValueError(
            f"target {spec!r} is a GPU's, and this machine has no CUDA device to measure on: "
            "run where the GPU is, or measure through --rpc-tracker where the command has it"
        )
    if target.kind.name != "llvm":
        return target
    changes = _llvm_cpu(target)
    _check_mattr(target)
    own = target.attrs.get("num-cores")
    if own is None:
        changes["num-cores"] = num_cores or usable_cores()
    elif num_cores is not None and int(own) != num_cores:
        raise ValueError(f"--num-cores {num_cores} and the target's num-cores {own} disagree")
    return tvm.target.Target({**target.export(), **changes}) if changes else target


def _llvm_cpu(target) -> dict:
    """``{"mcpu": name}`` for an llvm ``target`` whose ``mcpu`` is ``native`` (this machine's
    CPU, as LLVM names it), ``{}`` for one with a CPU LLVM knows or none.

    TVM's LLVM accepts neither ``native`` nor a misspelt name, and compiles generic code instead
    with one logged line: a run tuned for that code would be labelled with the CPU's name.
    """
    from tvm.target import codegen

    cpu = target.attrs.get("mcpu")
    if cpu is None:
        return {}
    here, triple = str(codegen.llvm_get_system_triple()), _triple(target)
    if cpu == "native":
        if triple != here:
            raise ValueError(
                f"mcpu 'native' names this machine's CPU, and the target is for {triple}: "
                "name that machine's CPU"
            )
        return {"mcpu": str(codegen.llvm_get_system_cpu())}
    if not codegen.llvm_is_valid_cpu(str(cpu), triple):
        raise ValueError(
            f"LLVM knows no CPU {str(cpu)!r} for {triple} (this machine's is "
            f"{codegen.llvm_get_system_cpu()!r}; 'native' names it)"
        )
    return {}


def _triple(target) -> str:
    """The target triple of an llvm ``target``: its ``mtriple``, else this machine's."""
    from tvm.target import codegen

    return str(target.attrs.get("mtriple") or codegen.llvm_get_system_triple())


def _check_mattr(target) -> None:
    """Raise ``ValueError`` for an ``mattr`` entry of an llvm ``target`` that is not ``+name`` or
    ``-name`` with a feature LLVM knows for the target's triple.

    LLVM ignores a feature it does not know (one line on stderr), so a misspelt one compiled the
    same code as none while its name labelled the dataset folder. A feature is known when
    asking for it turns it on.
    """
    import tvm
    from tvm.target import codegen

    triple = _triple(target)
    for entry in map(str, target.attrs.get("mattr") or []):
        name = entry[1:]
        if entry[:1] not in "+-" or not name:
            raise ValueError(f"mattr entry {entry!r} is neither +feature nor -feature")
        probe = tvm.target.Target({"kind": "llvm", "mtriple": triple, "mattr": [f"+{name}"]})
        if name not in codegen.llvm_get_cpu_features(probe):
            raise ValueError(f"LLVM knows no feature {name!r} for {triple}{_near(name, triple)}")


def _near(feature: str, triple: str) -> str:
    """``"; did you mean ...?"`` naming this CPU's features close to ``feature``, or ``""``."""
    import difflib

    import tvm
    from tvm.target import codegen

    if triple != str(codegen.llvm_get_system_triple()):
        return ""
    here = tvm.target.Target({"kind": "llvm", "mcpu": str(codegen.llvm_get_system_cpu())})
    close = difflib.get_close_matches(feature, sorted(codegen.llvm_get_cpu_features(here)), n=3)
    return f"; did you mean {' or '.join(map(repr, close))}?" if close else ""


def sample_candidates(mod, target, n: int, seed: int = 0, num_threads: int | None = None):
    """``n`` post-processed random candidates of ``mod`` for ``target``, the same for the same seed.

    The candidates are drawn on one thread: MetaSchedule's ``ReplayTrace`` gives each thread its
    own random state and hands out candidates to whichever thread is free, so with more threads
    the same seed gives different candidates from run to run. ``num_threads`` (default: all
    cores) is the thread count of the returned context, which MetaSchedule's own feature
    extraction (XGBModel's) uses.

    Returns
    -------
    context : TuneContext
        The tune context (``predict`` and ``update`` of cost models take it).
    candidates : list[MeasureCandidate]
    """
    from tvm.s_tir import meta_schedule as ms

    sampler = ms.TuneContext(
        mod=mod,
        target=target,
        space_generator="post-order-apply",
        search_strategy="replay-trace",
        task_name="sample",
        num_threads=1,
        rand_state=seed,
    )
    with known_notices_dropped():  # TOPI's pooling blocks name a rule no CPU has
        spaces = sampler.generate_design_space()
    sampler.pre_tuning(
        max_trials=n,
        num_trials_per_iter=n,
        design_spaces=spaces,
        database=ms.database.MemoryDatabase(),
        cost_model=ms.cost_model.RandomModel(),
    )
    cands = sampler.search_strategy.generate_measure_candidates() or []
    sampler.post_tuning()
    ctx = ms.TuneContext(
        mod=mod,
        target=target,
        space_generator="post-order-apply",
        task_name="sample",
        num_threads=num_threads or usable_cores(),
        rand_state=seed,
    )
    return ctx, list(cands)
