"""What collecting a network never damages: a packed folder, the record of the network's tasks,
a folder another collector writes (issue: nothing lost, nothing left behind)."""

import json
import os
import shutil
import subprocess
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tvm_gnn.cli import main
from tvm_gnn.collect import CollectConfig, collect_network
from tvm_gnn.dataset import dbfile
from tvm_gnn.dataset.layout import grown_manifest, read_tasks
from tvm_gnn.errors import DataError
from tvm_gnn.lock import LOCK_FILE, FolderBusyError, one_writer

from ..conftest import FAST_MEASURE, _tiny_task, collect_tasks
from .test_collect import _collect_cmd, _pool_task

ONE = CollectConfig(trials_per_task=1, uniform_fraction=1.0, batch_size=1, max_tasks=1)


def _snapshot(root):
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_a_packed_folder_is_refused_before_anything_is_written(packed, tmp_path, capsys):
    copy = tmp_path / "data"
    shutil.copytree(packed, copy)
    before = _snapshot(copy)
    hardware = next(copy.iterdir()).name
    with pytest.raises(DataError, match=r"packed dataset folder .*tvm-gnn unpack --data"):
        collect_network("unit", copy, None, ONE, FAST_MEASURE, tasks=[], hardware=hardware)
    code = main(["collect", "--network", "tiny_cnn", "--out", str(copy), "--max-tasks", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "then collect with --out data_raw" in err[0]
    assert _snapshot(copy) == before  # no raw file beside the .gz ones, tasks.json as it was


@given(
    old=st.lists(st.sampled_from("abcdef"), unique=True),
    new=st.lists(st.sampled_from("abcdefgh"), unique=True),
)
def test_a_grown_manifest_loses_no_task_and_keeps_the_order(old, new):
    def tasks(hashes, weight):
        return [{"name": f"t{h}", "shash": h, "weight": weight} for h in hashes]

    grown = grown_manifest(tasks(old, 1), tasks(new, 2))
    hashes = [t["shash"] for t in grown]
    assert hashes[: len(old)] == old and set(hashes) == set(old) | set(new)
    assert len(hashes) == len(set(hashes))
    assert all(t["weight"] == 2 for t in grown if t["shash"] in new)  # the new extraction's


def test_max_tasks_limits_what_is_measured_not_what_tasks_json_records(
    tmp_path, llvm_target, kept_builder
):
    folder = tmp_path / "hw" / "n"
    folder.mkdir(parents=True)
    (folder / "tasks.json").write_text(json.dumps([{"name": "old", "shash": "1", "weight": 1}]))
    tasks = [_tiny_task(), _pool_task()]
    summary = collect_tasks("n", tmp_path, llvm_target, ONE, kept_builder, tasks, hardware="hw")
    assert summary["tasks"] == 1 and summary["measured"] == 1
    assert [t["name"] for t in read_tasks(folder)] == ["old", "matmul32", "max_pool"]
    assert len(dbfile.read_workload_hashes(folder)) == 1  # only the first task was measured
    assert not (folder / LOCK_FILE).exists()


def test_a_folder_another_run_holds_is_refused_by_its_holder(tmp_path, llvm_target):
    folder = tmp_path / "hw" / "n"
    with one_writer(folder, "tvm-gnn collect n"):
        with pytest.raises(FolderBusyError, match=f"pid {os.getpid()} \\(tvm-gnn collect n"):
            collect_network("n", tmp_path, llvm_target, ONE, FAST_MEASURE, tasks=[], hardware="hw")
    assert sorted(p.name for p in folder.iterdir()) == []


def test_two_collectors_on_one_folder_the_second_is_refused_and_nothing_doubles(tmp_path):
    out = tmp_path / "data"
    first = subprocess.Popen(
        _collect_cmd(out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.time() + 300
    while not list(out.glob(f"*/tiny_cnn/{LOCK_FILE}")) and time.time() < deadline:
        assert first.poll() is None, first.communicate()[1][-2000:]
        time.sleep(0.1)
    second = subprocess.run(_collect_cmd(out), capture_output=True, text=True, timeout=300)
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err[-2000:]
    lines = [ln for ln in second.stderr.splitlines() if ln.startswith("tvm-gnn")]
    assert second.returncode == 2 and "Traceback" not in second.stderr, second.stderr[-2000:]
    assert len(lines) == 1 and f"being written by pid {first.pid} (tvm-gnn collect" in lines[0]
    (folder,) = out.glob("*/tiny_cnn")
    scan = dbfile.read_records(folder)
    keys = [(r.workload, json.dumps(r.trace)) for r in scan.records]
    assert len(scan.records) == 16 and len(set(keys)) == 16  # 2 tasks x 8, each once
    assert not (folder / LOCK_FILE).exists()


def test_collect_writes_the_raw_folder_by_default():
    from tvm_gnn.cli import build_parser

    assert str(build_parser().parse_args(["collect"]).out) == "data_raw"


def test_collect_stops_at_an_unreachable_tracker_with_one_line_and_no_record(tmp_path, capsys):
    from ..measure.test_runner import _closed_port

    out = tmp_path / "raw"
    code = main(["collect", "--network", "tiny_cnn", "--out", str(out),
                 "--rpc-tracker", f"127.0.0.1:{_closed_port()}", "--rpc-key", "k"])  # fmt: skip
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and "cannot reach the RPC tracker" in err[0], err
    assert not list(out.rglob("database_*"))


def _gone_runner():
    """A MetaSchedule runner whose service is gone: every result is what TVM's RPC runner gives
    when the tracker stopped answering mid-run (``tvm/rpc/base.py``)."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.runner import PyRunner

    why = "RPCRunner: An exception occurred\nRuntimeError: Failed to connect to server ('h', 1)"

    @derived_object
    class Gone(PyRunner):
        def run(self, runner_inputs):
            return [
                ms.runner.RunnerFuture(lambda: True, lambda: ms.runner.RunnerResult(None, why))
                for _ in runner_inputs
            ]

    return Gone()


@pytest.mark.parametrize("uniform", [1.0, 0.0])  # the uniform draws, the search's callback
def test_an_outage_mid_run_records_nothing_and_stops_the_run(
    uniform, tmp_path, llvm_target, kept_builder
):
    from tvm_gnn.errors import MeasureServiceError

    cfg = CollectConfig(trials_per_task=2, uniform_fraction=uniform, batch_size=2, population=16)
    with pytest.raises(MeasureServiceError, match="stopped answering.*Failed to connect"):
        collect_tasks("n", tmp_path, llvm_target, cfg, kept_builder, [_tiny_task()],
                      runner=_gone_runner(), hardware="hw")  # fmt: skip
    assert not dbfile.read_records(tmp_path / "hw" / "n").records


def test_a_folder_that_takes_no_files_is_one_line_not_a_traceback(tmp_path, capsys):
    folder = tmp_path / "raw" / "hw" / "tiny_cnn"
    folder.mkdir(parents=True)
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        code = main(["collect", "--network", "tiny_cnn", "--out", str(tmp_path / "raw"),
                     "--hardware", "hw", "--max-tasks", "1"])  # fmt: skip
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and f"cannot write into {folder}" in err[0], err
