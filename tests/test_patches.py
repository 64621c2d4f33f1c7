"""The upstream patch series applies to the pinned TVM and its own tests pass against it.

The installed ``tvm`` package (byte-identical to upstream's ``python/tvm`` at the pinned commit)
is copied to a temporary ``python/tvm``, the series is applied there with ``git apply`` (any
rejected hunk fails), and the upstream-style test file runs in a subprocess that imports the
patched copy. The installed environment is not touched.
"""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import tvm

ROOT = Path(__file__).resolve().parent.parent
PATCHES = sorted((ROOT / "patches").glob("*.patch"))
UPSTREAM_TESTS = {  # file -> tests it holds
    "tests/python/s_tir/meta_schedule/test_meta_schedule_gnn_model.py": 5,
    "tests/python/s_tir/meta_schedule/test_meta_schedule_mlp_model.py": 2,
}


def _copy_package(src: Path, dst: Path) -> None:
    """Copy Python sources; link everything else (the shared libraries are ~300 MB)."""

    def copy(s, d):
        if s.endswith(".py"):
            return shutil.copy2(s, d)
        os.symlink(os.path.abspath(s), d)
        return d

    shutil.copytree(src, dst, copy_function=copy, ignore=shutil.ignore_patterns("__pycache__"))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_series_applies_and_upstream_tests_pass(tmp_path):
    assert len(PATCHES) == 4
    installed = Path(tvm.__file__).parent
    watched = installed / "s_tir/meta_schedule/cost_model/cost_model.py"
    before = _digest(watched)
    _copy_package(installed, tmp_path / "python" / "tvm")
    for patch in PATCHES:
        proc = subprocess.run(
            ["git", "apply", "--verbose", str(patch)], cwd=tmp_path, capture_output=True, text=True
        )
        assert proc.returncode == 0, f"{patch.name} does not apply:\n{proc.stderr}"
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
    assert _digest(watched) == before  # the installed TVM is untouched
