"""Compiling a tuned network: its output is checked against PyTorch's."""

import pytest
import torch
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.measure import networks
from tvm_gnn.measure.sampling import target_from
from tvm_gnn.tune.compile import OutputMismatchError, compile_checked


def test_an_output_that_differs_from_pytorchs_is_an_error_with_the_difference():
    model, example = networks.get_torch("tiny_cnn", seed=0)
    other, _ = networks.get_torch("tiny_cnn", seed=123)  # the same network, other weights
    with torch.no_grad():
        expected = model(example).numpy()
    target, database = target_from("llvm", 2), ms.database.MemoryDatabase()
    _, _, untuned = compile_checked(
        database, networks.to_relax(model, example), target, example, expected
    )
    assert untuned  # an empty database: every function compiled unscheduled, and still right
    with pytest.raises(OutputMismatchError, match=r"tiny_cnn: tuned output differs .* max abs"):
        compile_checked(
            database, networks.to_relax(other, example), target, example, expected, what="tiny_cnn"
        )
