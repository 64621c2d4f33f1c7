"""Where a running `tvm-gnn collect` spends its wall time: search, builds, runs, uniform draws.

Samples the collector's main thread with py-spy (idle frames included, so waiting on the builder
and runner pools counts as theirs) and sorts each sample by what the collection was doing:

    .venv/bin/pip install py-spy   # not a dependency of tvm_gnn
    .venv/bin/python benchmarks/speed/collect_profile.py --pid "$(pgrep -f 'tvm-gnn collect' | head
    -1)" \
        --seconds 600

or, for a py-spy raw file recorded before (`py-spy record --idle -f raw -o FILE ...`):

    .venv/bin/python benchmarks/speed/collect_profile.py FILE

`--nonblocking` sampling never pauses the collector; its measurements run in worker processes,
which py-spy does not touch.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

#: the phases, in the order they are printed
PHASES = (
    "evolutionary search (MetaSchedule's; XGBModel in its warm-up)",
    "building the search's candidates",
    "running the search's candidates",
    "building uniform samples",
    "running uniform samples",
    "drawing uniform samples",
    "extracting tasks",
    "other",
)


def phase(frames: list[str]) -> str | None:
    """The phase of one sample's stack (outermost frame first); None for a sample outside the
    collection (another thread, the interpreter starting)."""
    names = [re.sub(r" \(.*", "", f) for f in frames]
    if "cmd_collect" not in names:
        return None

    def has(*parts):
        return any(p in n for n in names for p in parts)

    building, running = has("Builder.build", "LocalBuilder"), has("Runner.run", "LocalRunner")
    if has("_search"):
        if building:
            return PHASES[1]
        return PHASES[2] if running else PHASES[0]
    if has("_Task.measure"):
        if building:
            return PHASES[3]
        return PHASES[4] if running else PHASES[7]
    if has("unrecorded_draws"):
        return PHASES[5]
    if has("network_tasks", "extract_tasks"):
        return PHASES[6]
    return PHASES[7]


def shares(raw: Path) -> tuple[Counter, int]:
    """Samples per phase of a py-spy raw file (``stack;stack;... count`` per line)."""
    counts: Counter = Counter()
    for line in raw.read_text().splitlines():
        if not line.strip():
            continue
        stack, n = line.rsplit(" ", 1)
        which = phase(stack.split(";"))
        if which is not None:
            counts[which] += int(n)
    return counts, sum(counts.values())


def report(counts: Counter, total: int) -> str:
    if not total:
        return "no sample of a `tvm-gnn collect` process in it"
    rows = ["| phase | share of the samples |", "|---|---:|"]
    rows += [f"| {p} | {counts[p] / total:.1%} |" for p in PHASES if counts[p]]
    return "\n".join([*rows, "", f"{total} samples of the collector's main thread"])


def record(pid: int, seconds: int, rate: int, out: Path) -> None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        sys.exit("collect_profile: py-spy is not installed (.venv/bin/pip install py-spy)")
    cmd = [spy, "record", "-p", str(pid), "-d", str(seconds), "-r", str(rate), "--idle",
           "--nonblocking", "-f", "raw", "-o", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("raw", nargs="?", type=Path, help="a py-spy raw file to read instead")
    p.add_argument("--pid", type=int, help="the running collector's process id")
    p.add_argument("--seconds", type=int, default=600, help="how long to sample (default 600)")
    p.add_argument("--rate", type=int, default=5, help="samples a second (default 5)")
    args = p.parse_args(argv)
    if (args.raw is None) == (args.pid is None):
        p.error("give a raw file or --pid, one of them")
    if args.raw is not None and not args.raw.is_file():
        p.error(f"no such file: {args.raw}")
    raw = args.raw
    if raw is None:
        raw = Path(tempfile.mkdtemp(prefix="collect_profile_")) / "spy.txt"
        record(args.pid, args.seconds, args.rate, raw)
        print(f"py-spy's samples: {raw}")
    print(report(*shares(raw)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
