# Licensed under the Apache License, Version 2.0.
"""The tasks ``tune_tasks.py`` tunes: the held-out networks' heaviest distinct workloads (task
weight x best latency measured in the dataset), with quotas by operator kind, or the development
networks' (``--set dev``)."""

from __future__ import annotations

from pathlib import Path

#: kinds every selection holds at least this many of (when the held-out networks have them)
QUOTAS = {"depthwise conv2d": 2, "dense": 1, "pooling/elementwise": 1}


#: the development networks' quotas (a kind matches by its first word, so "conv2d" is any
#: conv2d but the depthwise ones): their heaviest tasks are all dense (ViT, ConvNeXt), so
#: convolutions are asked for, as the held-out selection is mostly convolutions
DEV_QUOTAS = {"conv2d": 4, "depthwise conv2d": 3, "pooling/elementwise": 1}


#: the development networks, fixed on 2026-11-26 as the networks collected on the AMD EPYC that
#: the shipped weights neither train on nor hold out
DEV_NETWORKS = (
    "convnext_tiny",
    "deeplabv3_mobilenet",
    "lstm",
    "mlp_mixer",
    "mobilenet_v3_large",
    "r3d_18",
    "regnet_y_800mf",
    "vit_b_16",
)


# -- tasks --------------------------------------------------------------------------------------
def kind_of(name: str, shapes: list[tuple]) -> str:
    """What operator a task is, from its name and its parameters' shapes."""
    if "conv3d" in name:
        return "conv3d"
    if "conv2d" in name:
        weight = shapes[1] if len(shapes) > 1 else ()
        if len(weight) == 4 and weight[1] == 1 and weight[0] > 1:
            return "depthwise conv2d"
        return f"conv2d {weight[2]}x{weight[3]}" if len(weight) == 4 else "conv2d"
    if "matmul" in name or "dense" in name:
        return "dense"
    return "pooling/elementwise"


def _shapes(mod) -> list[tuple]:
    func = next(iter(mod.functions.values()))
    return [tuple(int(d) for d in p.shape) for p in func.params]


def held_out_workloads(data: Path, hardware: str, networks=None) -> list[dict]:
    """Every distinct workload of ``networks`` (default: the held-out ones), heaviest first: its
    network, task name, kind, parameter shapes, weight x best measured latency, whether
    collection exhausted its design space (``exhausted``: fewer distinct programs exist than it
    asked for), and its IRModule (``mod``)."""

    from tvm_gnn import dataset
    from tvm_gnn.dataset import dbfile
    from tvm_gnn.dataset.layout import open_db_folder
    from tvm_gnn.dataset.splits import HELD_OUT
    from tvm_gnn.dataset.workloads import Workloads

    seen: dict[str, dict] = {}
    for net in networks or HELD_OUT:
        folder = data / hardware / net
        got, scan = dataset.samples(folder)
        best: dict[str, tuple[float, object]] = {}
        for sample in got:
            cost = sample.weight * sample.latency
            if sample.shash not in best or cost < best[sample.shash][0]:
                best[sample.shash] = (cost, sample)
        exhausted = dataset.read_exhausted(folder)
        plain = open_db_folder(folder)
        workloads = Workloads(folder, (plain / dbfile.WORKLOAD_FILE).read_text().splitlines())
        for i, shash in enumerate(scan.workload_hashes):
            if shash in seen or shash not in best:
                continue
            workload = workloads[i]
            cost, sample = best[shash]
            shapes = _shapes(workload.mod)
            seen[shash] = {
                "network": net,
                "task": sample.task,
                "shash": shash,
                "kind": kind_of(sample.task, shapes),
                "shapes": shapes,
                "cost": cost,
                "exhausted": shash in exhausted,
                "mod": workload.mod,
            }
    return sorted(seen.values(), key=lambda w: -w["cost"])


def dev_networks(data: Path, hardware: str, trained_on) -> list[str]:
    """The development networks: those of :data:`DEV_NETWORKS` collected on ``hardware`` and
    neither among the weights' training networks (``trained_on``) nor held out. Variants are
    compared on their tasks. A network collected later does not join, so runs made in different
    sessions compare the same tasks."""
    from tvm_gnn.dataset.layout import network_folders
    from tvm_gnn.dataset.splits import HELD_OUT

    nets = {net for hw, net, _ in network_folders(data) if hw == hardware}
    dev = sorted(nets.intersection(DEV_NETWORKS) - set(trained_on) - set(HELD_OUT))
    if not dev:
        raise SystemExit(f"no development network under {data}/{hardware}: every one is trained on")
    return dev


def select_tasks(workloads: list[dict], count: int = 12, quotas=None) -> list[dict]:
    """The ``count`` heaviest workloads, after the heaviest of each kind in ``quotas``
    (default :data:`QUOTAS`; a kind there matches every kind that starts with it).

    Workloads whose design space collection exhausted are left out: an elementwise ReLU or clip
    has a handful of schedules at most, so every model finds its best in the first round and the
    task says nothing about ranking."""
    workloads = [w for w in workloads if not w.get("exhausted")]
    chosen: list[dict] = []
    for kind, n in (QUOTAS if quotas is None else quotas).items():
        chosen += [w for w in workloads if w["kind"].split()[0] == kind.split()[0]][:n]
    for w in workloads:
        if len(chosen) >= count:
            break
        if w not in chosen:
            chosen.append(w)
    chosen.sort(key=lambda w: -w["cost"])
    for w in chosen:
        w["id"] = f"{w['network']}-{w['task']}"
    return chosen
