# Licensed under the Apache License, Version 2.0.
"""Write each network folder's workloads as TVMScript, for TVMs that cannot read their JSON.

A database's workload lines hold TVM's JSON graph of each IRModule; TVM 0.27 cannot read 0.26's.
``tvm_gnn.dataset.workloads`` falls back on a folder's ``workload_scripts.json.gz``
(``{shash: script}``), which this writes. Run it under the TVM that wrote the records (0.26.0,
``.venv``); a folder whose file is already there and covers every workload is left as it is.

    .venv/bin/python benchmarks/data/workload_scripts.py data testsets
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path


def main(argv=None) -> int:
    from tqdm import tqdm

    from tvm_gnn import atomic
    from tvm_gnn.dataset.dbfile import WORKLOAD_FILE
    from tvm_gnn.dataset.layout import network_folders, open_db_folder
    from tvm_gnn.dataset.workloads import SCRIPT_FILE, Workloads, scripts_of

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("roots", nargs="+", type=Path, help="dataset roots (HARDWARE/NETWORK below)")
    args = p.parse_args(argv)
    folders = [f for root in args.roots for _, _, f in network_folders(root)]
    written = 0
    for folder in tqdm(folders, desc="workload scripts", unit="folder"):
        lines = (open_db_folder(folder) / WORKLOAD_FILE).read_text().splitlines()
        out = folder / SCRIPT_FILE
        if {str(json.loads(line)[0]) for line in lines} <= set(Workloads(folder, lines).scripts()):
            continue
        text = json.dumps(scripts_of(lines), sort_keys=True, indent=0)
        atomic.write_bytes(out, gzip.compress(text.encode(), mtime=0))
        written += 1
    print(f"{written} of {len(folders)} folders written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
