# Licensed under the Apache License, Version 2.0.
"""The package's shape: the TVM-free core stays TVM-free, and no file or function of the package or
of ``benchmarks/`` grows past what a reader takes in at once (issue: a layered package). The layer
contract itself is import-linter's (``pyproject.toml``), run by ``./build.sh test``."""

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import tvm_gnn

PACKAGE = Path(tvm_gnn.__file__).parent
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
MAX_FILE_LINES = 350
MAX_FUNCTION_LINES = 80
#: the Cython hot loop: one long function on purpose (a call per node costs ~10% there)
LONG_ALLOWED = {"featurize/_walk.py"}


def _nn_modules() -> list[str]:
    import tvm_gnn.nn

    return ["tvm_gnn.nn"] + [
        f"tvm_gnn.nn.{m.name}" for m in pkgutil.iter_modules(tvm_gnn.nn.__path__)
    ]


def test_the_core_loads_neither_tvm_nor_tvm_ffi():
    modules = _nn_modules()
    assert {"tvm_gnn.nn.model", "tvm_gnn.nn.training", "tvm_gnn.nn.checkpoint"} <= set(modules)
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "from tvm_gnn.nn import GNN, default_gnn, fit\n"
        "default_gnn()\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('tvm', 'tvm_ffi'))\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]


def _sources():
    package = sorted(p for p in PACKAGE.rglob("*.py") if "resources" not in p.parts)
    return package + sorted(BENCHMARKS.glob("**/*.py"))


def _rel(path: Path) -> str:
    """A package file relative to the package; a benchmark as ``benchmarks/FOLDER/NAME.py``."""
    if path.is_relative_to(PACKAGE):
        return str(path.relative_to(PACKAGE))
    return str(path.relative_to(BENCHMARKS.parent))


def test_no_file_is_longer_than_a_reader_takes_in():
    long = {
        _rel(p): n for p in _sources() if (n := len(p.read_text().splitlines())) > MAX_FILE_LINES
    }
    assert set(long) <= LONG_ALLOWED, long


def _functions(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


@pytest.mark.parametrize("path", _sources(), ids=_rel)
def test_no_function_is_longer_than_a_screen(path):
    rel = _rel(path)
    long = []
    for fn in _functions(ast.parse(path.read_text())):
        first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
        n = fn.end_lineno - first + 1
        # the walk, and the parser of one command (or benchmark) each: a list of its options
        parser = fn.name.endswith("_parser") or fn.name in ("parser", "parse")
        exempt = rel in LONG_ALLOWED or (rel.startswith(("cli/", "benchmarks/")) and parser)
        if n > MAX_FUNCTION_LINES and not exempt:
            long.append(f"{fn.name}: {n} lines")
    assert not long, long


def test_the_tests_mirror_the_package():
    tests = Path(__file__).parent
    folders = {p.name for p in tests.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    subpackages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    stages = {p.stem for p in PACKAGE.glob("*.py")}  # a one-module stage (train) may have one too
    mirrored = subpackages | stages | {"benchmarks"}  # tests/benchmarks: the scripts'
    assert folders and folders <= mirrored, folders - mirrored


#: benchmark scripts with no test module of their own, and why: each only times or profiles
#: TVM or the GNN (its numbers are the benchmark's result), or runs what the tests of the
#: package it measures already cover
UNTESTED_SCRIPTS = {
    "ansor_predict": "times the GNN's and XGBModel's predict on Ansor's states (TVM 0.19)",
    "featurize_jobs": "times the featurizer's worker processes",
    "featurize_predict": "times featurization and predict",
    "patched_tvm": "a helper: TVM with the patch series applied, for intrinsics_import",
    "walk_overhead": "times the walk against another revision's",
}


def test_the_benchmark_scripts_have_their_test_modules():
    """One test module a benchmark script with logic, in the folder that mirrors the script's
    (``tests/benchmarks/FOLDER/test_NAME.py``); the modules the scripts import are tested
    through them or by their own."""
    tests = Path(__file__).parent / "benchmarks"
    scripts = {
        str(p.relative_to(BENCHMARKS).with_suffix(""))
        for p in BENCHMARKS.glob("*/*.py")
        if "def main(" in p.read_text()
    }
    tested = {
        str(p.relative_to(tests).with_name(p.stem.removeprefix("test_")))
        for p in tests.glob("*/test_*.py")
    }
    untested = {s for s in scripts - tested if Path(s).name in UNTESTED_SCRIPTS}
    assert scripts - tested == untested, scripts - tested - untested
    assert {Path(s).name for s in untested} == set(UNTESTED_SCRIPTS)
    gone = {t for t in tested if not (BENCHMARKS / f"{t}.py").is_file()}
    assert not gone, gone  # no test of a script that left or moved


def test_benchmarks_are_grouped_by_question():
    """``benchmarks/`` holds folders, its README and nothing else of code: each folder of scripts
    has a README that names every script in it, and the top README names every folder."""
    assert not list(BENCHMARKS.glob("*.py")), "a loose script at the root of benchmarks/"
    top = (BENCHMARKS / "README.md").read_text()
    folders = sorted({p.parent for p in BENCHMARKS.glob("*/*.py")})
    assert len(folders) >= 4
    for folder in folders:
        readme = (folder / "README.md").read_text()
        assert f"`{folder.name}/`" in top, folder.name
        for script in folder.glob("*.py"):
            assert f"`{script.name}`" in readme, f"{folder.name}/README.md: {script.name}"
