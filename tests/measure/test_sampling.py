"""Targets from the command line, and random candidates of a design space."""

import pytest
import tvm

from tvm_gnn.measure.hardware import hardware_name
from tvm_gnn.measure.sampling import sample_candidates, target_from

from ..conftest import matmul64


def test_llvm_target_counts_the_cores_asked_for():
    target = target_from("llvm", num_cores=3)
    assert target.kind.name == "llvm" and int(target.attrs["num-cores"]) == 3


def test_a_json_llvm_target_gets_the_cores_metaschedule_needs_and_samples():
    """MetaSchedule stops inside TVM (InternalError) on an llvm target without num-cores: a
    JSON target naming only ``mcpu`` gets them as ``llvm`` does, and keeps what it names."""
    spec = '{"kind": "llvm", "mcpu": "znver4", "mattr": ["+avx2"]}'
    target = target_from(spec, num_cores=2)
    assert int(target.attrs["num-cores"]) == 2 and target.attrs["mcpu"] == "znver4"
    assert list(target.attrs["mattr"]) == ["+avx2"]
    _, candidates = sample_candidates(tvm.IRModule({"main": matmul64}), target, 2, seed=0)
    assert len(candidates) == 2
    assert int(target_from(spec).attrs["num-cores"]) == int(target_from("llvm").attrs["num-cores"])
    own = '{"kind": "llvm", "mcpu": "znver4", "num-cores": 1}'
    assert (
        int(target_from(own).attrs["num-cores"]) == int(target_from(own, 1).attrs["num-cores"]) == 1
    )
    with pytest.raises(ValueError, match="--num-cores 2 and the target's num-cores 1 disagree"):
        target_from(own, num_cores=2)


def test_mcpu_native_is_this_cpu_and_a_cpu_llvm_does_not_know_is_refused():
    """TVM's LLVM compiles generic code for ``native`` and for a misspelt CPU (one logged line):
    the first becomes this machine's CPU, the second a ValueError naming it."""
    from tvm.target import codegen

    here = str(codegen.llvm_get_system_cpu())
    native = target_from('{"kind": "llvm", "mcpu": "native"}', num_cores=1)
    assert native.attrs["mcpu"] == here and int(native.attrs["num-cores"]) == 1
    assert hardware_name(native).endswith("-" + here)
    with pytest.raises(ValueError, match=f"LLVM knows no CPU 'znver9'.*this machine's is '{here}'"):
        target_from('{"kind": "llvm", "mcpu": "znver9"}')
    with pytest.raises(ValueError, match="'native' names this machine's CPU.*aarch64"):
        target_from('{"kind": "llvm", "mcpu": "native", "mtriple": "aarch64-linux-gnu"}')
    named = target_from('{"kind": "llvm", "mcpu": "skylake-avx512", "num-cores": 2}')
    assert named.attrs["mcpu"] == "skylake-avx512"  # any CPU LLVM knows, not only this one


def test_an_mattr_feature_llvm_does_not_know_is_refused_with_the_near_ones():
    """LLVM ignores a misspelt feature (one line on stderr) and compiles as if it were absent,
    while its name would label the dataset folder: ``target_from`` refuses it instead."""
    ok = target_from('{"kind": "llvm", "mattr": ["+avx2", "-sse4.2"]}', num_cores=1)
    assert list(ok.attrs["mattr"]) == ["+avx2", "-sse4.2"]
    with pytest.raises(ValueError, match="LLVM knows no feature 'sse4_2' for x86_64.*'sse4.2'"):
        target_from('{"kind": "llvm", "mattr": ["+sse4_2"]}')
    with pytest.raises(ValueError, match="mattr entry 'avx2' is neither"):
        target_from('{"kind": "llvm", "mattr": ["avx2"]}')
    arm = '{"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mattr": ["+neon"]}'
    assert list(target_from(arm, num_cores=1).attrs["mattr"]) == ["+neon"]  # another triple's
    with pytest.raises(ValueError, match="no feature 'avx2' for aarch64-linux-gnu$"):
        target_from('{"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mattr": ["+avx2"]}')


def test_unknown_target_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="unknown target 'tpu-9000'"):
        target_from("tpu-9000")


def test_cuda_target_carries_the_limits_metaschedule_needs_or_says_why_not():
    if not tvm.cuda(0).exist:
        with pytest.raises(ValueError, match="no CUDA device is present.*nvidia/nvidia-h100"):
            target_from("cuda")
        return
    target = target_from("cuda")
    assert target.kind.name == "cuda" and str(target.attrs["arch"]).startswith("sm_")
    assert int(target.attrs["max_threads_per_block"]) > 0
    assert int(target.attrs["max_shared_memory_per_block"]) > 0


def test_a_gpu_tag_works_without_a_gpu():
    target = target_from("nvidia/nvidia-h100")
    assert target.kind.name == "cuda" and int(target.attrs["max_threads_per_block"]) == 1024


def test_candidates_are_reproducible_under_a_seed(llvm_target):
    # Drawn on 8 threads, MetaSchedule's ReplayTrace gave 6 different sets in 6 calls here; the
    # sampler draws on one thread whatever num_threads the returned context has.
    mod = tvm.IRModule({"main": matmul64})
    draws = [sample_candidates(mod, llvm_target, 8, seed=7, num_threads=8) for _ in range(3)]
    traces = [[str(c.sch.trace) for c in cands] for _, cands in draws]
    assert len(traces[0]) == 8 and traces[1] == traces[0] and traces[2] == traces[0]
    assert all(ctx.num_threads == 8 for ctx, _ in draws)
