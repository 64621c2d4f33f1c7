"""``python -m build`` makes a wheel that carries the shipped weights, the FastText vectors and the
compiled walk, and that installs beside a user's own TVM, torch, PyG and xgboost: ``pip install
--no-deps`` changes none of them, ``pip check`` finds the wheel's ranges met, and it scores."""

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PREDICT = """
import sys
import numpy as np
import tvm_gnn
import tvm_gnn.featurize._walk as walk
from tvm.s_tir import Schedule
from tvm.s_tir import meta_schedule as ms
from tvm_gnn import GNNModel
from tvm_gnn.measure import workloads
from tvm_gnn.measure.sampling import target_from

assert tvm_gnn.__file__.startswith(sys.argv[1]), tvm_gnn.__file__  # the wheel's, not the checkout's
assert walk.__file__.endswith(".so"), walk.__file__
mod = workloads.matmul(16, 16, 16)
args = ms.arg_info.ArgInfo.from_prim_func(mod["main"])
split = Schedule(mod)
i, _, _ = split.get_loops(split.get_sblock("T_matmul"))
split.split(i, [4, 4])
candidates = [ms.MeasureCandidate(s, args) for s in (Schedule(mod), split)]
context = ms.TuneContext(mod=mod, target=target_from("llvm", 2), task_name="wheel")
scores = GNNModel().predict(context, candidates)  # the shipped weights
assert scores.shape == (2,) and np.isfinite(scores).all(), scores
print("scores", scores)
"""


def test_the_wheel_installs_into_a_fresh_environment_and_predicts(tmp_path):
    src = tmp_path / "src"  # the wheel is built from a copy: the checkout gets no build/ folder
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    junk = shutil.ignore_patterns("__pycache__", "*.so", "*.c", "*.egg-info")
    shutil.copytree(ROOT / "python", src / "python", ignore=junk)
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)],
        cwd=src,
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("tvm_gnn-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "tvm_gnn/resources/gnn-llvm-amd-epyc-2c.pt" in names
    assert "tvm_gnn/resources/node_type_vectors.txt" in names
    assert any(n.startswith("tvm_gnn/featurize/_walk.") and n.endswith(".so") for n in names)

    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(env), "platbase": str(env)}))
    # the dependencies (torch, TVM, PyG: gigabytes) come from this environment, by path only:
    # its own .pth files, the checkout's editable install among them, are not read from there
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    before = _installed(env)
    before.pop("tvm-gnn", None)  # the checkout's editable install, seen through the path
    assert {"apache-tvm", "torch", "torch-geometric", "xgboost-cpu"} <= before.keys()
    _pip(env, "install", "--quiet", "--no-deps", "--no-index", str(wheel))
    after = _installed(env)
    assert after.pop("tvm-gnn") == "0.1.0"
    assert after == before  # nothing the user had changed version
    check = _pip(env, "check")
    assert check.returncode == 0, check.stdout + check.stderr  # the wheel's ranges hold
    help_ = subprocess.run(
        [str(env / "bin" / "tvm-gnn"), "--help"], capture_output=True, text=True, check=True
    )
    assert "train" in help_.stdout and "tune" in help_.stdout
    proc = subprocess.run(
        [str(env / "bin" / "python"), "-c", PREDICT, str(site)], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "scores" in proc.stdout, proc.stderr[-3000:]


def _pip(env: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"),
         "--disable-pip-version-check", *args],
        capture_output=True, text=True,
    )  # fmt: skip


def _installed(env: Path) -> dict[str, str]:
    """``{distribution: version}`` of what ``env`` sees (its own and, by path, the user's)."""
    import json

    listed = _pip(env, "list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    return {p["name"].lower(): p["version"] for p in json.loads(listed.stdout)}
