"""One writer a folder: the second is refused by the holder's name, a dead holder's lock is taken
over, and a cut fill is marked until it is done again."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tvm_gnn.errors import DataError
from tvm_gnn.lock import (
    LOCK_FILE,
    FolderBusyError,
    check_whole,
    one_writer,
    unfinished,
    was_cut,
)

HOLD = (
    "import sys, time\n"
    "from tvm_gnn.lock import one_writer\n"
    "with one_writer(sys.argv[1], 'tvm-gnn collect test'):\n"
    "    print('held', flush=True)\n"
    "    time.sleep(600)\n"
)


def _holder(folder):
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_writer_is_refused_with_the_holders_pid_and_command(tmp_path):
    proc = _holder(tmp_path)
    try:
        with pytest.raises(FolderBusyError) as err:
            with one_writer(tmp_path):
                pass
    finally:
        proc.kill()
        proc.wait()
    assert f"{tmp_path} is being written by pid {proc.pid} (tvm-gnn collect test, since" in str(
        err.value
    )


def test_in_one_process_too_a_folder_has_one_writer(tmp_path):
    with one_writer(tmp_path, "first"):
        with pytest.raises(FolderBusyError, match=f"pid {os.getpid()} \\(first"):
            with one_writer(tmp_path, "second"):
                pass
        assert json.loads((tmp_path / LOCK_FILE).read_text())["command"] == "first"
    assert not (tmp_path / LOCK_FILE).exists()  # released: the file goes with it
    with one_writer(tmp_path):  # and the folder can be held again
        pass


def test_the_lock_of_a_killed_holder_is_stale_and_taken_over(tmp_path, caplog):
    proc = _holder(tmp_path)
    proc.send_signal(signal.SIGKILL)  # no unwinding: the lock file stays behind
    proc.wait()
    assert (tmp_path / LOCK_FILE).exists()
    with one_writer(tmp_path, "next"):
        assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == os.getpid()
    assert f"took over the lock left by pid {proc.pid}" in caplog.text


def test_a_corrupt_lock_file_does_not_stop_a_writer(tmp_path):
    (tmp_path / LOCK_FILE).write_text("\x00 not json")
    with one_writer(tmp_path):
        pass


def test_a_fill_cut_in_the_middle_stays_marked_until_done_whole(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with unfinished(tmp_path, "unpack"):
            raise KeyboardInterrupt
    assert was_cut(tmp_path) == "unpack"
    with pytest.raises(DataError, match="interrupted `tvm-gnn unpack`; run `tvm-gnn unpack` again"):
        check_whole(tmp_path)
    with unfinished(tmp_path, "unpack"):
        pass
    assert was_cut(tmp_path) is None
    check_whole(tmp_path)


def test_two_holders_started_together_never_both_hold(tmp_path):
    code = (
        "import sys, time\n"
        "from tvm_gnn.lock import one_writer, FolderBusyError\n"
        "time.sleep(max(0, float(sys.argv[2]) - time.time()))\n"
        "try:\n"
        "    with one_writer(sys.argv[1]):\n"
        "        open(sys.argv[1] + '/in', 'a').write('x')\n"
        "        time.sleep(0.5)\n"
        "        n = len(open(sys.argv[1] + '/in').read())\n"
        "        open(sys.argv[1] + '/in', 'w').write('')\n"
        "        print(n)\n"
        "except FolderBusyError:\n"
        "    print('busy')\n"
    )
    start = str(time.time() + 2)  # both wake at the same moment
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path), start], stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    outs = sorted(p.communicate(timeout=60)[0].strip() for p in procs)
    assert "1" in outs and set(outs) <= {"1", "busy"}  # whoever held it was alone
