"""Runners: local and RPC arguments."""

import pytest

from tvm_gnn.measure.runner import make_runner

from ..conftest import FAST_MEASURE


def test_bad_rpc_arguments():
    with pytest.raises(ValueError, match="HOST:PORT"):
        make_runner(FAST_MEASURE, "localhost", "k")
    with pytest.raises(ValueError, match="--rpc-key"):
        make_runner(FAST_MEASURE, "localhost:9190", None)


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # free, and nothing listens once the socket closes


def test_an_unreachable_tracker_is_one_error_at_once_not_a_minute_of_retries():
    import time

    from tvm_gnn.errors import MeasureServiceError

    port = _closed_port()
    start = time.monotonic()
    with pytest.raises(
        MeasureServiceError, match=f"cannot reach the RPC tracker at 127.0.0.1:{port}"
    ):
        make_runner(FAST_MEASURE, f"127.0.0.1:{port}", "k")
    assert time.monotonic() - start < 10


def test_a_tracker_without_the_key_names_the_keys_it_has():
    from tvm.rpc.tracker import Tracker

    from tvm_gnn.errors import MeasureServiceError
    from tvm_gnn.measure.runner import check_tracker

    tracker = Tracker(host="127.0.0.1", port=9190, port_end=9290, silent=True)
    try:
        with pytest.raises(MeasureServiceError, match="no device under key 'gone'.*none"):
            check_tracker("127.0.0.1", tracker.port, "gone", wait_s=0.5)
    finally:
        tracker.terminate()


@pytest.mark.parametrize(
    "url", ["localhost:0", "localhost:65536", "localhost:99999999999999999999"]
)
def test_a_port_out_of_range_is_refused(url):
    with pytest.raises(ValueError, match="port in 1-65535"):
        make_runner(FAST_MEASURE, url, "k")
