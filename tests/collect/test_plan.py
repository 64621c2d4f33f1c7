"""What ``collect --wide-spread`` would add to a dataset (``dataset-stats --wide-spread``)."""

from tvm_gnn.collect import CollectConfig
from tvm_gnn.collect.config import latency_spread


def test_the_plan_counts_the_wide_tasks_and_their_records(small_dataset):
    """The fixture's tasks hold 16 records each: at a 16-record first part, a wide task would
    get 16 more, unless its design space is exhausted."""
    import json

    from tvm_gnn.collect.plan import wide_spread_markdown, wide_spread_plan
    from tvm_gnn.dataset import EXHAUSTED_FILE
    from tvm_gnn.dataset.records import samples

    spreads = {}
    for folder in sorted((small_dataset / "cpu").iterdir()):
        for s in samples(folder)[0]:
            spreads.setdefault((folder, s.shash), []).append(s.latency)
    spreads = {k: latency_spread(v[:16]) for k, v in spreads.items()}
    ratio = sorted(spreads.values())[len(spreads) // 2]
    wide = [k for k, v in spreads.items() if v >= ratio]
    cfg = CollectConfig(trials_per_task=16, wide_spread=ratio)
    plan = wide_spread_plan(small_dataset, "cpu", cfg)
    assert sorted(plan["spreads"]) == sorted(spreads.values())
    assert (plan["wide"], plan["records"]) == (len(wide), 16 * len(wide))
    text = wide_spread_markdown(plan, "cpu", cfg, rate=2.0)
    assert f"{len(wide)} tasks" in text and f"{16 * len(wide)} more records" in text
    folder, shash = wide[0]
    (folder / EXHAUSTED_FILE).write_text(json.dumps([shash]))
    try:  # an exhausted task has no program left to add
        plan = wide_spread_plan(small_dataset, "cpu", cfg)
    finally:
        (folder / EXHAUSTED_FILE).unlink()
    assert (plan["wide"], plan["records"]) == (len(wide), 16 * (len(wide) - 1))
    assert wide_spread_plan(small_dataset, "other-cpu", cfg)["spreads"] == []
