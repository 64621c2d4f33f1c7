"""Checkpoints: round trip, atomic writes, and clear errors that name the file."""

import gzip
import pickle

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


def _refusal(path) -> str:
    with pytest.raises(checkpoint.CheckpointError) as err:
        checkpoint.load(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message
    assert not any(w in message for w in ("weights_only", "mmap", "Unpickl", "zipfile"))
    return message


class Stranger:
    """A Python object some other program pickled."""


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p.write_bytes(b"\x00garbage" * 10), "it is binary data of another kind"),
        (lambda p: p.write_bytes(b""), "it is empty"),
        (lambda p: p.write_text('{"weights": []}'), "it is JSON text"),
        (lambda p: p.write_text("hello"), "it is text"),
        (lambda p: p.write_bytes(gzip.compress(b"x")), "it is a gzip file"),
        (lambda p: p.write_bytes(pickle.dumps([1])), "a pickle or a torch file of the old format"),
        (lambda p: torch.save({"weights": torch.zeros(2)}, p), "a torch file of something else"),
        (lambda p: torch.save({"x": Stranger()}, p), "a torch file that holds Python objects"),
    ],
)
def test_a_foreign_file_is_said_to_be_what_it_is_in_one_line(tmp_path, make, says):
    path = tmp_path / "bad.pt"
    make(path)
    assert says in _refusal(path) and "is not a tvm_gnn checkpoint" in _refusal(path)


def test_truncated_files_and_devices(tmp_path):
    good = tmp_path / "good.pt"
    checkpoint.save(good, default_gnn("learned"), graph.FeaturizerConfig())
    cut = tmp_path / "cut.pt"
    cut.write_bytes(good.read_bytes()[:200])
    assert "a torch file that is cut short or damaged" in _refusal(cut)
    assert _refusal("/dev/null").endswith("/dev/null is not a regular file; give the .pt file")


def test_vocabulary_mismatch_is_refused_saying_how_it_differs(tmp_path, monkeypatch):
    path = tmp_path / "m.pt"
    checkpoint.save(path, default_gnn("learned"), graph.FeaturizerConfig())
    payload = torch.load(path, weights_only=True)
    n = len(payload["vocab"])
    payload["vocab"] = payload["vocab"][:-1]
    torch.save(payload, path)
    message = _refusal(path)
    assert f"another node-type vocabulary ({n - 1} types against this tvm_gnn's {n};" in message
    assert "version" not in message  # the versions may be equal; the lists are what differ


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
