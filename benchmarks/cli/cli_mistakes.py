# Licensed under the Apache License, Version 2.0.
"""What a user sees for each mistake, interruption and odd place: the tables of ``docs/cli.md``.

Every row is a short shell script run in a scratch folder that holds a file ``afile``, the
repository's ``data`` and ``models`` (links) and ``tvm-gnn`` on the ``PATH``; the table shows the
row's command, the exit status of its last command and the last line it wrote to stderr (a
scenario's own lines, ``echo ... >&2``, say what it checked). Nothing is typed into the tables by
hand, so they change only when the commands' behaviour does.

    .venv/bin/python benchmarks/cli/cli_mistakes.py            # every table into docs/cli.md
    .venv/bin/python benchmarks/cli/cli_mistakes.py --rows 3   # the first rows only, printed
    .venv/bin/python benchmarks/cli/cli_mistakes.py --tables cli-faults   # one table
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"


@dataclass(frozen=True)
class Row:
    shown: str  # the command as the table shows it
    script: str = ""  # what runs (default: ``shown``), in bash, in the scratch folder
    note: str = ""  # said after the command in the table


#: one mistake a row: the command line or its inputs
MISTAKES = [
    Row("tvm-gnn train --out afile/x.pt"),
    Row("tvm-gnn train --out /proc/x.pt", note="a place that takes no files, also as root"),
    Row("tvm-gnn eval --json afile/x.json"),
    Row("tvm-gnn tune --network tiny_cnn --work-dir afile"),
    Row("tvm-gnn tune --network tiny_cnn --trials 99999999999999999999"),
    Row("tvm-gnn tune --network tiny_cnn --checkpoint models", note="a folder as a checkpoint"),
    Row("tvm-gnn collect --network resnet18 --out afile"),
    Row("tvm-gnn collect --network resnet18 --hardware ../elsewhere"),
    Row("tvm-gnn collect --uniform-fraction nan"),
    Row("tvm-gnn collect --rpc-tracker localhost:0 --rpc-key k"),
    Row("tvm-gnn collect --rpc-key k", note="a device key without a tracker"),
    Row("tvm-gnn unpack --data data --raw afile"),
    Row("tvm-gnn dataset-stats --data nowhere"),
    Row("tvm-gnn dataset-stats --data afile"),
    Row("tvm-gnn dataset-stats --data data/llvm-amd-epyc-2c"),
    Row("tvm-gnn train --data data/llvm-amd-epyc-2c"),
    Row("tvm-gnn eval --test-db afile"),
    Row("tvm-gnn demo --target '{\"kind\": \"llvm\", \"num-cores\": 1}' --num-cores 2"),
    Row("tvm-gnn demo --target '{\"kind\": \"llvm\", \"mcpu\": \"znver9\"}'",
        note="a CPU LLVM does not know; TVM alone would compile generic code"),
    Row("tvm-gnn featurize --workload matmul_128 --candidates 2 --max-nodes 1",
        note="every candidate fails"),
    Row("tvm-gnn dataset-stats | head -1", "tvm-gnn dataset-stats 2>e | head -1 >/dev/null; "
        "r=${PIPESTATUS[0]}; echo \"exit $r; $(wc -l <e) lines on stderr\" >&2; exit $r",
        note="the reader closes the pipe early"),
]  # fmt: skip

LSTM = "mkdir -p D/llvm-amd-epyc-2c && cp -r data/llvm-amd-epyc-2c/lstm D/llvm-amd-epyc-2c/"
SUM = "find D -type f | sort | xargs sha1sum | sha1sum"
TINY = "--network tiny_cnn --max-tasks 1 --batch-size 2 -q"
WRONG = (
    'python -c "import sys, torch; p = torch.load(sys.argv[1], weights_only=True); '
    "p['gnn_config']['hidden'] *= 2; torch.save(p, 'other.pt')\" "
    "$(python -c 'import tvm_gnn.resources as r; print(r.PRETRAINED)') 2>/dev/null"
)

#: issue 74's six classes: what a run may not damage, leave behind or say wrongly
CLASSES = [
    Row("1. `tvm-gnn collect --network lstm --out D --max-tasks 1`, `D` a packed folder",
        f"{LSTM}; a=$({SUM}); tvm-gnn collect --network lstm --out D --max-tasks 1; r=$?; "
        f"[ \"$a\" = \"$({SUM})\" ] && echo 'D: every file as it was' >&2; exit $r"),
    Row("1. two `tvm-gnn collect` runs on one `--out` at once: the second",
        f"tvm-gnn collect {TINY} --out R --trials-per-task 16 & "
        "until ls R/*/tiny_cnn/tvm-gnn.lock >/dev/null 2>&1; do sleep 0.2; done; "
        f"tvm-gnn collect {TINY} --out R --trials-per-task 16; r=$?; wait; exit $r"),
    Row("1. `tvm-gnn collect --network tiny_cnn --max-tasks 1`: what its folder records",
        f"tvm-gnn collect {TINY} --out R --trials-per-task 4 2>/dev/null; r=$?; "
        "python -c \"import json, glob; f, = glob.glob('R/*/tiny_cnn'); "
        "print(len(json.load(open(f + '/tasks.json'))), 'tasks in tasks.json,', "
        "sum(1 for _ in open(f + '/database_tuning_record.json')), 'records')\" >&2; exit $r"),
    Row("1. `tvm-gnn unpack` killed (`kill -9`) in a folder, then run again",
        "tvm-gnn unpack --data data --raw U >/dev/null 2>&1 & p=$!; "
        "until ls U/*/*/.tvm-gnn-unfinished >/dev/null 2>&1; do :; done; kill -9 $p; "
        "wait $p 2>/dev/null; c=$(ls U/*/*/.tvm-gnn-unfinished 2>/dev/null | wc -l); "
        "tvm-gnn unpack --data data --raw U >/dev/null; r=$?; "
        "echo \"$c folder(s) marked cut; done again whole: $(ls U/*/*/.tvm-gnn-unfinished "
        "2>/dev/null | wc -l) marked, $(ls U/*/*/database_tuning_record.json | wc -l) of "
        "$(ls -d data/*/* | wc -l) folders unpacked\" >&2; exit $r"),
    Row("2. `tvm-gnn dataset-stats --data D --card /dev/null` (as root)",
        f"{LSTM}; tvm-gnn dataset-stats --data D --card /dev/null >/dev/null; r=$?; "
        "echo \"/dev/null is still a $(stat -c %F /dev/null)\" >&2; exit $r"),
    Row("3. `tvm-gnn collect` run to its end with `TMPDIR` an empty folder",
        f"mkdir t; TMPDIR=$PWD/t tvm-gnn collect {TINY} --out R --trials-per-task 4 2>/dev/null; "
        "r=$?; echo \"files left in TMPDIR: $(find t -mindepth 1 | wc -l)\" >&2; exit $r"),
    Row("4. `tvm-gnn collect --rpc-tracker 127.0.0.1:1 --rpc-key k` (nothing listens there)",
        "tvm-gnn collect --network tiny_cnn --out R --rpc-tracker 127.0.0.1:1 --rpc-key k"),
    Row("5. `tvm-gnn collect --network tiny_cnn --out R` where R's folder is `chattr +i`",
        "mkdir -p R/hw/tiny_cnn && chattr +i R/hw/tiny_cnn && tvm-gnn collect --network "
        "tiny_cnn --out R --hardware hw; r=$?; chattr -i R/hw/tiny_cnn; exit $r"),
    Row("6. `tvm-gnn eval --models gnn --gnn other.pt`, weights of another architecture",
        f"{WRONG}; tvm-gnn eval --models gnn --gnn other.pt --held-out resnet18 -q"),
    Row("6. `tvm-gnn eval --models gnn` on a folder holding only the held-out resnet18",
        "mkdir -p H/llvm-amd-epyc-2c && cp -r data/llvm-amd-epyc-2c/resnet18 H/llvm-amd-epyc-2c/ "
        "&& tvm-gnn eval --data H --held-out resnet18 --models gnn -q 2>&1 >/dev/null | "
        "grep -v Warning | grep -v warnings.warn | cut -d' ' -f3- >&2; exit ${PIPESTATUS[0]}"),
]  # fmt: skip


MOUNT = "mkdir m && mount -t tmpfs -o size={size} tmpfs m && "
LOAD = (
    "python - <<'EOF' 2>&1 | tail -1 >&2\n"
    "import sys, numpy as np, torch\n"
    "from tvm.s_tir import Schedule, meta_schedule as ms\n"
    "from tvm_gnn import GNNModel\n"
    "from tvm_gnn.measure import workloads\n"
    "from tvm_gnn.measure.sampling import target_from\n"
    "mod = workloads.matmul(16, 16, 16)\n"
    "ctx = ms.TuneContext(mod=mod, target=target_from('llvm', 2), task_name='x')\n"
    "c = [ms.MeasureCandidate(Schedule(mod), ms.arg_info.ArgInfo.from_prim_func(mod['main']))]\n"
    "m = GNNModel(); m.save('bad.pt'); before = m.predict(ctx, c)\n"
    "p = torch.load('bad.pt', weights_only=True)\n"
    "p['extra']['online_data'] = {'k': {'graphs': 'x', 'costs': [1.0]}}; torch.save(p, 'bad.pt')\n"
    "try:\n"
    "    m.load('bad.pt')\n"
    "except Exception as err:\n"
    "    said = str(err).splitlines()[0]\n"
    "same = bool((m.predict(ctx, c) == before).all())\n"
    "print(f'load refused ({said}); scores as before: {same}')\n"
    "EOF"
)
API = (
    LOAD.split("m = GNNModel()")[0].replace(
        "python - <<'EOF' 2>&1 | tail -1 >&2", "cat >api.py <<'EOF'"
    )
    + "GNNModel().predict(ctx, c)\nEOF\n"
)
SHIPPED = "cp $(python -c 'import tvm_gnn.resources as r; print(r.PRETRAINED)')"
CARD = (
    "printf '# card\\n<!-- begin dataset-stats (generated, do not edit) -->\\nold\\n\\n"
    "mine\\n' > c.md"
)

#: issue 83's classes: faults outside the command line, each met before the work or as it happens
FAULTS = [
    Row("7. `tvm-gnn train --out m/gnn.pt`, `m` a 1 MiB tmpfs (a full disk)",
        MOUNT.format(size="1m") + "tvm-gnn train --out m/gnn.pt; r=$?; umount m; exit $r"),
    Row("7. `tvm-gnn tune --network tiny_cnn --trials 48 --work-dir m/w`, `m` an 80 MiB tmpfs "
        "filled while it tunes",
        MOUNT.format(size="80m") + "(tvm-gnn tune --network tiny_cnn --trials 48 "
        "--trials-per-iter 8 --work-dir m/w -q 2>e; echo $? >rc) & "
        "until [ -s m/w/database_tuning_record.json ]; do sleep 0.5; done; "
        "dd if=/dev/zero of=m/fill bs=1M 2>/dev/null; wait; tail -1 e >&2; r=$(cat rc); "
        "umount m; exit $r"),
    Row("8. two `tvm-gnn tune` runs on one `--work-dir` at once: the second",
        "tvm-gnn tune --network tiny_cnn --trials 16 --work-dir W -q 2>/dev/null & "
        "until [ -e W/tvm-gnn.lock ]; do sleep 0.2; done; "
        "tvm-gnn tune --network tiny_cnn --trials 16 --work-dir W; r=$?; kill %1; wait; exit $r"),
    Row("8. two `tvm-gnn train` runs on one `--out` at once: the second",
        "tvm-gnn train --out T.pt -q 2>/dev/null & "
        "until [ -e .T.pt.tvm-gnn.lock ]; do sleep 0.2; done; "
        "tvm-gnn train --out T.pt; r=$?; kill %1; wait; exit $r"),
    Row("9. `tvm-gnn collect --network tiny_cnn --out D --hardware hw`, `hw` measured on another "
        "CPU",
        "mkdir -p D/hw/resnet18 && echo '{\"cpu_model\": \"Intel(R) Xeon(R) Processor\", "
        "\"cpu_id\": {\"llvm\": \"icelake-server\"}}' > D/hw/resnet18/provenance.jsonl && "
        "tvm-gnn collect --network tiny_cnn --out D --hardware hw"),
    Row("10. `GNNModel.load` of a checkpoint whose online data is bad (Python)", LOAD),
    Row("11. `tvm-gnn train --out xxx...x.pt` (a 259-byte name)",
        "tvm-gnn train --out $(printf 'x%.0s' $(seq 256)).pt"),
    Row("11. `tvm-gnn train --out $'\\xff.pt'` (a name that is not UTF-8)",
        "tvm-gnn train --out $'\\xff.pt'"),
    Row("12. `tvm-gnn dataset-stats --card p`, `p` a named pipe",
        "mkfifo p; timeout 60 tvm-gnn dataset-stats --card p"),
    Row("12. `tvm-gnn dataset-stats --card c.md`, `c.md` with a begin marker and no end marker",
        f"{CARD}; a=$(sha1sum <c.md); tvm-gnn dataset-stats --card c.md; r=$?; "
        "[ \"$a\" = \"$(sha1sum <c.md)\" ] && echo 'c.md: every byte as it was' >&2; exit $r"),
    Row("13. `tvm-gnn dataset-stats >&-` (standard output closed)", "tvm-gnn dataset-stats >&-"),
    Row("14. `GNNModel().predict(...)` from Python with `TMPDIR` an empty folder",
        f"{API}mkdir t; TMPDIR=$PWD/t python api.py >/dev/null 2>&1; "
        "r=$?; echo \"files left in TMPDIR: $(find t -mindepth 1 | wc -l)\" >&2; exit $r"),
    # issue 105's classes: files read beside the main ones, foreign files, what a refused run
    # leaves, values that cannot work or are probably a mistake, TVM's known notices
    Row("15. `tvm-gnn tune --network tiny_cnn --cost-model gnn-calibrated --checkpoint w.pt`, "
        "`w.pt.calibration.json` a JSON list",
        f"{SHIPPED} w.pt; echo '[1, 2]' > w.pt.calibration.json; tvm-gnn tune --network "
        "tiny_cnn --cost-model gnn-calibrated --checkpoint w.pt --work-dir W -q"),
    Row("15. `tvm-gnn dataset-stats --data D`, a network's `workload_scripts.json.gz` cut",
        f"{LSTM}; f=D/llvm-amd-epyc-2c/lstm/workload_scripts.json.gz; head -c 99 $f > c; "
        "mv c $f; tvm-gnn dataset-stats --data D >/dev/null"),
    Row("16. `tvm-gnn tune --network tiny_cnn --checkpoint notes.pt`, `notes.pt` a text file",
        "echo 'my notes' > notes.pt; tvm-gnn tune --network tiny_cnn --checkpoint notes.pt -q"),
    Row("17. the same, `--work-dir W`: what the refused run leaves",
        "echo 'my notes' > notes.pt; tvm-gnn tune --network tiny_cnn --checkpoint notes.pt "
        "--work-dir W -q 2>/dev/null; r=$?; echo \"W exists: $([ -e W ] && echo yes || echo no)"
        "\" >&2; exit $r"),
    Row("18. `tvm-gnn train --held-out resnet19`", "tvm-gnn train --held-out resnet19"),
    Row("18. `tvm-gnn unpack --data data --raw data/raw`",
        "tvm-gnn unpack --data data --raw data/raw"),
    Row("18. `tvm-gnn featurize --workload matmul_128 --candidates 1 --num-cores 64`",
        "tvm-gnn featurize --workload matmul_128 --candidates 1 --num-cores 64 >/dev/null"),
    Row("18. `tvm-gnn dataset-stats --plot /dev/null`",
        "tvm-gnn dataset-stats --plot /dev/null >/dev/null; r=$?; echo \"/dev/null.png: $([ -e "
        "/dev/null.png ] && echo written || echo none)\" >&2; exit $r"),
    Row("19. `tvm-gnn embeddings --candidates 1 --epoch 1 --out v.txt`: TVM's notices",
        "tvm-gnn embeddings --candidates 1 --epoch 1 --out v.txt -q 2>e >/dev/null; r=$?; "
        "echo \"'Unknown schedule rule' lines: $(grep -c 'Unknown schedule rule' e)\" >&2; "
        "exit $r"),
]  # fmt: skip

#: the tables of docs/cli.md, by section name
TABLES = {"cli-mistakes": MISTAKES, "cli-classes": CLASSES, "cli-faults": FAULTS}


def run_row(row: Row, timeout: float = 900) -> tuple[int, str]:
    """``(exit status, last line of stderr)`` of ``row`` in a scratch folder of its own."""
    with tempfile.TemporaryDirectory(prefix="cli-mistakes-") as scratch:
        here = Path(scratch)
        (here / "afile").write_text("")
        for name in ("data", "models"):
            (here / name).symlink_to(ROOT / name)
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
        proc = subprocess.run(
            ["bash", "-c", row.script or row.shown], cwd=here, env=env, timeout=timeout,
            capture_output=True, text=True,
        )  # fmt: skip
    return proc.returncode, last_line(proc.stderr)


def last_line(err: str) -> str:
    """The line a user reads: the last of stderr, torch's deprecation notice left out."""
    lines = [ln.strip() for ln in err.replace("\r", "\n").splitlines() if ln.strip()]
    lines = [ln for ln in lines if "FutureWarning" not in ln and ln != "warnings.warn("]
    return lines[-1] if lines else ""


def table(rows, results) -> str:
    out = ["| command | exit | what it prints (the last line of stderr) |", "|---|---|---|"]
    for row, (code, line) in zip(rows, results):
        shown = row.shown if row.shown[0].isdigit() else f"`{row.shown}`"
        note = f" ({row.note})" if row.note else ""
        said = f"`{line}`" if line else "nothing"
        cells = [f"{shown}{note}", str(code), said]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out)


def main(argv=None) -> int:
    from tvm_gnn.measure.hardware import cpu_identity, cpu_model, usable_cores
    from tvm_gnn.report import write_section

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--doc", type=Path, default=DOC, help="markdown file (default: docs/cli.md)")
    p.add_argument("--rows", type=int, default=None, help="only the first N rows, printed")
    p.add_argument(
        "--tables", nargs="+", choices=sorted(TABLES), default=list(TABLES),
        help="which tables to run (default: all)",
    )  # fmt: skip
    args = p.parse_args(argv)
    where = (
        f"Run on {cpu_model()} (LLVM `{cpu_identity()['llvm']}`), {usable_cores()} cores, as root."
    )
    for name in args.tables:
        rows = TABLES[name][: args.rows] if args.rows else TABLES[name]
        body = f"{where}\n\n{table(rows, [run_row(r) for r in rows])}"
        if args.rows:
            print(body)
        else:
            write_section(args.doc, name, body)
    if not args.rows:
        print(f"wrote {', '.join(args.tables)} into {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
