"""CollectConfig: how many records a task gets, and how widely its latencies spread."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tvm_gnn.collect import CollectConfig
from tvm_gnn.collect.config import latency_spread

latency = st.floats(min_value=1e-6, max_value=10.0)


def test_spread_is_the_90th_percentile_over_the_10th():
    # numpy's linear percentiles of 1..11 are 2 and 10; one outlier at the end does not count
    assert latency_spread(range(1, 12)) == pytest.approx(5.0)
    assert latency_spread([*range(1, 11), 1e6]) < latency_spread([1, 1e6])


@given(st.lists(latency, min_size=2, max_size=64), st.floats(min_value=1e-3, max_value=1e3))
def test_spread_is_at_least_one_and_does_not_depend_on_the_unit(lats, scale):
    assert latency_spread(lats) >= 1.0
    assert latency_spread([x * scale for x in lats]) == pytest.approx(latency_spread(lats))


def test_a_wide_task_gets_more_records_once_its_first_ones_are_in():
    cfg = CollectConfig(trials_per_task=4, wide_spread=3.0, wide_spread_trials=10)
    wide, narrow = [1.0, 10.0, 1.0, 10.0], [1.0, 1.1, 1.2, 1.3]
    assert cfg.task_target(wide[:3]) == 4  # not all of its first records are in yet
    assert cfg.task_target(wide) == 10
    assert cfg.task_target(narrow) == 4
    assert CollectConfig(trials_per_task=4).task_target(wide) == 4  # off by default
    assert CollectConfig(trials_per_task=4, wide_spread=3.0).task_target(wide) == 8  # 2x


@given(st.lists(latency, min_size=4, max_size=4), st.lists(latency, max_size=20))
def test_the_decision_rests_on_the_first_records_only(first, later):
    """So a collection killed while measuring a wide task's extra records resumes them."""
    cfg = CollectConfig(trials_per_task=4, wide_spread=2.0)
    assert cfg.task_target(first + later) == cfg.task_target(first)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"wide_spread": 1.0},
        {"wide_spread": 0.5},
        {"trials_per_task": 8, "wide_spread_trials": 4},
    ],
)
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        CollectConfig(**kwargs)
