"""The benchmark scripts' tests, one module a script with logic (``test_<script>.py``)."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# a script imports the modules beside it as it does when run (`python benchmarks/x.py`)
sys.path.insert(0, str(ROOT / "benchmarks"))


def script(name: str):
    """``benchmarks/<name>.py`` as a module (the scripts are not a package: each runs alone)."""
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # where dataclasses and pickle look a module's classes up
    spec.loader.exec_module(mod)
    return mod
