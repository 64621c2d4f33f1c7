"""benchmarks/speed/collect_profile.py: each sample sorted by what the collection was doing."""

from collections import Counter

import pytest

from .. import script


def test_collect_profile_sorts_each_sample_by_what_the_collection_was_doing(tmp_path):
    profile = script("collect_profile")
    top = "<module> (tvm-gnn:8);main (cli/__init__.py:77);cmd_collect (tvm_gnn/cli/data.py:89)"
    search = top + ";_search (tvm_gnn/collect/task.py:183);TaskScheduler.tune (t.py:136)"
    uniform = top + ";_Task.measure (tvm_gnn/collect/task.py:95)"
    raw = tmp_path / "spy.txt"
    raw.write_text(
        f"{search};select (selectors.py:415) 6\n"  # the search itself
        f"{search};Builder.build (builder.py:128);wait (pool.py:1) 3\n"
        f"{search};Runner.run (runner.py:190) 1\n"
        f"{uniform};Builder.build (builder.py:128) 4\n"
        f"{uniform};LocalRunner.run (local_runner.py:305) 2\n"
        f"{top};unrecorded_draws (tvm_gnn/collect/task.py:212) 1\n"
        "<module> (threading.py:1);run (threading.py:2) 50\n"  # another thread: left out
        "\n"
    )
    counts, total = profile.shares(raw)
    assert total == 17
    assert [counts[p] for p in profile.PHASES[:6]] == [6, 3, 1, 4, 2, 1]
    table = profile.report(counts, total)
    assert f"| {profile.PHASES[0]} | 35.3% |" in table and "17 samples" in table
    assert profile.report(Counter(), 0).startswith("no sample")
    with pytest.raises(SystemExit):
        profile.main([])  # a raw file or --pid, one of them
