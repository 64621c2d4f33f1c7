"""Runners: local and RPC arguments."""

import pytest

from tvm_gnn.measure.runner import make_runner

from ..conftest import FAST_MEASURE


def test_bad_rpc_arguments():
    with pytest.raises(ValueError, match="HOST:PORT"):
        make_runner(FAST_MEASURE, "localhost", "k")
    with pytest.raises(ValueError, match="--rpc-key"):
        make_runner(FAST_MEASURE, "localhost:9190", None)
