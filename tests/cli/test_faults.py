"""The classes of fault a user meets outside the command line's own mistakes (issue 83), one test
each: a full disk, two runs on one output, another CPU's folder, odd names, a pipe as an output,
a cut card, a closed standard output, and what the Python API leaves in ``TMPDIR``. Each is one
line and exit 2 before any work, with nothing measured lost and nothing half-written left."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tvm_gnn.cli import main

from ..conftest import fill

ROOT = Path(__file__).resolve().parents[2]
TVM_GNN = str(Path(sys.executable).parent / "tvm-gnn")


def run(argv) -> int:
    """``tvm-gnn ARGV``'s exit status: a usage error at parse time exits 2 from argparse."""
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code


def _error(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines  # one line, never a traceback
    return lines[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "--out", "{m}/gnn.pt"],
        ["train", "--cache-dir", "{m}/cache"],
        ["tune", "--network", "tiny_cnn", "--work-dir", "{m}/run"],
        ["collect", "--network", "tiny_cnn", "--out", "{m}"],
    ],
    ids=["train-out", "train-cache-dir", "tune-work-dir", "collect-out"],
)
def test_a_full_file_system_is_refused_before_any_work(tmpfs, capsys, argv):
    small = tmpfs("1m")
    assert run([a.format(m=small) for a in argv]) == 2
    assert "its file system has 1.0 MiB free; a run needs at least 64 MiB" in _error(capsys)
    assert list(small.iterdir()) == []  # nothing made there


HOLD = (
    "import sys, time\n"
    "from tvm_gnn.lock import one_writer, one_writer_of\n"
    "hold = one_writer if sys.argv[1] == 'folder' else one_writer_of\n"
    "with hold(sys.argv[2], 'tvm-gnn ' + sys.argv[3]):\n"
    "    print('held', flush=True)\n"
    "    time.sleep(600)\n"
)


@pytest.mark.parametrize(
    "kind, command, argv",
    [
        ("file", "train", ["train", "--out", "{p}", "--data", "nowhere"]),
        ("folder", "tune", ["tune", "--network", "tiny_cnn", "--work-dir", "{p}"]),
    ],
)
def test_a_second_run_on_one_output_stops_at_once_naming_the_first(
    tmp_path, capsys, kind, command, argv
):
    out = tmp_path / ("gnn.pt" if kind == "file" else "run")
    first = subprocess.Popen(
        [sys.executable, "-c", HOLD, kind, str(out), command], stdout=subprocess.PIPE, text=True
    )
    try:
        assert first.stdout.readline().strip() == "held"
        assert run([a.format(p=out) for a in argv]) == 2
    finally:
        first.kill()
        first.wait()
    said = _error(capsys)
    assert f"{out} is being written by pid {first.pid} (tvm-gnn {command}, since" in said
    assert not out.is_file()  # the second wrote nothing


def _provenance(folder: Path, cpu_model: str, llvm: str | None) -> None:
    folder.mkdir(parents=True)
    line = {"cpu_model": cpu_model, "cores": 2, "date": "2026-11-30T00:00:00+00:00"}
    if llvm:
        line["cpu_id"] = {"vendor": "x", "llvm": llvm}
    (folder / "provenance.jsonl").write_text(json.dumps(line) + "\n")


def test_a_hardware_folder_of_another_cpu_is_refused_unless_asked(tmp_path, capsys):
    from tvm_gnn.collect import check_same_cpu
    from tvm_gnn.measure.hardware import cpu_identity, cpu_model, hardware_name
    from tvm_gnn.measure.sampling import target_from

    _provenance(tmp_path / "hw" / "resnet18", "Another CPU 9000", "skylake")
    argv = ["collect", "--network", "tiny_cnn", "--out", str(tmp_path), "--hardware", "hw"]
    assert run(argv) == 2
    said = _error(capsys)
    assert f"{tmp_path / 'hw'} holds records measured on Another CPU 9000 (skylake)" in said
    assert "pass --other-cpu to add them anyway" in said
    # the folder it suggests is named for this machine, never for the other CPU
    mine = hardware_name(target_from("llvm", 2), None)
    llvm = cpu_identity().get("llvm") or "2"
    hint = mine if llvm in mine else re.sub(r"-(\d+c)$", rf"-{llvm}-\1", mine)
    assert f"(--hardware {hint})" in said
    _provenance(tmp_path / "llvm-intel-xeon-2c" / "resnet18", "Intel Xeon", "icelake-server")
    assert run([*argv[:-1], "llvm-intel-xeon-2c"]) == 2
    assert "xeon" not in _error(capsys).split("--hardware ")[1].lower()
    here = tmp_path / "same"  # a folder of this very CPU, old lines without LLVM's name too
    _provenance(here / "a", cpu_model(), cpu_identity().get("llvm"))
    _provenance(here / "b", cpu_model(), None)
    check_same_cpu(tmp_path, "same", target_from("llvm", 2))  # no error
    args = (
        __import__("tvm_gnn.cli", fromlist=["build_parser"])
        .build_parser()
        .parse_args([*argv, "--other-cpu"])
    )
    assert args.other_cpu  # the flag that lets the first folder be written


@pytest.mark.parametrize(
    "name, says",
    [
        ("x" * 256 + ".pt", "is 259 bytes long; this file system takes names of at most 255"),
        (os.fsdecode(b"model-\xff.pt"), "the name is not valid UTF-8; give a name in UTF-8"),
    ],
    ids=["255-bytes", "not-utf8"],
)
def test_a_name_the_os_refuses_is_said_before_the_training(tmp_path, capsys, name, says):
    assert run(["train", "--out", str(tmp_path / name), "--data", "nowhere"]) == 2
    assert says in _error(capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_pipe_as_a_card_is_refused_not_read(tmp_path):
    pipe = tmp_path / "card"
    os.mkfifo(pipe)
    proc = subprocess.run(
        [TVM_GNN, "dataset-stats", "--data", str(ROOT / "data"), "--card", str(pipe)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "is not a regular file; its sections are read and rewritten" in proc.stderr


def test_a_card_with_a_begin_marker_and_no_end_is_refused_untouched(tmp_path, capsys):
    from tvm_gnn.report import markers

    card = tmp_path / "card.md"
    text = f"# Card\n\n{markers('dataset-stats')[0]}\nold table\n\nThe user's own paragraph.\n"
    card.write_text(text)
    assert run(["dataset-stats", "--data", str(tmp_path / "none"), "--card", str(card)]) == 2
    said = _error(capsys)
    assert "the generated section 'dataset-stats' is not whole (1 begin and 0 end markers" in said
    assert card.read_text() == text


def test_a_closed_standard_output_is_one_line_before_the_work():
    proc = subprocess.run(
        ["bash", "-c", f"{TVM_GNN} dataset-stats --data {ROOT / 'data'} >&-"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "tvm-gnn: error: standard output is closed; give it a file or /dev/null "
        "(`> out.txt`, `> /dev/null`)"
    )


API = """
from tvm.s_tir import Schedule
from tvm.s_tir import meta_schedule as ms
from tvm_gnn import GNNModel
from tvm_gnn.measure import workloads
from tvm_gnn.measure.sampling import target_from

mod = workloads.matmul(16, 16, 16)
args = ms.arg_info.ArgInfo.from_prim_func(mod["main"])
context = ms.TuneContext(mod=mod, target=target_from("llvm", 2), task_name="api")
print(GNNModel().predict(context, [ms.MeasureCandidate(Schedule(mod), args)] * 2))
"""


def test_the_python_api_leaves_nothing_in_tmpdir(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    proc = subprocess.run(
        [sys.executable, "-c", API], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert sorted(os.listdir(temp)) == []  # PyG's templates, torch's compiler cache: gone
    assert (tmp_path / "cache" / "tvm_gnn" / "torchinductor").is_dir()  # reused across runs


def test_a_disk_that_fills_while_records_are_written_stops_collect_keeping_them(tmpfs, llvm_target):
    """TVM's JSON database says nothing when its writes fail; the record that filled the disk
    stops the run, naming where the records before it are."""
    import tvm
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.collect.recording import _commit
    from tvm_gnn.errors import DiskFullError

    from ..conftest import matmul64

    small = tmpfs("4m")
    db = ms.database.JSONDatabase(work_dir=str(small))
    mod = tvm.IRModule({"main": matmul64})
    workload = db.commit_workload(mod)
    cand = ms.MeasureCandidate(
        tvm.s_tir.Schedule(mod), ms.arg_info.ArgInfo.from_prim_func(matmul64)
    )
    ok = ms.runner.RunnerResult(run_secs=[1e-3], error_msg=None)
    assert _commit(db, workload, llvm_target, [cand], [ok]) == [1e-3]
    fill(small)
    with pytest.raises(
        DiskFullError, match=f"every record measured before it filled is kept in {small}"
    ):
        _commit(db, workload, llvm_target, [cand], [ok])
    lines = (small / "database_tuning_record.json").read_bytes().split(b"\n")
    assert json.loads(lines[0])  # the first record is whole


def test_a_disk_that_fills_while_tuning_stops_the_run_counting_what_is_kept(tmpfs):
    from tvm_gnn.errors import DiskFullError
    from tvm_gnn.tune.end_to_end import CurveCallback

    small = tmpfs("4m")
    curve = CurveCallback({0: 1.0}, 8, progress=False)
    curve.records = small / "database_tuning_record.json"
    curve.records.write_text('["w", 1]\n' * 3)
    apply = curve._inst.apply  # the Python side of the callback, as TVM's search calls it
    apply(None, 0, [], [], [])  # room yet
    fill(small)
    with pytest.raises(DiskFullError, match="the 3 records measured before it filled are kept"):
        apply(None, 0, [], [], [])
    assert curve.full is not None  # what tune_network raises once TVM hands the error back
