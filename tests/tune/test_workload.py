"""tune_tir's guard around MetaSchedule's logging: a handler MetaSchedule did not configure on
its logger (a user's, a test harness's) would make every tuning call fail."""

import logging

import pytest
from tvm.s_tir.meta_schedule.logging import get_loggers_from_work_dir

from tvm_gnn.tune.workload import MS_LOGGER, metaschedule_logger_ready


@pytest.mark.parametrize("name", [None, "users.handler"], ids=["unnamed", "named"])
def test_a_foreign_handler_is_set_aside_for_the_call_and_put_back(tmp_path, name):
    ms_logger = logging.getLogger(MS_LOGGER)
    mine = logging.StreamHandler()
    mine.set_name(name)
    ms_logger.addHandler(mine)
    try:
        with pytest.raises((AttributeError, ValueError)):  # MetaSchedule's own setup fails
            get_loggers_from_work_dir(str(tmp_path / "bare"), ["t"])
        with metaschedule_logger_ready():
            get_loggers_from_work_dir(str(tmp_path / "guarded"), ["t"])  # the setup of a call
            assert mine not in ms_logger.handlers
        assert mine in ms_logger.handlers
        assert (tmp_path / "guarded" / "logs").is_dir()
    finally:
        ms_logger.removeHandler(mine)
