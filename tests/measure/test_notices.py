"""TVM's known notices are dropped where the package calls TVM; everything else it writes to
file descriptor 2 comes through."""

import os

from tvm_gnn.measure import workloads
from tvm_gnn.measure.notices import known_notices_dropped
from tvm_gnn.measure.sampling import sample_candidates, target_from


def test_pooling_candidates_sample_without_tvms_unknown_rule_notice(capfd):
    _, cands = sample_candidates(workloads.get("max_pool2d"), target_from("llvm", 2), 2, seed=0)
    assert len(cands) == 2
    assert "Unknown schedule rule" not in capfd.readouterr().err


def test_other_lines_on_fd_2_come_through_in_order(capfd):
    with known_notices_dropped():
        os.write(2, b"first\n")
        os.write(2, b'W: Unknown schedule rule "meta_schedule.pool_max" for target keys\n')
        os.write(2, b"  s_tir.meta_schedule.cpu.meta_schedule.pool_max\n")
        os.write(2, b"second\n")
    assert capfd.readouterr().err == "first\nsecond\n"
