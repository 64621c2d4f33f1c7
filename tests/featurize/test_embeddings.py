"""FastText node-type vectors: shipped file matches the vocabulary; training is deterministic."""

import numpy as np
import pytest

from tvm_gnn.featurize import embeddings
from tvm_gnn.nn.vocab import NODE_TYPES


def test_shipped_vectors_cover_the_vocabulary():
    v = embeddings.load_vectors()
    assert v.shape == (len(NODE_TYPES), embeddings.DEFAULT_DIM)
    assert np.isfinite(v).all() and np.abs(v).sum() > 0


def test_training_is_deterministic():
    sentences = [["For", "For", "BufferStore", "Add", "BufferLoad", "Var", "Var"]] * 50 + [
        ["SBlockRealize", "SBlock", "For", "BufferStore", "Mul", "Var", "IntImm"]
    ] * 50
    a = embeddings.train_vectors(sentences, dim=8, epoch=5)
    b = embeddings.train_vectors(sentences, dim=8, epoch=5)
    assert a.shape == (len(NODE_TYPES), 8)
    np.testing.assert_array_equal(a, b)


def test_bad_vector_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="tvm-gnn embeddings"):
        embeddings.load_vectors(tmp_path / "missing.txt")
    bad = tmp_path / "v.txt"
    bad.write_text("# tvm_gnn node-type vectors: vocab_version=999 dim=2\nFor 1 2\n")
    with pytest.raises(ValueError, match="another vocabulary version"):
        embeddings.load_vectors(bad)
