"""The builder builds real candidates without the 36 s tensor-intrinsics import."""

import os

from tvm.s_tir import meta_schedule as ms

from tvm_gnn.measure.builder import make_builder


def test_builds_candidates(conv_candidates, llvm_target):
    _, cands = conv_candidates
    builder = make_builder(max_workers=2)
    results = builder.build([ms.builder.BuilderInput(c.sch.mod, llvm_target) for c in cands[:4]])
    assert [r.error_msg for r in results] == [None] * 4
    assert all(os.path.isfile(r.artifact_path) for r in results)
