# Licensed under the Apache License, Version 2.0.
"""The numbers of ``tune_tasks.py``'s report, from its finished runs: best latency at each budget,
the geometric mean over tasks of the ratios against XGBModel with a bootstrap interval (tasks
resampled, and seeds within each task), the trials to reach XGBModel's best, the cost model's
share of wall-clock, and the learning curves."""

from __future__ import annotations

import numpy as np

BOOTSTRAP = 2000


#: candidates measured per search round
PER_ROUND = 16
MODELS = (
    "gnn",
    "xgb",
    "random",
    "gnn+xgb",
    "gnn-long",
    "gnn-head",
    "gnn-refit",
    "gnn-lambda32",
    "gnn+native",
    "gnn+native-all",
    "gnn-explore-0.5",
    "gnn-explore-1",
    "gnn-calibrated",
    "gnn-novelty",
    "gnn-adaptive",
    "gnn-gp",
    "gnn-novelty-0.5",
    "gnn-novelty-2",
    "gnn-eps-0.15",
    "gnn-eps-0.3",
    "gnn-eps-0.5",
    "gnn-diverse",
    "xgb-pretrained",
)
#: the models tuned and reported unless ``--models`` says otherwise. Opt-in: ``gnn+xgb``, the GNN
#: blended with an XGBModel that learns during the search; ``gnn-long``, the GNN whose online
#: update runs :data:`LONG_EPOCHS` epochs instead of ``ONLINE_TRAIN``'s 8; ``gnn-head``, the GNN
#: whose online update trains its head alone (``GNNModel(online="head")``); ``gnn-refit``, the
#: GNN whose online update trains anew from the shipped weights on every measurement of the run
#: (``GNNModel(online="refit")``); ``gnn-lambda32``, the GNN whose online update trains with the
#: shipped weights' LambdaRank for 32 epochs (:data:`ONLINE_VARIANTS`); ``gnn+native``, the
#: GNN whose 64 best candidates of each call are reordered with an XGBoost on native per-store
#: features that learns during the search (draft then verify); ``gnn+native-all``, the GNN
#: blended with that XGBoost over every candidate; ``gnn-explore-T``, the GNN whose
#: scores get Gumbel noise at T x their spread (:data:`EXPLORE_VARIANTS`); ``gnn-calibrated``,
#: ``gnn-novelty``, ``gnn-adaptive`` and ``gnn-gp``, the package's names of issue 85's options, and
#: ``gnn-novelty-W`` (:data:`SEARCH_VARIANTS`) and ``gnn-eps-E`` (:data:`EPS_VARIANTS`), their
#: weights and MetaSchedule's ``eps_greedy`` under test; ``gnn-diverse``, the shipped GNN whose
#: search's batch is chosen for diversity (:data:`DIVERSE_VARIANTS`); ``xgb-pretrained``,
#: XGBModel first trained on the records the GNN weights trained on (the fair peer)
DEFAULT_MODELS = ("gnn", "xgb", "random")
#: each task set's default models and trials: the held-out test is issue 73's, 256 trials with
#: the fair peer; the development set's comparisons are of 128
SET_DEFAULTS = {
    "held-out": (DEFAULT_MODELS + ("xgb-pretrained",), 256),
    "dev": (DEFAULT_MODELS, 128),
}
#: models that start from GNN weights (named ``gnn...``): their runs record the weights' digest
GNN_MODELS = tuple(m for m in MODELS if m.startswith("gnn"))
#: models whose runs depend on the GNN weights (their training records): keyed by their digest
WEIGHTED_MODELS = GNN_MODELS + ("xgb-pretrained",)
#: models whose runs stop at this many trials in a longer benchmark (issue 73's 256-trial test:
#: ``xgb-pretrained`` may stop at 128, and RandomModel's 128-trial runs stay as they are)
SHORT_RUNS = {"xgb-pretrained": 128, "random": 128}
#: gnn-long's online epochs (benchmarks/online_adaptation.py's gnn-online-long)
LONG_EPOCHS = 64
#: GNN variants of the benchmark alone: the shipped model with these ``ONLINE_TRAIN`` fields
#: changed (online recipes under test, not cost models of the package)
ONLINE_VARIANTS = {
    "gnn-long": {"epochs": LONG_EPOCHS},
    # issue 73's online recipe: the shipped loss, 4x the steps (online_adaptation.py's screen of
    # the development pools, docs/tuning.md)
    "gnn-lambda32": {"loss": "lambdarank", "epochs": 32},
}
#: issue 73's exploration: ``GNNModel(explore=T)``, the search's picks a softmax draw of the
#: GNN's scores at T x the spread of each round's first set instead of their top
EXPLORE_VARIANTS = {"gnn-explore-0.5": 0.5, "gnn-explore-1": 1.0}
#: issue 85's search options beyond the package's names (``gnn-calibrated``, ``gnn-novelty``,
#: ``gnn-adaptive``): the shipped GNN with these ``GNNModel`` arguments (the novelty bonus's
#: weight, :mod:`tvm_gnn.cost_models.novelty`)
SEARCH_VARIANTS = {
    "gnn-novelty-0.5": {"calibrated": True, "novelty": 0.5},
    "gnn-novelty-2": {"calibrated": True, "novelty": 2.0},
}
#: issue 85's baseline: the shipped GNN, its search's ``eps_greedy`` (MetaSchedule's 0.05) raised
EPS_VARIANTS = {"gnn-eps-0.15": 0.15, "gnn-eps-0.3": 0.3, "gnn-eps-0.5": 0.5}
#: issue 85's option (c): the shipped GNN, each round's batch the best-scored program of each
#: k-means cluster of W x the batch proposals (``tune_tir(diverse=W)``, tvm_gnn.tune.diverse)
DIVERSE_VARIANTS = {"gnn-diverse": 4}


# -- statistics ---------------------------------------------------------------------------------
def best_at(curve: list[float], trials: int) -> float:
    """Best latency after ``trials`` trials (inf: nothing valid yet)."""
    return float(curve[min(trials, len(curve)) - 1]) if curve else float("inf")


def trials_to_reach(curve: list[float], target: float) -> float:
    """First trial (1-based) whose best is at most ``target``; inf if never."""
    hit = np.nonzero(np.asarray(curve) <= target * (1 + 1e-9))[0]
    return float(hit[0] + 1) if len(hit) else float("inf")


def geomean_ratio(a: dict, b: dict, tasks: list[str], rng=None) -> float:
    """Geometric mean over ``tasks`` of (geometric mean over seeds of ``a``) / (same of ``b``);
    ``a[task]``/``b[task]`` are arrays of latencies of the same seeds. With ``rng``, tasks are
    resampled, and seeds within each task, with replacement (a bootstrap replicate); a seed
    drawn counts for both models (their runs of one seed share the search's seed)."""
    if rng is not None:
        tasks = list(rng.choice(tasks, size=len(tasks), replace=True))
    logs = []
    for t in tasks:
        d = np.log(a[t]) - np.log(b[t])
        if rng is not None:
            d = rng.choice(d, size=len(d))
        logs.append(d.mean())
    return float(np.exp(np.mean(logs)))


def interval(a: dict, b: dict, tasks: list[str], seed: int = 0) -> tuple[float, float, float]:
    """:func:`geomean_ratio` and its 95% percentile bootstrap interval."""
    rng = np.random.default_rng(seed)
    reps = [geomean_ratio(a, b, tasks, rng) for _ in range(BOOTSTRAP)]
    low, high = np.percentile(reps, [2.5, 97.5])
    return geomean_ratio(a, b, tasks), float(low), float(high)


def _ratios(lat: dict, models: list[str], ref: str, budgets, tasks) -> dict:
    """``{"model@budget": {"ratio", "low", "high"}}``: each of ``models`` against ``ref``, at
    the budgets both have."""
    out = {}
    for m in models:
        for b in budgets:
            if (m, b) not in lat or (ref, b) not in lat:
                continue
            ratio, low, high = interval(lat[m, b], lat[ref, b], tasks)
            out[f"{m}@{b}"] = {"ratio": ratio, "low": low, "high": high}
    return out


def model_trials(model: str, trials: int) -> int:
    """The trials a run of ``model`` has in a benchmark of ``trials`` (:data:`SHORT_RUNS`)."""
    return min(trials, SHORT_RUNS.get(model, trials))


def _provenance(by: dict, models, tasks, seeds) -> dict:
    """The machines and days of the runs counted, and the task-seeds whose runs are of more
    than one machine (a ratio should be of runs of one; RandomModel's older runs, which no
    target reads, are not held against a task-seed)."""
    counted = [by[t, m][s] for t in tasks for s in seeds[t] for m in models]
    return {
        "machines": sorted({r["machine"] for r in counted}),
        "days": sorted({r["day"] for r in counted}),
        "mixed": [
            f"{t} seed {s}"
            for t in tasks
            for s in seeds[t]
            if len({by[t, m][s]["machine"] for m in models if m != "random"}) > 1
        ],
    }


def summarize(runs: list[dict], trials: int, models=DEFAULT_MODELS, candidate: str = "gnn") -> dict:
    """The benchmark's numbers from the runs of ``models`` of ``trials`` trials (tasks where
    every one of them has runs of the same seeds only), read at 32, 64, 128 and ``trials``
    trials; a model of :data:`SHORT_RUNS` only up to its own end. ``candidate`` is the GNN that
    is also read against ``xgb-pretrained`` (the one the targets are of)."""
    budgets = [b for b in (32, 64, 128) if b < trials] + [trials]
    by: dict[tuple[str, str], dict[int, dict]] = {}
    for r in runs:
        if r["model"] in models and r["trials"] >= model_trials(r["model"], trials):
            by.setdefault((r["task"], r["model"]), {})[r["seed"]] = r
    models = [m for m in MODELS if any(k[1] == m for k in by)]
    tasks = sorted({t for t, _ in by if all((t, m) in by for m in models)})
    # seeds every model of a task has, so that ratios pair the same seeds
    seeds = {t: sorted(set.intersection(*(set(by[t, m]) for m in models))) for t in tasks}
    tasks = [t for t in tasks if seeds[t]]
    res = {"tasks": tasks, "models": models, "seeds": seeds, "budgets": list(budgets)}
    lat = {
        (m, b): {t: np.array([best_at(by[t, m][s]["curve"], b) for s in seeds[t]]) for t in tasks}
        for m in models
        for b in budgets
        if b <= model_trials(m, trials)
    }
    res["per_task"] = {
        t: {
            "kind": by[t, models[0]][seeds[t][0]]["kind"],
            **{f"{m}@{b}": float(np.exp(np.log(lat[m, b][t]).mean())) for m, b in lat},
        }
        for t in tasks
    }
    res["ratios"], res["ratios_gnn"] = {}, {}
    if "gnn" in models and tasks:  # each GNN variant against the plain GNN, seed for seed
        variants = [m for m in models if m in GNN_MODELS and m != "gnn"]
        res["ratios_gnn"] = _ratios(lat, variants, "gnn", budgets, tasks)
    if "xgb" in models and tasks:
        res["ratios"] = _ratios(lat, [m for m in models if m != "xgb"], "xgb", budgets, tasks)
        final = max(budgets)
        res["trials_to_xgb_final"] = {}
        for m in models:
            need = [
                trials_to_reach(by[t, m][s]["curve"], best_at(by[t, "xgb"][s]["curve"], final))
                for t in tasks
                for s in seeds[t]
            ]
            res["trials_to_xgb_final"][m] = {
                "median": float(np.median(need)),
                "reached": int(np.isfinite(need).sum()),
                "runs": len(need),
            }
    res["candidate"] = candidate
    if candidate in models and "xgb-pretrained" in models and tasks:  # the fair peer's
        res["ratios_pretrained"] = _ratios(lat, [candidate], "xgb-pretrained", budgets, tasks)
    # what each model's search gained after the first budget: best at the first budget over
    # best at the last, geometric mean over tasks and seeds (1.0: nothing found after it)
    # and in the last round alone (XGBModel's first with a model: it scores at random until
    # 100 measurements)
    first = min(budgets)

    def gain(m: str, before: int) -> float:
        if not tasks:
            return 1.0
        last = model_trials(m, trials)
        logs = [
            np.mean([np.log(best_at(c, before) / best_at(c, last)) for c in curves(t, m)])
            for t in tasks
        ]
        return float(np.exp(np.mean(logs)))

    def curves(t: str, m: str) -> list:
        return [by[t, m][s]["curve"] for s in seeds[t]]

    res["gain_after_first"] = {m: gain(m, first) for m in models}
    res["gain_last_round"] = {m: gain(m, model_trials(m, trials) - PER_ROUND) for m in models}
    res.update(_costs(by, models, tasks, seeds))
    res.update(_provenance(by, models, tasks, seeds))
    res["curves"] = _curves(by, models, tasks, seeds, trials)
    return res


def _costs(by, models, tasks, seeds) -> dict:
    """Per model, the cost model's share of tuning wall-clock over its runs, and its seconds a
    search round (predict and update), the median over runs."""
    runs = {m: [by[t, m][s] for t in tasks for s in seeds[t]] for m in models}
    share = {
        m: float(
            sum(r["cost_model_seconds"] for r in rs)
            / max(sum(r["tuning_seconds"] for r in rs), 1e-9)
        )
        for m, rs in runs.items()
    }
    per_round = {
        m: float(np.median([r["cost_model_seconds"] * PER_ROUND / r["trials"] for r in rs]))
        for m, rs in runs.items()
    }
    return {"cost_model_share": share, "cost_per_round": per_round}


def _curves(by, models, tasks, seeds, trials) -> dict:
    """Per model, geometric mean over tasks of best latency / XGBModel's final best (mean over
    seeds) after each trial, with a bootstrap band over tasks."""
    if "xgb" not in models or not tasks:
        return {}
    ref = {
        t: np.exp(np.mean([np.log(best_at(by[t, "xgb"][s]["curve"], trials)) for s in seeds[t]]))
        for t in tasks
    }
    rng = np.random.default_rng(0)
    picks = [rng.integers(0, len(tasks), len(tasks)) for _ in range(200)]
    out = {}
    for m in models:
        logs = np.array(
            [
                np.mean(
                    [
                        np.log(np.asarray(by[t, m][s]["curve"][: model_trials(m, trials)]) / ref[t])
                        for s in seeds[t]
                    ],
                    axis=0,
                )
                for t in tasks
            ]
        )  # tasks x trials
        mid = np.exp(logs.mean(axis=0))
        reps = np.exp(np.array([logs[p].mean(axis=0) for p in picks]))
        out[m] = {
            "mid": mid.tolist(),
            "low": np.percentile(reps, 2.5, axis=0).tolist(),
            "high": np.percentile(reps, 97.5, axis=0).tolist(),
        }
    return out


# -- report -------------------------------------------------------------------------------------
