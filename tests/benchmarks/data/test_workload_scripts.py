"""benchmarks/data/workload_scripts.py: each network folder's workloads as TVMScript, written
once and left alone while they cover every workload."""

import gzip
import json
import shutil
from pathlib import Path

from tvm_gnn.dataset.workloads import SCRIPT_FILE, Workloads

from .. import script

DATA = Path(__file__).resolve().parents[3] / "data" / "llvm-amd-epyc-2c"


def test_the_scripts_cover_each_workload_and_are_kept_while_they_do(tmp_path, capsys):
    bench = script("workload_scripts")
    folder = tmp_path / "hw" / "lstm"
    shutil.copytree(DATA / "lstm", folder)
    (folder / SCRIPT_FILE).unlink()
    assert bench.main([str(tmp_path)]) == 0
    assert "1 of 1 folders written" in capsys.readouterr().out
    scripts = json.loads(gzip.decompress((folder / SCRIPT_FILE).read_bytes()))
    lines = gzip.decompress((folder / "database_workload.json.gz").read_bytes()).decode()
    hashes = [str(json.loads(line)[0]) for line in lines.splitlines()]
    assert sorted(scripts) == sorted(hashes)
    assert scripts == Workloads(DATA / "lstm", []).scripts()  # what is committed, byte for byte
    stamp = (folder / SCRIPT_FILE).stat().st_mtime_ns
    assert bench.main([str(tmp_path)]) == 0  # covered: left as it is
    assert "0 of 1 folders written" in capsys.readouterr().out
    assert (folder / SCRIPT_FILE).stat().st_mtime_ns == stamp
