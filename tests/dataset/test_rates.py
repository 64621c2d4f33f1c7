"""Collection rates: seconds a record over the timed runs of one hardware, each run counted
under the CPU generation that measured it."""

from tvm_gnn import dataset as data


def test_the_rate_leaves_out_untimed_unreadable_and_empty_runs(packed, tmp_path):
    """The rate counts timed runs only, each under the CPU generation that measured it."""
    import shutil

    from tvm_gnn.measure.hardware import cpu_identity

    copy = tmp_path / "data"
    shutil.copytree(packed, copy)
    (prov,) = copy.glob("*/unit/provenance.jsonl")
    timed = data.stats(copy)["collection"]
    rerun = '{"date": "2026-11-29", "measured": 0, "seconds": 40.0}'  # a finished network again
    prov.write_text(prov.read_text() + '{"date": "2026-11-20"}\n{"measured": 5, "sec\n' + rerun)
    assert data.stats(copy)["collection"] == timed
    ((hw, rate),) = timed.items()
    here = cpu_identity()["llvm"]
    assert rate["runs_by_cpu"] == {here: rate["runs"]}  # collect records the CPU it ran on
    older = '{"measured": 4, "seconds": 8.0}'  # before runs recorded their CPU
    other = '{"measured": 2, "seconds": 3.0, "cpu_id": {"llvm": "zz-cpu", "family": 1}}'
    prov.write_text(prov.read_text() + "\n" + older + "\n" + other + "\n")
    mixed = data.stats(copy)["collection"][hw]
    assert mixed["records"] == rate["records"] + 6 and mixed["runs"] == rate["runs"] + 2
    assert mixed["runs_by_cpu"] == {here: rate["runs"], "not recorded": 1, "zz-cpu": 1}
    assert f"runs by the CPU LLVM detected: {here} {rate['runs']}, zz-cpu 1, not recorded 1" in (
        data.stats_markdown(data.stats(copy))
    )
    prov.write_text('{"date": "2026-11-20"}\n')  # a folder collected before runs were timed
    assert "no record measured by a timed run yet" in data.stats_markdown(data.stats(copy))


def test_collection_rate_reads_only_its_hardwares_timed_runs(packed, tmp_path):
    import shutil

    root = tmp_path / "data"
    (hw,) = [p.name for p in packed.iterdir()]
    shutil.copytree(packed / hw, root / hw)
    shutil.copytree(packed / hw, root / "other")
    (root / "other" / "unit" / "provenance.jsonl").write_text('{"measured": 10, "seconds": 50.0}\n')
    rate = data.stats(root)["collection"][hw]
    assert data.collection_rate(root, hw) == rate["seconds"] / rate["records"]
    assert data.collection_rate(root, "other") == 5.0
    assert data.collection_rate(root, "absent") is None
