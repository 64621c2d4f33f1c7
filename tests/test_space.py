"""Room on disk: up-front checks, a full file system met mid-write, and what a full disk keeps,
on a real (small) tmpfs."""

import errno
import os

import pytest

from tvm_gnn import atomic, space
from tvm_gnn.errors import DiskFullError

from .conftest import fill


def test_a_small_file_system_is_refused_up_front_with_what_it_has(tmpfs, tmp_path):
    small = tmpfs("1m")
    assert space.room_problem(small / "out.pt") == (
        "its file system has 1.0 MiB free; a run needs at least 64 MiB"
    )
    assert space.room_problem(small / "not" / "yet" / "made") is not None  # its ancestor's
    assert space.room_problem(tmp_path) is None


def test_names_the_file_system_refuses_are_said_before_any_work(tmp_path):
    assert "256 bytes long" in space.name_problem(tmp_path / ("x" * 256))
    assert "not valid UTF-8" in space.name_problem(tmp_path / os.fsdecode(b"\xff.pt"))
    assert space.name_problem(tmp_path / "ok" / ("y" * 255)) is None


def test_a_full_disk_mid_write_names_the_file_and_leaves_no_temporary(tmpfs):
    import torch

    small = tmpfs("1m")
    (small / "model.pt").write_bytes(b"old")
    fill(small)
    with pytest.raises(OSError) as err:
        atomic.write_bytes(small / "model.pt", b"x" * 100_000)
    assert err.value.errno == errno.ENOSPC and err.value.filename == str(small / "model.pt")
    # torch.save wraps the write's OSError in a RuntimeError: the file system's error comes out
    with pytest.raises(OSError) as err:
        with atomic.atomic_open(small / "model.pt", "wb") as f:
            torch.save({"w": torch.zeros(100_000)}, f)
    assert err.value.errno == errno.ENOSPC and err.value.filename == str(small / "model.pt")
    assert sorted(p.name for p in small.iterdir()) == ["fill", "model.pt"]
    assert (small / "model.pt").read_bytes() == b"old"


def test_a_name_near_the_limit_is_written_whole(tmp_path):
    """The temporary file beside it stays within the limit too (it used to add 13 bytes)."""
    path = tmp_path / ("n" * 250)
    atomic.write_text(path, "whole")
    assert path.read_text() == "whole" and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_what_a_full_disk_would_lose_is_saved_elsewhere_and_said_where(
    tmpfs, tmp_path, monkeypatch
):
    small = tmpfs("1m")
    fill(small)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(DiskFullError) as err:
        space.rescue(small / "gnn.pt", lambda p: atomic.write_bytes(p, b"w" * 10_000), "model")
    kept = tmp_path / "cache" / "tvm_gnn" / "rescued" / "gnn.pt"
    assert str(err.value) == (
        f"no space left on the file system of {small / 'gnn.pt'}; the model was saved to "
        f"{kept} instead (move it where you want it)"
    )
    assert kept.read_bytes() == b"w" * 10_000
    space.rescue(tmp_path / "here.pt", lambda p: atomic.write_bytes(p, b"h"), "model")
    assert (tmp_path / "here.pt").read_bytes() == b"h"  # room: written where asked


def test_a_file_system_that_filled_stops_the_run_saying_what_is_kept(tmpfs, tmp_path):
    small = tmpfs("4m")
    space.stop_if_full(small / "records.json", "kept")  # room yet
    fill(small)
    with pytest.raises(DiskFullError, match=r"is full \(0.0 MiB free\): 3 records in R"):
        space.stop_if_full(small / "records.json", "3 records in R")
