"""Shared fixtures of the MetaSchedule line (TVM 0.26, 0.27): small real programs and real
MetaSchedule candidates. ``conftest.py`` makes them every test's."""

from pathlib import Path

import pytest
from tvm import te
from tvm.script import tirx as T

from tvm_gnn.collect import CollectConfig, collect_network
from tvm_gnn.dataset.workloads import SCRIPT_FILE
from tvm_gnn.measure.runner import MeasureConfig

FAST_MEASURE = MeasureConfig(number=1, repeat=1, min_repeat_ms=1)


@T.prim_func(s_tir=True)
def add_one(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
    for i in range(8):
        b[i] = a[i] + T.float32(1)


@T.prim_func(s_tir=True)
def matmul4(
    a: T.Buffer((4, 4), "float32"), b: T.Buffer((4, 4), "float32"), c: T.Buffer((4, 4), "float32")
):
    for i, j, k in T.grid(4, 4, 4):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                c[vi, vj] = T.float32(0)
            c[vi, vj] = c[vi, vj] + a[vi, vk] * b[vk, vj]


@T.prim_func(s_tir=True)
def matmul64(
    a: T.Buffer((64, 64), "float32"),
    b: T.Buffer((64, 64), "float32"),
    c: T.Buffer((64, 64), "float32"),
):
    for i, j, k in T.grid(64, 64, 64):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                c[vi, vj] = T.float32(0)
            c[vi, vj] = c[vi, vj] + a[vi, vk] * b[vk, vj]


@pytest.fixture(scope="session")
def llvm_target():
    from tvm_gnn.measure.sampling import target_from

    return target_from("llvm", num_cores=2)


def tiny_tune(model, tmp_path, target, trials=32):
    """A real MetaSchedule run of :func:`matmul64` guided by ``model``, 16 trials a round:
    ``(database, progress)`` of :func:`tvm_gnn.tune.workload.tune_tir`."""
    from tvm_gnn.tune.workload import tune_tir

    return tune_tir(
        matmul64,
        target,
        str(tmp_path),
        max_trials=trials,
        num_trials_per_iter=16,
        cost_model=model,
        progress=False,
    )


def huge_candidate():
    """A candidate whose graph is over a ``FeaturizerConfig(max_nodes=1000)``'s limit (a sum of
    299 products): what a GNN cannot featurize under that featurizer."""
    import tvm
    from tvm.s_tir import meta_schedule as ms

    a = te.placeholder((8,), name="A")
    b = te.compute((8,), lambda i: sum(a[i] * float(k) for k in range(1, 300)), name="B")
    func = te.create_prim_func([a, b])
    mod = tvm.IRModule({"main": func})
    return ms.MeasureCandidate(tvm.s_tir.Schedule(mod), ms.arg_info.ArgInfo.from_prim_func(func))


@pytest.fixture(scope="session")
def conv_candidates(llvm_target):
    """48 post-processed random candidates of ResNet-18's 3x3 conv2d, with their TuneContext."""
    from tvm_gnn.measure import workloads
    from tvm_gnn.measure.sampling import sample_candidates

    return sample_candidates(workloads.get("resnet18_conv2d"), llvm_target, 48, seed=0)


def _tiny_task():
    import tvm
    from tvm import topi

    a = te.placeholder((32, 32), name="A")
    b = te.placeholder((32, 32), name="B")
    return ("matmul32", tvm.IRModule({"main": te.create_prim_func([a, b, topi.matmul(a, b)])}), 1)


def _db_folder(root: Path, network: str) -> Path:
    (folder,) = root.glob(f"*/{network}")
    return folder


@pytest.fixture(scope="session")
def kept_builder():
    """One builder for the tests that collect: its build workers start once (seconds each), as
    ``tvm-gnn collect`` keeps one for all its networks."""
    from tvm_gnn.measure.builder import make_builder

    builder = make_builder(timeout_sec=FAST_MEASURE.build_timeout_sec)
    yield builder
    builder.close()


def collect_tasks(network, root, target, cfg, builder, tasks, **kwargs) -> dict:
    """``collect_network`` of ``tasks`` as the tests run it: fast timing, no progress bars."""
    return collect_network(
        network, root, target, cfg, FAST_MEASURE, tasks=tasks, progress=False, builder=builder,
        **kwargs,
    )  # fmt: skip


@pytest.fixture(scope="session")
def small_db(tmp_path_factory, llvm_target, kept_builder):
    root = tmp_path_factory.mktemp("collect")
    cfg = CollectConfig(trials_per_task=6, uniform_fraction=0.5, batch_size=3, population=64)
    summary = collect_tasks("unit", root, llvm_target, cfg, kept_builder, [_tiny_task()])
    assert summary["records"] == 6 and summary["failed"] == 0
    return _db_folder(root, "unit")


@pytest.fixture(scope="session")
def packed(small_db, tmp_path_factory):
    """``small_db`` packed (``tvm-gnn pack``): one network folder of .gz files."""
    from tvm_gnn import dataset

    out = tmp_path_factory.mktemp("packed")
    written = dataset.pack(small_db.parent.parent, out)
    assert len(written) == 2 and all(w.endswith(".gz") for w in written)
    return out


def workload_hashes(folder: Path) -> list[str]:
    import gzip
    import json

    return [json.loads(ln)[0] for ln in gzip.open(folder / "database_workload.json.gz", "rt")]


def write_subset(src: Path, dst: Path, workloads: int, per_workload: int, first=()) -> None:
    """A copy of a committed network folder reduced to ``workloads`` workloads with at least
    ``per_workload`` records (those whose hash is in ``first`` first), ``per_workload`` records
    each, workload lines renumbered."""
    import gzip
    import json

    wl_lines = gzip.open(src / "database_workload.json.gz", "rt").read().splitlines()
    recs: dict[int, list] = {}
    for line in gzip.open(src / "database_tuning_record.json.gz", "rt"):
        obj = json.loads(line)
        recs.setdefault(obj[0], []).append(obj)
    hashes = [json.loads(ln)[0] for ln in wl_lines]
    ok = sorted(
        (w for w, rs in recs.items() if len(rs) >= per_workload),
        key=lambda w: (hashes[w] not in first, w),
    )
    chosen = ok[:workloads]
    dst.mkdir(parents=True, exist_ok=True)
    (dst / "database_workload.json").write_text("".join(wl_lines[w] + "\n" for w in chosen))
    with open(dst / "database_tuning_record.json", "w") as f:
        for new, w in enumerate(chosen):
            for obj in recs[w][:per_workload]:
                f.write(json.dumps([new] + obj[1:]) + "\n")
    for meta in ("tasks.json", "provenance.jsonl"):
        (dst / meta).write_text((src / meta).read_text())
    (dst / SCRIPT_FILE).write_bytes((src / SCRIPT_FILE).read_bytes())  # keyed by hash: all fit


@pytest.fixture(scope="session")
def small_dataset(tmp_path_factory):
    """Two networks from the committed dataset, a few workloads each: resnet50 to train on,
    resnet18 held out (they share workloads, so the shared/unshared split is exercised too)."""
    root = tmp_path_factory.mktemp("dataset")
    data = Path(__file__).resolve().parent.parent / "data" / "llvm-amd-epyc-2c"
    shared = set(workload_hashes(data / "resnet50")) & set(workload_hashes(data / "resnet18"))
    two = set(sorted(shared)[:2])
    write_subset(data / "resnet50", root / "cpu" / "resnet50", 6, 16, first=two)
    write_subset(data / "resnet18", root / "cpu" / "resnet18", 5, 16, first=two)
    return root


def train_cli(root, out, *extra):
    from tvm_gnn.cli import main

    return main(
        [
            "train",
            "--data",
            str(root),
            "--held-out",
            "resnet18",
            "--epochs",
            "2",
            "--out",
            str(out),
            "--cache-dir",
            str(root / "cache"),
            "-q",
            *extra,
        ]
    )


@pytest.fixture(scope="session")
def trained(small_dataset, tmp_path_factory):
    out = tmp_path_factory.mktemp("models")
    paths = {
        "gnn": out / "gnn.pt",
        "gnn-learned-emb": out / "learned.pt",
        "gnn-no-topk": out / "notopk.pt",
    }
    assert train_cli(small_dataset, paths["gnn"], "--seed", "3") == 0
    assert train_cli(small_dataset, paths["gnn-learned-emb"], "--embedding", "learned") == 0
    # the reuse columns ride along with an ablation: eval then reads a model that uses them
    assert train_cli(small_dataset, paths["gnn-no-topk"], "--no-topk", "--reuse-features") == 0
    return paths


@pytest.fixture
def tmpfs(tmp_path):
    """``mount(size)``: a tmpfs of ``size`` (e.g. ``"1m"``) mounted in ``tmp_path``, unmounted
    after the test; skipped, with the reason, where this process may not mount one."""
    import subprocess

    mounted = []

    def mount(size: str = "1m") -> Path:
        where = tmp_path / f"tmpfs{len(mounted)}"
        where.mkdir()
        proc = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
            capture_output=True,
            text=True,
        )
        if proc.returncode:
            pytest.skip(f"cannot mount a tmpfs here ({proc.stderr.strip() or 'mount failed'})")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(folder: Path) -> None:
    """Fill the file system of ``folder`` to its last byte (a file ``fill`` in it)."""
    import os

    fd = os.open(folder / "fill", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (65536, 4096, 1):  # big writes, then what they left, byte by byte
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
