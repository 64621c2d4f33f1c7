"""The builder builds real candidates without the 36 s tensor-intrinsics import, and keeps its
build workers between batches."""

import os
import time

import psutil
import tvm
from tvm import te
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.measure.builder import KeptPoolBuilder, build, make_builder


def _inputs(cands, target):
    return [ms.builder.BuilderInput(c.sch.mod, target) for c in cands]


def test_builds_candidates(conv_candidates, llvm_target):
    _, cands = conv_candidates
    builder = make_builder(max_workers=2)
    try:
        results = builder.build(_inputs(cands[:4], llvm_target))
    finally:
        builder.close()
    assert [r.error_msg for r in results] == [None] * 4
    assert all(os.path.isfile(r.artifact_path) for r in results)


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def test_workers_serve_many_batches_until_used_up_or_closed(conv_candidates, llvm_target):
    _, cands = conv_candidates
    before = _children()  # other tests' pools may still be alive
    builder = make_builder(max_workers=1, worker_uses=4)
    assert isinstance(builder, KeptPoolBuilder)
    try:
        workers = []
        for part in (cands[:2], cands[2:3], cands[3:5]):  # the check of the functions is a use
            results = builder.build(_inputs(part, llvm_target))
            assert [r.error_msg for r in results] == [None] * len(part)
            workers.append(_children() - before)
        assert len(workers[0]) == 1 and workers[0] == workers[1]  # 4 uses: one worker process
        assert len(workers[2]) == 1 and workers[2] != workers[1]  # its 5th: a new one
    finally:
        builder.close()
    assert not _children() - before


def _slow_if_named_slow(mod, target, params):
    """Runs in a build worker: a module whose function is named "slow" never finishes."""
    if any(gv.name_hint == "slow" for gv in mod.get_global_vars()):
        time.sleep(600)
    return build(mod, target, params)


def test_a_build_that_times_out_fails_alone_and_the_next_one_builds(conv_candidates, llvm_target):
    _, cands = conv_candidates
    a = te.placeholder((4,), name="A")
    slow = tvm.IRModule({"slow": te.create_prim_func([a, te.compute((4,), lambda i: a[i] + 1)])})
    builder = KeptPoolBuilder(max_workers=1, timeout_sec=3.0, f_build=_slow_if_named_slow)
    try:
        first = builder.build([ms.builder.BuilderInput(slow, llvm_target)])
        again = builder.build(_inputs(cands[:1], llvm_target))  # a new worker, killed one gone
    finally:
        builder.close()
    assert "Timeout, killed after 3.0 seconds" in first[0].error_msg
    assert first[0].artifact_path is None
    assert again[0].error_msg is None and os.path.isfile(again[0].artifact_path)


def test_tvm_local_builder_on_request():
    builder = make_builder(max_workers=1, keep_workers=False)  # it checks its build function
    assert isinstance(builder, ms.builder.LocalBuilder)
    assert not isinstance(builder, KeptPoolBuilder)
