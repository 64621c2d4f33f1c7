# Licensed under the Apache License, Version 2.0.
"""Apply the upstream series for TVM v0.19.0 (``patches/v0.19.0``) to an installed TVM 0.19.

    python -m tvm_gnn.upstream apply            # patch the tvm this Python imports
    python -m tvm_gnn.upstream apply --check    # say what would change; change nothing
    python -m tvm_gnn.upstream status           # which patches are applied

The series adds ``auto_scheduler.GNNModel`` beside ``XGBModel`` and exposes each search state's
lowered TIR to Python (``docs/ansor.md``). Only the series' ``python/tvm/`` files are written,
into the installed ``tvm`` package; its upstream test files are not. A patch already applied is
skipped, so a second run changes nothing. A TVM other than v0.19.0 (commit c4dc0c29) is refused,
and so is one where a patch neither applies nor is applied (a changed file): nothing is written
then.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

#: the commit the series is made against (the v0.19.0 tag)
TARGET_COMMIT = "c4dc0c29"
TARGET_VERSION = "0.19.0"
#: the series, in a source checkout (``pip install -e``)
SERIES = Path(__file__).resolve().parents[2] / "patches" / f"v{TARGET_VERSION}"


class SeriesError(RuntimeError):
    """The series cannot be applied here (the message says why)."""


def series(folder: Path = SERIES) -> list[Path]:
    """The patches of the series, in order."""
    patches = sorted(Path(folder).glob("*.patch"))
    if not patches:
        raise SeriesError(
            f"no patches in {folder}: the series ships with tvm_gnn's source checkout "
            "(patches/v0.19.0); pass --series DIR"
        )
    return patches


def installed_tvm() -> Path:
    """The folder of the ``tvm`` package this Python imports, checked to be v0.19.0."""
    try:
        import tvm
        from tvm import support
    except ImportError as err:
        raise SeriesError(f"no importable TVM here ({err})") from None
    commit = str(support.libinfo().get("GIT_COMMIT_HASH", ""))
    if tvm.__version__ != TARGET_VERSION or not commit.startswith(TARGET_COMMIT):
        raise SeriesError(
            f"this series targets TVM v{TARGET_VERSION} (commit {TARGET_COMMIT}); the installed "
            f"TVM is {tvm.__version__} (commit {commit[:8] or 'unknown'}): nothing changed"
        )
    return Path(tvm.__file__).resolve().parent


def _git_apply(site: Path, patch: Path, *flags: str) -> subprocess.CompletedProcess:
    git = shutil.which("git")
    if git is None:
        raise SeriesError("applying the series needs git (`git apply`) on PATH")
    # outside any repository (a virtual environment may sit inside one): paths are the patch's,
    # relative to site-packages, with python/ stripped and the upstream tests left out
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(site.parent)}
    cmd = [git, "apply", "-p2", "--include=tvm/*", *flags, str(patch)]
    return subprocess.run(cmd, cwd=site, env=env, capture_output=True, text=True)


def state(site: Path, patch: Path) -> str:
    """``"applied"``, ``"applies"`` or ``"conflict"``: where ``patch`` stands on ``site``."""
    if _git_apply(site, patch, "--check", "--reverse").returncode == 0:
        return "applied"
    if _git_apply(site, patch, "--check").returncode == 0:
        return "applies"
    return "conflict"


def touched(site: Path, patch: Path) -> list[str]:
    """The installed files ``patch`` writes, relative to site-packages."""
    out = _git_apply(site, patch, "--numstat").stdout
    return [line.split("\t")[2] for line in out.splitlines() if line.count("\t") == 2]


def apply(folder: Path = SERIES, check: bool = False) -> list[tuple[str, str, list[str]]]:
    """Apply the series to the installed TVM; ``(patch, what happened, files)`` per patch.

    Every patch is checked before any is written: a conflict raises :class:`SeriesError` and
    changes nothing."""
    site = installed_tvm().parent
    patches = series(folder)
    states = [(p, state(site, p)) for p in patches]
    bad = [p.name for p, s in states if s == "conflict"]
    if bad:
        raise SeriesError(
            f"{', '.join(bad)}: neither applies to nor is applied in {site / 'tvm'} (its files "
            "differ from v0.19.0's): nothing changed"
        )
    done = []
    for patch, st in states:
        files = touched(site, patch)
        if st == "applied":
            done.append((patch.name, "already applied", files))
            continue
        if not check:
            proc = _git_apply(site, patch)
            if proc.returncode != 0:  # checked above; a file changed in between
                raise SeriesError(f"{patch.name} failed to apply: {proc.stderr.strip()}")
        done.append((patch.name, "would apply" if check else "applied", files))
    return done


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tvm_gnn.upstream",
        description="Apply tvm_gnn's upstream series for TVM v0.19.0 to the installed TVM.",
    )
    parser.add_argument("command", choices=("apply", "status"))
    parser.add_argument("--series", type=Path, default=SERIES, help="the series' folder")
    parser.add_argument(
        "--check", action="store_true", help="say what would change; change nothing"
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing when nothing changes")
    args = parser.parse_args(argv)
    try:
        if args.command == "status":
            site = installed_tvm().parent
            for patch in series(args.series):
                print(f"{patch.name}: {state(site, patch)}")
            return 0
        done = apply(args.series, check=args.check)
    except SeriesError as err:
        print(f"tvm_gnn.upstream: {err}", file=sys.stderr)
        return 2
    changed = [d for d in done if d[1] != "already applied"]
    if args.quiet and not changed:
        return 0
    for name, what, files in done:
        print(f"{name}: {what} ({', '.join(files)})")
    if not changed:
        print("nothing changed: the series is applied")
    return 0


if __name__ == "__main__":
    sys.exit(main())
