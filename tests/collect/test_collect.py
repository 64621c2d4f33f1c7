"""tvm-gnn collect: real measurements, resume after kill -9, bad lines and latencies, RPC fleet."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.collect import CollectConfig, collect_network
from tvm_gnn.dataset import dbfile, read_exhausted
from tvm_gnn.measure.runner import make_runner

from ..conftest import FAST_MEASURE, _db_folder, _tiny_task, collect_tasks


def test_records_are_a_loadable_metaschedule_database(small_db):
    db = ms.database.JSONDatabase(work_dir=str(small_db))
    records = db.get_all_tuning_records()
    assert len(records) == 6
    assert all(r.run_secs and all(float(s) > 0 for s in r.run_secs) for r in records)
    manifest = json.loads((small_db / "tasks.json").read_text())
    assert manifest[0]["shash"] == dbfile.read_workload_hashes(small_db)[0]
    scan = dbfile.read_records(small_db)  # carries the hashes, so callers read the file once
    assert scan.workload_hashes == dbfile.read_workload_hashes(small_db)
    assert {scan.workload_hashes[r.workload] for r in scan.records} == {manifest[0]["shash"]}
    prov = json.loads((small_db / "provenance.jsonl").read_text().splitlines()[0])
    assert prov["measure"]["min_repeat_ms"] == 1 and prov["tvm_version"] and prov["cpu_model"]
    assert prov["cpu_id"]["llvm"]  # which CPU generation measured, under one model name
    assert prov["collect"]["population"] == 64  # the search settings, beside the measurement's
    assert prov["measured"] == 6 and prov["seconds"] > 0  # the run's collection rate


def test_rerun_with_same_arguments_measures_nothing_new(small_db, llvm_target, kept_builder):
    before = (small_db / dbfile.RECORD_FILE).read_text()
    cfg = CollectConfig(trials_per_task=6, uniform_fraction=0.5, batch_size=3, population=64)
    root = small_db.parent.parent
    summary = collect_tasks("unit", root, llvm_target, cfg, kept_builder, [_tiny_task()])
    assert summary["measured"] == 0
    assert (small_db / dbfile.RECORD_FILE).read_text() == before
    runs = [json.loads(ln) for ln in (small_db / "provenance.jsonl").read_text().splitlines()]
    assert runs[0]["measured"] == 6 and runs[-1]["measured"] == 0  # a line a run


def test_corrupt_lines_are_reported_with_file_and_line_and_skipped(small_db, tmp_path):
    folder = tmp_path / "db"
    folder.mkdir()
    (folder / dbfile.WORKLOAD_FILE).write_text((small_db / dbfile.WORKLOAD_FILE).read_text())
    lines = (small_db / dbfile.RECORD_FILE).read_text().splitlines(keepends=True)
    torn = lines[5][: len(lines[5]) // 2]  # a write cut short by kill -9
    (folder / dbfile.RECORD_FILE).write_text(
        "".join(lines[:2]) + "{not json\n" + "".join(lines[2:5]) + '[7,"x"]\n' + torn
    )
    problems = dbfile.repair(folder)
    assert [p.line for p in problems] == [3, 7, 8]
    assert all(p.path.endswith(dbfile.RECORD_FILE) for p in problems)
    assert "3: JSONDecodeError" in str(problems[0])
    rejected = [json.loads(x) for x in (folder / "database_tuning_record.json.rejected").open()]
    assert [r["line"] for r in rejected] == [3, 7, 8] and rejected[0]["text"] == "{not json"
    db = ms.database.JSONDatabase(work_dir=str(folder))  # TVM loads the rest
    assert len(db.get_all_tuning_records()) == 5


def test_invalid_latencies_are_rejected_and_failures_kept(small_db, tmp_path):
    folder = tmp_path / "db"
    folder.mkdir()
    (folder / dbfile.WORKLOAD_FILE).write_text((small_db / dbfile.WORKLOAD_FILE).read_text())
    wl, rec = json.loads((small_db / dbfile.RECORD_FILE).read_text().splitlines()[0])
    out = []
    for secs in ([1e-4], [float("nan")], [0.0], [-1e-3], [float("inf")], None, [1e10]):
        out.append(json.dumps([wl, [rec[0], secs, *rec[2:]]]))
    (folder / dbfile.RECORD_FILE).write_text("\n".join(out) + "\n")
    scan = dbfile.read_records(folder)
    assert len(scan.invalid_latency) == 4  # NaN, 0, negative, inf
    assert [r.failed for r in scan.records] == [False, True, True]  # ok, null, 1e10
    assert scan.records[0].latency == pytest.approx(1e-4)


def _collect_cmd(out: Path):
    return [
        sys.executable,
        "-m",
        "tvm_gnn.cli",
        "collect",
        "--network",
        "tiny_cnn",
        "--out",
        str(out),
        "--max-tasks",
        "2",
        "--trials-per-task",
        "8",
        "--batch-size",
        "2",
        "--number",
        "1",
        "--min-repeat-ms",
        "1",
        "--num-cores",
        "2",
        "--population",
        "64",
    ]


def test_kill_9_then_resume_loses_and_duplicates_nothing_and_leaves_no_temp_file(tmp_path):
    out = tmp_path / "data"
    proc = subprocess.Popen(
        _collect_cmd(out),
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    record_file = None
    deadline = time.time() + 300
    try:
        while time.time() < deadline and proc.poll() is None:
            found = list(out.glob("*/tiny_cnn/" + dbfile.RECORD_FILE))
            if found and len(found[0].read_text().splitlines()) >= 3:
                record_file = found[0]
                break
            time.sleep(0.2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the collector and its build/run workers
        proc.wait()
    assert record_file is not None, "collector wrote no records before the deadline"
    before = record_file.read_text().splitlines()
    assert 3 <= len(before) < 16, f"{len(before)} lines when killed"
    tmp = tmp_path / "tmp"  # the resumed run's temp folder: it must leave nothing there
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    done = subprocess.run(_collect_cmd(out), capture_output=True, text=True, timeout=600, env=env)
    # what a failure below needs to be diagnosed (the test is timing-dependent)
    why = f"before kill: {len(before)} lines\n{done.stdout[-1500:]}\n{done.stderr[-2000:]}"
    assert done.returncode == 0, why
    after = record_file.read_text().splitlines()
    complete = [line for line in before if line.endswith("]")]
    assert after[: len(complete)] == complete, why  # nothing measured before the kill is lost
    scan = dbfile.read_records(record_file.parent)
    # 2 tasks x 8, torn lines excepted
    assert len(scan.records) == 16 and not scan.problems, (
        f"{len(scan.records)} records, problems {scan.problems}\n{why}"
    )
    keys = [(r.workload, json.dumps(r.trace)) for r in scan.records]
    assert len(set(keys)) == len(keys), why  # nothing measured twice
    assert not list(tmp.iterdir()), why  # no build folder, module or template left behind


def _collect_cut_resume(root, target, cfg, keep: int, kept_builder):
    """Collect the tiny matmul as network "u", cut its record file to ``keep`` lines (as if
    killed there), collect again; returns both summaries and the first run's record lines."""

    def collect():
        tiny = [_tiny_task()]
        return collect_network(
            "u", root, target, cfg, FAST_MEASURE, tasks=tiny, progress=False, builder=kept_builder
        )

    first = collect()
    record_file = _db_folder(root, "u") / dbfile.RECORD_FILE
    lines = record_file.read_text().splitlines(keepends=True)
    record_file.write_text("".join(lines[:keep]))
    again = collect()
    return first, again, lines


def test_resume_in_the_uniform_phase_measures_only_what_is_missing(
    tmp_path, llvm_target, kept_builder
):
    cfg = CollectConfig(trials_per_task=6, uniform_fraction=1.0, batch_size=3)
    first, again, lines = _collect_cut_resume(
        tmp_path, llvm_target, cfg, keep=3, kept_builder=kept_builder
    )
    assert first["measured"] == 6
    assert again["measured"] == 3 and again["records"] == 6
    folder = _db_folder(tmp_path, "u")
    traces = [json.dumps(r.trace) for r in dbfile.read_records(folder).records]
    # the same seed re-drew the same six programs; the three recorded ones were skipped
    assert traces == [json.dumps(json.loads(line)[1][0]) for line in lines]


def test_a_failed_record_does_not_count_toward_the_target(tmp_path, llvm_target, kept_builder):
    """(In a hardware folder named by the caller, as ``collect --hardware`` names it.)"""
    cfg = CollectConfig(trials_per_task=4, uniform_fraction=1.0, batch_size=2)
    run = {"tasks": [_tiny_task()], "progress": False, "hardware": "lab-box-1"}
    collect_network("u", tmp_path, llvm_target, cfg, FAST_MEASURE, **run, builder=kept_builder)
    record_file = tmp_path / "lab-box-1" / "u" / dbfile.RECORD_FILE
    lines = record_file.read_text().splitlines()
    wl, rec = json.loads(lines[1])
    lines[1] = json.dumps([wl, [rec[0], None, *rec[2:]]])  # as if its run had failed
    record_file.write_text("\n".join(lines) + "\n")
    again = collect_network(
        "u", tmp_path, llvm_target, cfg, FAST_MEASURE, **run, builder=kept_builder
    )
    assert again["measured"] == 1 and again["records"] == 5  # the failure kept, one more measured
    scan = dbfile.read_records(record_file.parent)
    assert sum(not r.failed for r in scan.records) == 4
    assert len({json.dumps(r.trace) for r in scan.records}) == 5  # the failed program not retried


def test_a_widely_spread_task_is_measured_further_and_resumes_there(
    tmp_path, llvm_target, kept_builder
):
    """Any two timings of different programs differ, so a ratio just above 1 marks the tiny
    matmul wide: it gets 8 valid records instead of 4 (a narrow task's 4: test_config.py)."""
    wide = CollectConfig(
        trials_per_task=4, uniform_fraction=1.0, batch_size=2, wide_spread=1.0 + 1e-9,
        wide_spread_trials=8,
    )  # fmt: skip
    # killed among the extra records
    got, again, _ = _collect_cut_resume(
        tmp_path, llvm_target, wide, keep=6, kept_builder=kept_builder
    )
    assert got["measured"] == 8 and got["records"] == 8
    assert again["measured"] == 2 and again["records"] == 8
    folder = _db_folder(tmp_path, "u")
    traces = [json.dumps(r.trace) for r in dbfile.read_records(folder).records]
    assert len(set(traces)) == 8  # nothing recorded twice
    prov = json.loads((folder / "provenance.jsonl").read_text().splitlines()[0])
    assert prov["collect"]["wide_spread_trials"] == 8  # the setting is in the run's provenance


def _pool_task():
    """A 2x2 max pool: a design space of a few dozen programs (VGG-16's pools hold about 28)."""
    import tvm
    from tvm import te, topi

    x = te.placeholder((1, 2, 8, 8), name="X")
    y = topi.nn.pool2d(x, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max", layout="NCHW")
    return ("max_pool", tvm.IRModule({"main": te.create_prim_func([x, y])}), 1)


def test_a_short_small_space_is_measured_whole_and_marked_exhausted(
    tmp_path, llvm_target, monkeypatch, kept_builder
):
    """What the search leaves short, many uniform draws finish, and then mark exhausted."""
    import tvm_ffi

    from tvm_gnn.collect import recording, task

    monkeypatch.setattr(task, "EVOLUTION_ROUNDS", 0)  # as if the search found nothing new
    name, mod, _ = _pool_task()
    cfg = CollectConfig(trials_per_task=64, batch_size=16)
    got = collect_tasks("p", tmp_path, llvm_target, cfg, kept_builder, [(name, mod, 1)])
    folder = _db_folder(tmp_path, "p")
    shash = str(tvm_ffi.structural_hash(mod))
    assert 1 < got["records"] < 64 and shash in read_exhausted(folder)
    _, keys, _ = recording._existing(folder)
    workload = ms.database.JSONDatabase(work_dir=str(folder)).commit_workload(mod)
    draws = task.unrecorded_draws(mod, llvm_target, workload, set(), 512, seed=7)
    assert {k for k, _ in draws} <= keys[shash]  # every program drawn is recorded
    assert task.unrecorded_draws(mod, llvm_target, workload, keys[shash], 512, seed=7) == []
    dropped = {draws[0][0], draws[-1][0]}  # as if two of them had not been measured yet
    found = task.unrecorded_draws(mod, llvm_target, workload, keys[shash] - dropped, 512, 7)
    assert {k for k, _ in found} == dropped


def test_uniform_draws_only_run_no_search_and_still_mark_a_small_space_exhausted(
    tmp_path, llvm_target, monkeypatch, kept_builder
):
    """``uniform_fraction=1``: repeated draws leave a small space short, and the further uniform
    draws, not a search, measure the rest and mark it exhausted."""
    from tvm_gnn.collect import task

    def no_search(*args, **kwargs):
        raise AssertionError("uniform_fraction=1 ran an evolutionary search")

    monkeypatch.setattr(task, "_search", no_search)
    name, mod, _ = _pool_task()
    cfg = CollectConfig(trials_per_task=64, uniform_fraction=1.0, batch_size=16)
    got = collect_tasks("p", tmp_path, llvm_target, cfg, kept_builder, [(name, mod, 1)])
    assert 1 < got["records"] < 64 and got["failed"] == 0
    assert len(read_exhausted(_db_folder(tmp_path, "p"))) == 1


def test_a_program_the_database_holds_is_measured_but_not_recorded_again(
    small_db, tmp_path, llvm_target
):
    """The evolutionary phase's commit callback: MetaSchedule's search re-proposes recorded
    programs."""
    import tvm_ffi

    from tvm_gnn.collect.recording import _commit_new_class, _existing, _record_key
    from tvm_gnn.measure.builder import make_builder
    from tvm_gnn.measure.sampling import sample_candidates

    folder = tmp_path / "db"
    folder.mkdir()
    for f in (dbfile.WORKLOAD_FILE, dbfile.RECORD_FILE):
        (folder / f).write_text((small_db / f).read_text())
    _, mod, _ = _tiny_task()
    db = ms.database.JSONDatabase(work_dir=str(folder))
    workload = db.commit_workload(mod)
    _, keys, _ = _existing(folder)
    seen = set(keys[str(tvm_ffi.structural_hash(mod))])
    _, recorded = sample_candidates(mod, llvm_target, 3, seed=0)  # small_db's uniform samples
    assert all(_record_key(c.sch.trace, workload) in seen for c in recorded)
    _, drawn = sample_candidates(mod, llvm_target, 6, seed=99)
    fresh = {_record_key(c.sch.trace, workload): c for c in drawn}
    fresh = [c for k, c in fresh.items() if k not in seen][:2]
    assert fresh, "seed 99 drew only recorded programs"
    cands = [recorded[0], *fresh, recorded[1]]
    built = make_builder().build([ms.builder.BuilderInput(c.sch.mod, llvm_target) for c in cands])
    runs = make_runner(FAST_MEASURE).run(
        [ms.runner.RunnerInput(b.artifact_path, "cpu", c.args_info) for b, c in zip(built, cands)]
    )
    commit = _commit_new_class()(db, workload, llvm_target, seen)
    scheduler = ms.task_scheduler.TaskScheduler.create("round-robin")
    commit.apply(scheduler, 0, cands, built, [r.result() for r in runs])
    assert (commit.proposed, commit.new, commit.repeats, commit.failed) == (4, len(fresh), 2, 0)
    assert len(commit.latencies) == len(fresh) and min(commit.latencies) > 0  # the new ones only
    scan = dbfile.read_records(folder)
    assert len(scan.records) == 6 + len(fresh)
    assert len({json.dumps(r.trace) for r in scan.records}) == len(scan.records)


def test_rpc_tracker_with_two_servers(tmp_path, llvm_target, kept_builder):
    from tvm.rpc.server import Server
    from tvm.rpc.tracker import Tracker

    tracker = Tracker(host="127.0.0.1", port=9190, port_end=9290, silent=True)
    servers = [
        Server(
            host="127.0.0.1",
            port=9300,
            port_end=9400,
            key="tvm-gnn-test",
            tracker_addr=("127.0.0.1", tracker.port),
            silent=True,
        )
        for _ in range(2)
    ]
    try:
        runner = make_runner(
            FAST_MEASURE, f"127.0.0.1:{tracker.port}", "tvm-gnn-test", rpc_workers=2
        )
        cfg = CollectConfig(trials_per_task=4, uniform_fraction=1.0, batch_size=4)
        summary = collect_network(
            "rpc",
            tmp_path,
            llvm_target,
            cfg,
            FAST_MEASURE,
            runner=runner,
            rpc_key="tvm-gnn-test",
            tasks=[_tiny_task()],
            progress=False,
            builder=kept_builder,
        )
    finally:
        for s in servers:
            s.terminate()
        tracker.terminate()
    assert summary["records"] == 4 and summary["failed"] == 0
    folder = _db_folder(tmp_path, "rpc")
    assert folder.parent.name == "llvm-rpc-tvm-gnn-test"
    scan = dbfile.read_records(folder)
    assert all(not r.failed and r.latency > 0 for r in scan.records)


def test_skip_shared_leaves_a_workload_to_the_network_that_has_it_and_finishes_one_begun(
    tmp_path, llvm_target, kept_builder
):
    """Network "b" shares the tiny matmul with "a", which has its records: with --skip-shared, b
    measures only its pool, and says so in shared.json, the summary and dataset-stats. A task b
    had begun before is finished all the same."""
    import tvm_ffi

    from tvm_gnn.collect.network import measured_elsewhere
    from tvm_gnn.dataset import stats, stats_markdown

    cfg = CollectConfig(trials_per_task=2, uniform_fraction=1.0, batch_size=2)
    skip = CollectConfig(trials_per_task=2, uniform_fraction=1.0, batch_size=2, skip_shared=True)
    matmul, pool = _tiny_task(), _pool_task()
    collect_network(
        "a",
        tmp_path,
        llvm_target,
        cfg,
        FAST_MEASURE,
        tasks=[matmul],
        progress=False,
        builder=kept_builder,
    )
    got = collect_network(
        "b",
        tmp_path,
        llvm_target,
        skip,
        FAST_MEASURE,
        tasks=[matmul, pool],
        progress=False,
        builder=kept_builder,
    )
    folder = _db_folder(tmp_path, "b")
    scan = dbfile.read_records(folder)
    shash = {name: str(tvm_ffi.structural_hash(mod)) for name, mod, _ in (matmul, pool)}
    assert {scan.workload_hashes[r.workload] for r in scan.records} == {shash["max_pool"]}
    assert got["left_to_other_networks"] == 1 and got["measured"] == 2
    assert json.loads((folder / "shared.json").read_text()) == {shash["matmul32"]: "a"}
    (row,) = [n for n in stats(tmp_path)["networks"] if n["network"] == "b"]
    assert row["tasks_unmeasured"] == 0 and row["tasks_left"] == 1  # not "measured in part"
    assert "| b | " + folder.parent.name + " | 2 (1 left to others) | 1 |" in stats_markdown(
        stats(tmp_path)
    )

    # "c" began the matmul (1 of its 2 records, as if killed) before --skip-shared: it finishes it
    collect_network(
        "c",
        tmp_path,
        llvm_target,
        cfg,
        FAST_MEASURE,
        tasks=[matmul],
        progress=False,
        builder=kept_builder,
    )
    record_file = _db_folder(tmp_path, "c") / dbfile.RECORD_FILE
    record_file.write_text("".join(record_file.read_text().splitlines(keepends=True)[:1]))
    again = collect_network(
        "c",
        tmp_path,
        llvm_target,
        skip,
        FAST_MEASURE,
        tasks=[matmul],
        progress=False,
        builder=kept_builder,
    )
    assert again["left_to_other_networks"] == 0 and again["measured"] == 1

    # a held-out network's records are a test set: it measures the pool b has, and a workload
    # only a held-out folder has does not count as measured for a training network
    held_out = tmp_path / folder.parent.name / "resnet18"
    shutil.copytree(_db_folder(tmp_path, "a"), held_out)
    test_set = collect_network(
        "resnet18", tmp_path, llvm_target, skip, FAST_MEASURE, tasks=[matmul, pool],
        progress=False, builder=kept_builder)  # fmt: skip
    assert test_set["left_to_other_networks"] == 0 and test_set["measured"] == 2
    for net in ("a", "c"):
        shutil.rmtree(_db_folder(tmp_path, net))
    assert measured_elsewhere(folder, 2) == {}  # b's own pool aside, only resnet18 has them

    # one record of the pool is enough elsewhere when it is the pool's every program (exhausted)
    d = tmp_path / folder.parent.name / "d"
    shutil.copytree(folder, d)
    (d / dbfile.RECORD_FILE).write_text((d / dbfile.RECORD_FILE).read_text().splitlines()[0] + "\n")
    assert measured_elsewhere(folder, 2) == {}
    (d / "exhausted.json").write_text(json.dumps([shash["max_pool"]]))
    assert measured_elsewhere(folder, 2) == {shash["max_pool"]: "d"}


def test_a_network_with_nothing_left_is_not_extracted_again(
    tmp_path, llvm_target, monkeypatch, kept_builder
):
    """A resumed run decides from the folder alone that a network is done, without extracting
    its tasks again; a higher --trials-per-task, another TVM or a workload its shared.json leaves
    to a network that no longer has it sends it back to extraction."""
    from tvm_gnn.collect import network

    matmul, pool = _tiny_task(), _pool_task()
    extracted = []

    def extract(name, target):  # what MetaSchedule's extraction of a two-task network returns
        extracted.append(name)
        return [matmul, pool] if name == "a" else [matmul]

    monkeypatch.setattr(network, "network_tasks", extract)
    cfg = CollectConfig(trials_per_task=2, uniform_fraction=1.0, batch_size=2, skip_shared=True)

    def run(net, c=cfg):
        return collect_network(
            net, tmp_path, llvm_target, c, FAST_MEASURE, progress=False, builder=kept_builder
        )

    assert run("a")["measured"] == 4 and extracted == ["a"]
    prov = _db_folder(tmp_path, "a") / "provenance.jsonl"
    lines = prov.read_text()
    again = run("a")
    assert extracted == ["a"] and again["finished_before"] and again["measured"] == 0
    assert again["records"] == 4 and prov.read_text() == lines  # it ran nothing: no line

    more = CollectConfig(trials_per_task=3, uniform_fraction=1.0, batch_size=2, skip_shared=True)
    assert run("a", more)["measured"] == 2 and extracted == ["a", "a"]
    prov.write_text(prov.read_text().replace('"tvm_version": "', '"tvm_version": "0.0-'))
    assert run("a", more)["measured"] == 0 and extracted == ["a", "a", "a"]  # another TVM

    assert run("b")["left_to_other_networks"] == 1 and extracted[-1] == "b"  # a has the matmul
    assert run("b")["finished_before"] and extracted.count("b") == 1
    shutil.rmtree(_db_folder(tmp_path, "a"))
    assert run("b")["measured"] == 2 and extracted.count("b") == 2  # now b measures it itself
