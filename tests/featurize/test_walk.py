"""The Cython-compiled walk and its pure-Python source give identical graphs."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tvm_gnn
from tvm_gnn.featurize import _walk, graph

from ..conftest import add_one, matmul4


def _pure_walk_module():
    path = Path(tvm_gnn.__file__).parent / "featurize" / "_walk.py"
    spec = importlib.util.spec_from_file_location("tvm_gnn_walk_pure", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_extension_is_compiled():
    # build.sh compiles the hot loop; the package must not silently run the slow fallback.
    assert _walk.__file__.endswith(".so"), _walk.__file__


@pytest.mark.parametrize("reuse", [False, True])
@pytest.mark.parametrize("lowering", graph.LOWERINGS)
def test_compiled_and_pure_walks_are_identical(conv_candidates, lowering, reuse):
    pure = _pure_walk_module()
    assert not pure.__file__.endswith(".so")
    mods = [add_one, matmul4] + [c.sch.mod for c in conv_candidates[1][:12]]
    for mod in mods:
        func = graph.lower(mod, lowering)
        a = graph.walk_arrays(func, 8192, walk=_walk.walk, reuse=reuse)
        b = graph.walk_arrays(func, 8192, walk=pure.walk, reuse=reuse)
        for x, y in zip(a, b):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)
