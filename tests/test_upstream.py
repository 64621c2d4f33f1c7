"""The upstream series for TVM v0.19.0 (``patches/v0.19.0``) and the command that applies it.

Under TVM 0.19 the installed ``tvm`` package (the wheel's, with the series applied by
``build.sh``) is copied aside, the series taken back out of the copy and applied again with the
command a user runs, and the series' own upstream-style tests run against the copy: one of them
tunes a task through ``auto_scheduler.GNNModel()`` to completion.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tvm_gnn import upstream
from tvm_gnn.tvm_compat import LEGACY

ROOT = Path(__file__).resolve().parent.parent
SERIES_TESTS = {  # file -> tests it holds
    "tests/python/auto_scheduler/test_auto_scheduler_lowered_tir.py": 3,
    "tests/python/auto_scheduler/test_auto_scheduler_gnn_model.py": 4,
}


def _run(args, env, cwd=None, timeout=600):
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def test_the_series_has_its_two_patches_in_format_patch_form():
    patches = upstream.series()
    assert [p.name[:5] for p in patches] == ["0001-", "0002-"]
    for p in patches:
        head = p.read_text().splitlines()
        assert head[0].startswith("From ") and head[3].startswith("Subject: [PATCH")
    text = "".join(p.read_text() for p in patches)
    for test in SERIES_TESTS:
        assert f"b/{test}" in text


@pytest.mark.skipif(LEGACY, reason="the refusal is seen from a TVM the series does not target")
def test_apply_refuses_a_tvm_it_does_not_match():
    proc = _run(["-m", "tvm_gnn.upstream", "apply"], dict(os.environ))
    assert proc.returncode == 2
    assert proc.stderr.startswith("tvm_gnn.upstream: this series targets TVM v0.19.0")
    assert "nothing changed" in proc.stderr and "Traceback" not in proc.stderr


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A copy of the installed ``tvm`` (under ``root/python``) with the series taken out."""
    import importlib.util

    import tvm

    spec = importlib.util.spec_from_file_location(
        "patched_tvm", ROOT / "benchmarks/upstream/patched_tvm.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    root = tmp_path_factory.mktemp("tvm019")
    installed = Path(tvm.__file__).parent
    bench._copy_package(installed, root / "python" / "tvm")
    llvm = installed.parent / "llvm"  # the wheel's libtvm.so finds libLLVM.so beside it
    if llvm.is_dir():
        (root / "python" / "llvm").symlink_to(llvm)
    for patch in reversed(upstream.series()):
        if upstream.state(root / "python", patch) == "applied":
            proc = subprocess.run(
                ["git", "apply", "-R", "--include=python/tvm/*", str(patch)],
                cwd=root,
                capture_output=True,
                text=True,
            )
            assert proc.returncode == 0, proc.stderr
        assert upstream.state(root / "python", patch) == "applies"
    return root


@pytest.mark.tvm019
@pytest.mark.skipif(not LEGACY, reason="Ansor: TVM 0.19 only (docs/ansor.md)")
def test_the_command_applies_the_series_once(pristine):
    env = {**os.environ, "PYTHONPATH": str(pristine / "python")}
    first = _run(["-m", "tvm_gnn.upstream", "apply"], env)
    assert first.returncode == 0, first.stderr
    assert "0001-AutoScheduler-Expose-the-lowered-TIR" in first.stdout
    assert "applied (tvm/auto_scheduler/feature.py)" in first.stdout
    assert "tvm/auto_scheduler/cost_model/gnn_model.py" in first.stdout
    second = _run(["-m", "tvm_gnn.upstream", "apply"], env)
    assert second.returncode == 0 and "nothing changed: the series is applied" in second.stdout
    status = _run(["-m", "tvm_gnn.upstream", "status"], env)
    assert status.stdout.count(": applied") == 2
    where = _run(["-c", "import tvm; print(tvm.auto_scheduler.GNNModel.__module__)"], env)
    assert where.stdout.strip() == "tvm.auto_scheduler.cost_model.gnn_model"


@pytest.mark.tvm019
@pytest.mark.skipif(not LEGACY, reason="Ansor: TVM 0.19 only (docs/ansor.md)")
def test_the_series_own_tests_pass_on_the_patched_tree(pristine):
    for patch in upstream.series():  # the whole patch, its upstream tests included
        if upstream.state(pristine / "python", patch) == "applies":
            subprocess.run(["git", "apply", "--include=python/tvm/*", str(patch)], cwd=pristine)
        proc = subprocess.run(
            ["git", "apply", "--include=tests/*", str(patch)],
            cwd=pristine,
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
    env = {**os.environ, "PYTHONPATH": str(pristine / "python")}
    tests = [str(pristine / t) for t in SERIES_TESTS]
    proc = _run(
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(pristine), *tests],
        env,
        cwd=pristine,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert f"{sum(SERIES_TESTS.values())} passed" in proc.stdout, proc.stdout[-2000:]
