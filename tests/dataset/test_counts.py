"""Dataset statistics: raw and packed folders agree; exhausted workloads counted apart; what
each network shares with the held-out networks and with no other."""

from tvm_gnn import dataset as data

from ..conftest import workload_hashes


def test_stats_raw_and_packed_agree(small_db, packed):
    raw, pk = data.stats(small_db.parent.parent), data.stats(packed)
    assert raw == pk
    (unit,) = raw["networks"]
    assert unit["valid"] == 6 and unit["failed"] == 0 and unit["tasks"] == 1
    assert unit["workloads_under_32"] == 1 and 0 < unit["min_ms"] <= unit["max_ms"]
    assert unit["under_32_exhausted"] == 0  # 6 of a 32x32 matmul's many programs: short
    assert "| unit |" in data.stats_markdown(raw)
    ((hw, rate),) = raw["collection"].items()  # from the runs' provenance lines, packed too
    assert rate["records"] == 6 and rate["runs"] >= 1 and rate["seconds"] > 0
    assert f"Collection rate, {hw}: " in data.stats_markdown(raw)


def test_stats_counts_exhausted_workloads_apart(packed, tmp_path):
    import json
    import shutil

    from tvm_gnn.dataset import EXHAUSTED_FILE

    copy = tmp_path / "data"
    shutil.copytree(packed, copy)
    (folder,) = copy.glob("*/unit")
    (shash,) = workload_hashes(folder)
    (folder / EXHAUSTED_FILE).write_text(json.dumps([shash, "12345"]))  # one unmeasured hash
    st = data.stats(copy)
    (unit,) = st["networks"]
    assert (unit["workloads_under_32"], unit["under_32_exhausted"]) == (1, 1)
    assert "| 1 (1) |" in data.stats_markdown(st)


def test_each_network_counts_what_it_shares_with_the_held_out_and_what_only_it_has(
    small_dataset,
):
    st = data.stats(small_dataset, held_out=["resnet18"])
    by = {n["network"]: n for n in st["networks"]}
    import json

    def hashes(net):  # the fixture writes plain (unpacked) databases
        text = (small_dataset / "cpu" / net / "database_workload.json").read_text()
        return {json.loads(line)[0] for line in text.splitlines()}

    r50, r18 = hashes("resnet50"), hashes("resnet18")
    assert len(r50 & r18) >= 2  # the fixture puts two shared workloads first
    assert by["resnet50"]["shares_held_out"] == len(r50 & r18) == len(st["shared_with_held_out"])
    assert by["resnet18"]["shares_held_out"] is None  # held out itself
    assert by["resnet50"]["only_here"] == len(r50 - r18)
    assert by["resnet18"]["only_here"] == len(r18 - r50)
    table = data.stats_markdown(st)
    assert f"| {len(r50 & r18)} | {len(r50 - r18)} |" in table and "| held out |" in table


def test_a_second_cpu_keeps_its_own_rows_and_totals(small_dataset, tmp_path):
    import shutil

    two = tmp_path / "data"
    shutil.copytree(small_dataset / "cpu", two / "cpu")
    shutil.copytree(small_dataset / "cpu" / "resnet18", two / "cpu2" / "resnet18")
    one, st = data.stats(small_dataset), data.stats(two)
    rows = {(n["hardware"], n["network"]): n for n in st["networks"]}
    assert set(rows) == {("cpu", "resnet50"), ("cpu", "resnet18"), ("cpu2", "resnet18")}
    assert rows["cpu2", "resnet18"]["valid"] == rows["cpu", "resnet18"]["valid"]
    assert st["distinct_workloads"] == one["distinct_workloads"]  # the same programs' workloads
    assert st["per_hardware"]["cpu"] == one["per_hardware"]["cpu"]
    r18 = rows["cpu2", "resnet18"]
    assert st["per_hardware"]["cpu2"] == {
        "valid": r18["valid"],
        "workloads": 5,
        "networks": 1,
        "synthetic": 0,
    }
    table = data.stats_markdown(st)
    assert f"| **total** | cpu2 | | 5 distinct | {r18['valid']} |" in table
    assert "| **total** | cpu |" not in data.stats_markdown(one)  # one CPU: one total row


def test_would_add_counts_workloads_new_to_the_dataset_and_new_after_the_candidates_before(
    small_dataset,
):
    import json

    tasks = json.loads((small_dataset / "cpu" / "resnet18" / "tasks.json").read_text())
    known = tasks[0]["shash"]  # queued or measured, a tasks.json workload is the dataset's

    def manifest(*hashes):
        return [{"name": f"t{i}", "shash": h, "weight": 1} for i, h in enumerate(hashes)]

    cands = {"a": manifest(known, "new1", "new2"), "b": manifest("new2", "new3")}
    rows = data.would_add(small_dataset, "cpu", cands)
    assert [(r["network"], r["tasks"], r["new"], r["new_after_above"]) for r in rows] == [
        ("a", 3, 2, 2),
        ("b", 2, 2, 1),
    ]
    assert data.would_add(small_dataset, "another-cpu", cands)[0]["new"] == 3  # none there
    table = data.would_add_markdown(rows, "cpu", rate=36.0)  # 32 records of 36 s: 0.32 h
    # collect measures every task of a network, shared workloads too: a's 3 tasks cost 96 records
    assert (
        "| a | 3 | 3 | 2 | 2 | 96 | 1.0 |" in table and "| b | 2 | 2 | 2 | 1 | 64 | 0.6 |" in table
    )
    assert table.endswith(  # --skip-shared measures the 3 new workloads only: 96 records
        "In all: 3 new workloads from 160 records, about 1.6 h at 36.00 s a record; with "
        "collect --skip-shared, from about 96 records (1.0 h)"
    )
    assert "no time estimate" in data.would_add_markdown(rows, "cpu", rate=None)


def test_each_network_counts_its_workloads_measured_past_32_valid_records(small_dataset, tmp_path):
    import shutil
    from pathlib import Path

    from ..conftest import write_subset

    root = tmp_path / "data"
    shutil.copytree(small_dataset / "cpu", root / "cpu")
    committed = Path(__file__).resolve().parents[2] / "data" / "llvm-amd-epyc-2c" / "resnet18"
    write_subset(committed, root / "cpu" / "wide", 2, 40)  # two workloads topped up past 32
    write_subset(committed, root / "cpu" / "even", 1, 32)  # one at exactly 32: not past it
    st = data.stats(root)
    over = {n["network"]: n["workloads_over_32"] for n in st["networks"]}
    assert over == {"resnet50": 0, "resnet18": 0, "wide": 2, "even": 0}
    table = data.stats_markdown(st).splitlines()
    assert "| workloads < 32 valid (exhausted) | workloads > 32 valid |" in table[0]
    cells = {row.split(" | ")[0]: [c.strip() for c in row.strip("|").split("|")] for row in table}
    wide, total = cells["| wide"], cells["| **total**"]
    assert wide[9] == total[9] == "2"  # the column after "< 32 valid (exhausted)"
    assert {len(row) for row in (cells["| network"], wide, total)} == {13}
