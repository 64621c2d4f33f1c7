"""Ctrl-C and SIGTERM in the middle of a real search: one line, exit 130/143, no segfault, no
trace, no child process left, the temp folder as it was, every measured record kept."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tvm_gnn.cli.signals import descendants


def _start(args, tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    return subprocess.Popen(
        [sys.executable, "-m", "tvm_gnn.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, as a shell gives a command
    )


def _records(folder: Path) -> list[str]:
    path = folder / "database_tuning_record.json"
    return path.read_text().splitlines() if path.exists() else []


def _wait_for_records(proc, folders, at_least: int, timeout: float = 600) -> Path:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        assert proc.poll() is None, proc.communicate()
        for folder in folders():
            if len(_records(folder)) >= at_least:
                return folder
        time.sleep(0.2)
    raise AssertionError("no records appeared")


def _gone(pids, timeout: float = 20) -> bool:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
                alive.append(pid)
            except ProcessLookupError:
                pass
        if not alive:
            return True
        time.sleep(0.2)
    return False


def _one_clean_line(err: str, expected: str) -> None:
    assert "Traceback" not in err and "Segfault" not in err and "Exception ignored" not in err
    lines = [ln for ln in err.replace("\r", "\n").splitlines() if ln.startswith("tvm-gnn")]
    assert lines == [expected], err[-2000:]


def test_ctrl_c_mid_search_exits_130_and_keeps_every_record(tmp_path):
    work = tmp_path / "run"
    proc = _start(
        ["tune", "--network", "tiny_cnn", "--cost-model", "random", "--trials", "256",
         "--trials-per-iter", "4", "--population", "64", "--work-dir", str(work)],
        tmp_path,
    )  # fmt: skip
    _wait_for_records(proc, lambda: [work], at_least=4)
    before = _records(work)
    children = descendants(proc.pid)
    assert children, "the search runs its builds and runs in worker processes"
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    _one_clean_line(
        err, f"tvm-gnn tune: interrupted (Ctrl-C); the records measured so far are in {work}"
    )
    assert _gone(children)
    after = _records(work)
    assert after[: len(before)] == before and all(json.loads(line) for line in after)
    assert "TaskScheduler" not in err  # MetaSchedule's tables went to the log, not the console
    assert not list((tmp_path / "tmp").iterdir())  # builder folders, PyG's templates: all gone


def test_sigterm_to_the_demo_kills_its_workers_and_removes_its_folders(tmp_path):
    proc = _start(
        ["demo", "--workload", "matmul_128", "--models", "random", "--trials", "64",
         "--trials-per-iter", "4", "--population", "64",
         "--log-file", str(tmp_path / "demo.log")],
        tmp_path,
    )  # fmt: skip
    # the demo's databases, in the run's own temporary folder
    _wait_for_records(proc, lambda: list((tmp_path / "tmp").glob("*/tvm_gnn_demo_*")), at_least=4)
    children = descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)  # the parent alone: it must take its workers down itself
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143
    _one_clean_line(err, "tvm-gnn demo: interrupted (SIGTERM)")
    assert _gone(children)
    assert not list((tmp_path / "tmp").iterdir())
    assert f"TVM's logs: {tmp_path / 'demo.log'}" in out
