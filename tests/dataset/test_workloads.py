"""The archive's workloads rebuild under any supported TVM: from their JSON where this TVM reads
it, from the folder's TVMScript otherwise (TVM 0.27 reading 0.26's records), to the same
programs."""

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import tvm
import tvm_ffi
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.dataset import records
from tvm_gnn.dataset.dbfile import WORKLOAD_FILE
from tvm_gnn.dataset.layout import network_folders, open_db_folder
from tvm_gnn.dataset.workloads import SCRIPT_FILE, Workloads, _from_script
from tvm_gnn.errors import DataError
from tvm_gnn.featurize import graph

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "data" / "llvm-amd-epyc-2c" / "lstm"


def _lines(folder):
    return (open_db_folder(folder) / WORKLOAD_FILE).read_text().splitlines()


def test_every_archived_folder_keeps_a_script_of_each_workload():
    folders = [f for root in ("data", "testsets") for _, _, f in network_folders(ROOT / root)]
    assert len(folders) > 60
    for folder in folders:
        scripts = json.loads(gzip.decompress((folder / SCRIPT_FILE).read_bytes()))
        assert {str(json.loads(line)[0]) for line in _lines(folder)} <= set(scripts), folder


def test_the_scripts_rebuild_the_programs_the_records_were_measured_on():
    """Each record replayed on its workload's script gives the program (and graph) it gives on
    the workload TVM 0.26 wrote; under 0.27 the JSON is unreadable and only the script is used."""
    lines = _lines(FOLDER)
    scripts = Workloads(FOLDER, lines).scripts()
    by_json = None
    if tvm.__version__.startswith("0.26"):
        by_json = [ms.database.Workload.from_json(json.loads(line)) for line in lines]
        for wl, line in zip(by_json, lines):
            mod = _from_script(scripts[str(json.loads(line)[0])])
            assert tvm_ffi.structural_equal(mod, wl.mod)
    got = list(records.tuning_records(FOLDER))
    assert got and not [r for _, r in got if isinstance(r, Exception)]
    for s, record in got[:40]:
        cand = record.as_measure_candidate()
        if by_json is not None:
            raw = [
                r
                for r in records.dbfile.read_records(open_db_folder(FOLDER)).records
                if r.line == s.line
            ][0]
            again = ms.database.TuningRecord.from_json(raw.raw, by_json[raw.workload])
            want = graph.walk_arrays(graph.lower(again.as_measure_candidate().sch.mod), 10**5)
            for a, b in zip(graph.walk_arrays(graph.lower(cand.sch.mod), 10**5), want):
                np.testing.assert_array_equal(a, b)


def test_a_workload_without_a_script_raises_tvms_own_error(tmp_path):
    """No script beside it: the line fails as TVM's reader fails, and each line on its own."""
    line = json.dumps(["123", "bm90IGEgbW9kdWxl"])  # base64 of "not a module"
    with pytest.raises(Exception) as err:  # noqa: PT011 - TVM's own error type
        Workloads(tmp_path, [line])[0]
    assert "script" not in str(err.value).lower()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (lambda good: good[: len(good) // 2], "cut or corrupt (Compressed file ended"),
        (lambda good: b"garbage", "cut or corrupt (Not a gzipped file"),
        (lambda good: gzip.compress(b"[1, 2]"), "not a map of workload hashes to TVMScript"),
    ],
)
def test_a_cut_or_foreign_script_file_is_one_error_naming_it_not_a_warning_a_line(
    tmp_path, content, says
):
    """Where the workloads' JSON is unreadable (0.27 reading 0.26's) and the scripts are the only
    way, a bad script file stops the folder with one line naming it, not a skip per record."""
    folder = tmp_path / "lstm"
    shutil.copytree(FOLDER, folder)
    script = folder / SCRIPT_FILE
    script.write_bytes(content(script.read_bytes()))
    wl = folder / (WORKLOAD_FILE + ".gz")
    lines = gzip.decompress(wl.read_bytes()).decode().splitlines()
    # each workload's JSON made unreadable by this TVM, as 0.26's is to 0.27
    lines = [json.dumps([json.loads(ln)[0], "bm90IGEgbW9kdWxl"]) for ln in lines]
    wl.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    with pytest.raises(DataError) as err:
        list(records.distinct_programs(folder))
    message = str(err.value)
    assert message.startswith(f"{script}: {says}") and "\n" not in message
    assert f"the {len(lines)} workloads of its folder only through it" in message
