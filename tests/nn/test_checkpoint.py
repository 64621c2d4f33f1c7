"""Checkpoints: round trip, atomic writes, and clear errors that name the file."""

import pytest
import torch

from tvm_gnn.featurize import graph
from tvm_gnn.nn import checkpoint
from tvm_gnn.nn.model import default_gnn


def test_round_trip(tmp_path):
    torch.manual_seed(0)
    model = default_gnn("learned", hidden=16)
    cfg = graph.FeaturizerConfig(lowering="tvm", max_nodes=100)
    path = tmp_path / "m.pt"
    checkpoint.save(path, model, cfg, {"note": "x"})
    back, back_cfg, extra = checkpoint.load(path)
    assert back_cfg == cfg and extra == {"note": "x"}
    assert back.config == model.config
    for k, v in model.state_dict().items():
        assert torch.equal(v, back.state_dict()[k])
    assert [p.name for p in tmp_path.iterdir()] == ["m.pt"]  # no temporary left behind


def test_missing_file_is_named(tmp_path):
    with pytest.raises(checkpoint.CheckpointError, match="nope.pt does not exist"):
        checkpoint.load(tmp_path / "nope.pt")


def test_corrupt_file_is_named(tmp_path):
    path = tmp_path / "bad.pt"
    path.write_bytes(b"\x00garbage" * 10)
    with pytest.raises(checkpoint.CheckpointError, match="bad.pt is corrupt"):
        checkpoint.load(path)


def test_truncated_and_foreign_files(tmp_path):
    good = tmp_path / "good.pt"
    checkpoint.save(good, default_gnn("learned"), graph.FeaturizerConfig())
    cut = tmp_path / "cut.pt"
    cut.write_bytes(good.read_bytes()[:200])
    with pytest.raises(checkpoint.CheckpointError, match="cut.pt"):
        checkpoint.load(cut)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    with pytest.raises(checkpoint.CheckpointError, match="not a tvm_gnn checkpoint"):
        checkpoint.load(other)


def test_vocabulary_mismatch_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "m.pt"
    checkpoint.save(path, default_gnn("learned"), graph.FeaturizerConfig())
    payload = torch.load(path, weights_only=True)
    payload["vocab"] = payload["vocab"][:-1]
    torch.save(payload, path)
    with pytest.raises(checkpoint.CheckpointError, match="vocabulary"):
        checkpoint.load(path)


def test_a_folder_is_named_as_a_folder(tmp_path):
    with pytest.raises(checkpoint.CheckpointError, match="is a folder; give the .pt file in it"):
        checkpoint.load(tmp_path)


def test_weights_of_another_architecture_are_one_line_not_torchs_dump(tmp_path):
    path = tmp_path / "m.pt"
    checkpoint.save(path, default_gnn("learned", hidden=16), graph.FeaturizerConfig())
    payload = torch.load(path, weights_only=True)
    payload["gnn_config"]["hidden"] = 32  # the config of another architecture than the weights
    torch.save(payload, path)
    with pytest.raises(checkpoint.CheckpointError) as err:
        checkpoint.load(path)
    message = str(err.value)
    assert "\n" not in message and "do not fit the architecture" in message
    assert "tensors of other shapes" in message
    assert "inp.weight is [16, " in message and "in the file, [32, " in message
