"""Networks and synthetic operator families: what `collect` extracts tasks from."""

import pytest

from tvm_gnn.cli import UsageError, network_names
from tvm_gnn.dataset.splits import HELD_OUT
from tvm_gnn.measure.networks import SYNTHETIC, extract_tasks


def test_each_synthetic_shape_is_its_own_task(llvm_target):
    import tvm_ffi

    hashes = set()
    for family, shapes in SYNTHETIC.items():
        tasks = extract_tasks(family, llvm_target)
        assert len(tasks) == len(shapes), family
        hashes |= {tvm_ffi.structural_hash(t.dispatched[0]) for t in tasks}
    assert len(hashes) == sum(len(s) for s in SYNTHETIC.values())  # no two shapes collide


def test_depthwise_family_convolves_each_channel_alone(llvm_target):
    task = extract_tasks("synthetic_depthwise_conv2d", llvm_target)[0]
    script = task.dispatched[0].script()
    # the weight of a depthwise convolution has one input channel per group
    shapes = SYNTHETIC["synthetic_depthwise_conv2d"]
    assert "group_conv2d_nchw" in script
    assert any(
        f"(T.int64({c}), T.int64(1), T.int64({k}), T.int64({k}))" in script for c, _, k, _ in shapes
    )


def test_training_selection_has_the_synthetic_families_and_no_held_out_network():
    names = network_names(["training"])
    assert set(SYNTHETIC) <= set(names) and not set(HELD_OUT) & set(names)
    assert network_names(["synthetic", "resnet50"]) == [*SYNTHETIC, "resnet50"]
    with pytest.raises(UsageError, match="synthetic"):
        network_names(["synthetic_gemm"])


def test_the_cards_collect_command_names_every_training_network_and_no_held_out_one():
    """docs/collection.md's breadth command is how the dataset resumes: a misspelt name would stop
    it, a held-out name would put test data into training, a network left out would not be
    topped up."""
    import re
    from pathlib import Path

    card = (Path(__file__).parents[2] / "docs" / "collection.md").read_text()
    (command,) = re.findall(r"--skip-shared --network ([\w \\\n]+)", card)  # the breadth one
    names = command.replace("\\", " ").split()
    assert network_names(names) == names  # each known, none twice
    registered = set(network_names(["training"])) - {"tiny_cnn"}
    assert set(names) == registered


def test_int8_family_accumulates_in_int32_and_requantizes_to_int8(llvm_target):
    import numpy as np
    import tvm

    family = "synthetic_matmul_int8"
    m, n, k = SYNTHETIC[family][0]  # (1, 1000, 512)
    a_shape = f'(T.int64({m}), T.int64({k})), "int8"'
    funcs = [t.dispatched[0] for t in extract_tasks(family, llvm_target)]
    (func,) = [f for f in funcs if a_shape in f.script()]
    lib = tvm.compile(func, target=llvm_target)
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    out = tvm.runtime.tensor(np.zeros((m, n), np.int8))
    lib["main"](tvm.runtime.tensor(a), tvm.runtime.tensor(b), out)
    acc = a.astype(np.int32) @ b.astype(np.int32)  # would overflow int8 or int16
    want = np.clip(np.round(acc.astype(np.float32) / 256), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize(
    ("name", "operator", "shape"),
    [("tcn_conv1d", "conv1d", (1, 35)), ("unet_small", "conv2d_transpose", (1, 1, 128, 128))],
)
def test_handwritten_networks_bring_the_operator_they_are_for(llvm_target, name, operator, shape):
    from tvm_gnn.measure.networks import get_torch

    model, example = get_torch(name)
    assert tuple(model(example).shape) == shape
    names = [t.task_name for t in extract_tasks(name, llvm_target)]
    assert sum(f"_{operator}" in f"_{n}" for n in names) >= 2, names
