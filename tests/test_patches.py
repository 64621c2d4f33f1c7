"""The upstream patch series applies to the pinned TVM and its own tests pass against it.

The installed ``tvm`` package (byte-identical to upstream's ``python/tvm`` at the pinned commit)
is copied to a temporary ``python/tvm`` and the series applied there with ``git apply`` (any
rejected hunk fails: ``benchmarks/upstream/patched_tvm.py``), and the series' upstream-style test
files run
in a subprocess that imports the patched copy. The installed environment is not touched.
"""

import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tvm

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "patched_tvm", ROOT / "benchmarks/upstream/patched_tvm.py"
)
BENCH = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(BENCH)
PATCHES = BENCH.PATCHES
UPSTREAM_TESTS = {  # file -> tests it holds
    "tests/python/s_tir/meta_schedule/test_meta_schedule_gnn_model.py": 5,
    "tests/python/s_tir/meta_schedule/test_meta_schedule_mlp_model.py": 2,
    "tests/python/tvmscript/test_tvmscript_parser_caller_stack.py": 4,
    "tests/python/relax/test_pipeline_backend_phases.py": 18,
}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_series_applies_and_upstream_tests_pass(tmp_path):
    assert len(PATCHES) == 6
    installed = Path(tvm.__file__).parent
    watched = [
        installed / "s_tir/meta_schedule/cost_model/cost_model.py",
        installed / "script/parser/core/utils.py",
    ]
    before = [_digest(w) for w in watched]
    try:
        BENCH.patched_copy(tmp_path, PATCHES)
    except RuntimeError as e:
        pytest.fail(str(e))
    for test in UPSTREAM_TESTS:
        assert (tmp_path / test).is_file()
    assert (tmp_path / "python/tvm/s_tir/meta_schedule/cost_model/gnn_model.py").is_file()
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "python")}
    where = subprocess.run(
        [sys.executable, "-c", "import tvm; print(tvm.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(tmp_path)), where
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            *(str(tmp_path / t) for t in UPSTREAM_TESTS),
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert f"{sum(UPSTREAM_TESTS.values())} passed" in proc.stdout, proc.stdout[-2000:]
    assert [_digest(w) for w in watched] == before  # the installed TVM is untouched
