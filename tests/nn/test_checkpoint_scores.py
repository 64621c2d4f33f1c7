"""Every checkpoint the project keeps still scores a fixed set of candidates as it did.

The fixed set: the distinct programs of the first record lines of one network folder of the
dataset (several workloads), featurized with each checkpoint's own featurizer. The expected scores
in ``checkpoint_scores.json`` were written by this module's ``--write`` before the library's
defaults became the shipped recipe (issue 71): a checkpoint rebuilds the model it recorded, not
today's defaults. Rewrite them (``python -m tests.nn.test_checkpoint_scores --write``) only in a
change that means to alter what a checkpoint predicts, and say so in its commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).with_name("checkpoint_scores.json")
FOLDER = ROOT / "data" / "llvm-amd-epyc-2c" / "squeezenet"
LINES = 48  # record lines read: the fixed candidates
PLACES = ("models", "benchmarks/tuning-runs/weights", "python/tvm_gnn/resources")


def checkpoints() -> list[str]:
    """Every checkpoint kept in the repository, as paths relative to its root."""
    found = [p for place in PLACES for p in (ROOT / place).rglob("*.pt")]
    return sorted(str(p.relative_to(ROOT)) for p in found)


def scores(path: str, graphs_of: dict) -> list[float]:
    """``path``'s scores of the fixed candidates; ``graphs_of`` caches them per featurizer."""
    from tvm_gnn.dataset.graphs import _featurize_folder
    from tvm_gnn.nn import checkpoint
    from tvm_gnn.nn.training import label_graphs, predict

    model, featurizer, _ = checkpoint.load(ROOT / path)
    if featurizer not in graphs_of:
        graphs, samples, problems = _featurize_folder(FOLDER, featurizer, LINES)
        assert not problems and len({s.shash for s in samples}) > 1
        graphs_of[featurizer] = label_graphs(graphs, [s.shash for s in samples])
    return predict(model, graphs_of[featurizer]).tolist()


@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads(EXPECTED.read_text())


def test_every_kept_checkpoint_is_expected(expected):
    assert sorted(expected) == checkpoints()


def test_checkpoints_score_as_they_did(expected):
    graphs_of: dict = {}
    for path, want in expected.items():
        got = scores(path, graphs_of)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=path)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    cache: dict = {}
    EXPECTED.write_text(json.dumps({p: scores(p, cache) for p in checkpoints()}, indent=0) + "\n")
    print(f"wrote {EXPECTED}")
