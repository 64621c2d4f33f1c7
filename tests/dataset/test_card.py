"""The dataset card: its summary lines and its figure."""

from tvm_gnn import dataset as data


def test_the_summary_counts_networks_families_and_the_tasks_collection_has_not_reached(
    small_dataset, packed, tmp_path
):
    import shutil

    root = tmp_path / "data"
    shutil.copytree(small_dataset, root)
    (unit,) = packed.glob("*/unit")
    shutil.copytree(unit, root / "cpu" / "synthetic_matmul")  # an operator family's folder
    st = data.stats(root)
    by = {n["network"]: n for n in st["networks"]}
    # the fixture keeps 6 of resnet50's 39 workloads and 5 of resnet18's 24, with every task
    assert [(by[n]["tasks"], by[n]["tasks_unmeasured"]) for n in ("resnet50", "resnet18")] == [
        (39, 33),
        (24, 19),
    ]
    assert by["synthetic_matmul"]["tasks_unmeasured"] == 0
    cpu = st["per_hardware"]["cpu"]
    assert (cpu["networks"], cpu["synthetic"]) == (2, 1)
    line = data.summary_markdown(st)
    assert line.startswith(
        f"**cpu: {cpu['valid']:,} valid records over {cpu['workloads']:,} distinct workloads, "
        "from 2 networks and 1 synthetic operator family**; measured in part: "
    )
    assert "resnet50 (6 of its 39 tasks)" in line and "resnet18 (5 of its 24 tasks)" in line
    assert "synthetic_matmul (" not in line
    rate = st["collection"]["cpu"]
    assert line.endswith(f"collected at {rate['seconds'] / rate['records']:.2f} s a record.")
    only = data.summary_markdown(data.stats(packed))  # one finished folder, one hardware line
    assert "from 1 network and 0 synthetic operator families**; every task measured" in only


def test_the_figure_draws_each_networks_workloads_and_latency_range(small_dataset):
    import matplotlib.pyplot as plt

    st = data.stats(small_dataset, held_out=["resnet18"])
    fig = data.stats_figure(st)
    workloads, latency = fig.axes
    by = {n["network"]: n for n in st["networks"]}
    labels = [t.get_text() for t in workloads.get_yticklabels()]
    assert sorted(labels, key=lambda n: by[n]["workloads_measured"]) == labels  # fewest first
    only, shared = workloads.containers  # one stacked bar per network and kind
    assert [b.get_width() for b in only] == [by[n]["only_here"] for n in labels]
    assert [b.get_width() for b in shared] == [
        by[n]["workloads_measured"] - by[n]["only_here"] for n in labels
    ]
    colours = {n: b.get_facecolor() for n, b in zip(labels, only)}
    assert colours["resnet18"] != colours["resnet50"]  # the held-out network stands apart
    ranges = [tuple(line.get_xdata()) for line in latency.get_lines()]
    assert ranges == [(by[n]["min_ms"], by[n]["max_ms"]) for n in labels]
    assert latency.get_xscale() == "log"
    plt.close(fig)
