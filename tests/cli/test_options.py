"""Every command's numeric and path options, fed values from their edge classes (huge, zero,
negative, NaN, infinite, not a number, a file, a folder, a device, a read-only place, a path under
a file): a mistake is one line and exit 2, never a traceback, and what the option's kind allows
parses. The options are read from the parser, so a new option is covered as it is added."""

import argparse
import contextlib
import io
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tvm_gnn.cli import build_parser, common, main

NUMBERS = ["0", "-1", "1", "7", "0.5", "1.0", "2147483647", "2147483648", "9223372036854775807",
           "99999999999999999999", "nan", "inf", "-inf", "1e999", "-0.0", "abc", "", "3 ",
           "0x10", "1e3"]  # fmt: skip

#: options whose value is free text or a name, checked by the command against what exists
FREE = {"--network", "--target", "--rpc-key", "--section", "--held-out", "--would-add",
        "--test-db", "--models", "--hardware", "--cost-model", "--embedding", "--topk-at",
        "--conv", "--loss", "--lowering", "--workload", "--device", "--init"}  # fmt: skip

PATH_KINDS = {"output_file", "document_file", "output_folder", "input_file", "input_folder",
              "plot_file"}  # fmt: skip

#: what a command cannot parse without
REQUIRED = {"tune": ["--network", "tiny_cnn"]}


def _options():
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for command, p in sub.choices.items():
        for a in p._actions:
            if a.option_strings and a.nargs != 0 and not isinstance(a, argparse._HelpAction):
                yield command, a.option_strings[-1], a


OPTIONS = list(_options())
NUMERIC = [(c, o, a) for c, o, a in OPTIONS if hasattr(a.type, "low")]
PATHS = [(c, o, a) for c, o, a in OPTIONS if getattr(a.type, "__name__", "") in PATH_KINDS]


def test_every_option_that_takes_a_value_is_checked_where_it_is_parsed():
    unchecked = [
        f"{c} {o}"
        for c, o, a in OPTIONS
        if o not in FREE and a.choices is None and not hasattr(a.type, "low")
        and getattr(a.type, "__name__", "") not in PATH_KINDS | {"folder_name", "host_port"}
    ]  # fmt: skip
    assert not unchecked, f"options that take any text: {unchecked}"
    assert len(NUMERIC) > 40 and len(PATHS) > 20  # the sweep below sees every command


def _allowed_number(kind, text: str) -> bool:
    """What the kind's bounds allow, decided here, not by the type under test."""
    if hasattr(kind, "low_open"):  # a real number in an interval
        try:
            v = float(text)
        except ValueError:
            return False
        above = kind.low < v if kind.low_open else kind.low <= v
        below = v < kind.high if kind.high_open else v <= kind.high
        return math.isfinite(v) and above and below
    try:
        v = int(text)
    except ValueError:
        return False
    return kind.low <= v <= kind.high


def _parse(argv):
    """(exit code or None, stderr) of parsing ``argv`` as `tvm-gnn` would."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser().parse_args(argv)
        except SystemExit as stop:
            return stop.code, err.getvalue()
    return None, err.getvalue()


def _one_line_exit_2(code, err, command):
    assert code == 2, (code, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"tvm-gnn {command}: error: argument"), err


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option=st.sampled_from(NUMERIC), text=st.sampled_from(NUMBERS))
def test_a_numeric_option_refuses_its_edge_values_with_one_line(option, text):
    command, name, action = option
    code, err = _parse([command, *REQUIRED.get(command, []), f"{name}={text}"])
    if _allowed_number(action.type, text):
        assert code is None, err
    else:
        _one_line_exit_2(code, err, command)


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """The edge classes of a path: what each one is, and which kinds take it."""
    root = tmp_path_factory.mktemp("places")
    (root / "afile").write_text("x")
    (root / "afolder").mkdir()
    return {
        "a regular file": (
            root / "afile",
            {"output_file", "document_file", "input_file", "plot_file"},
        ),
        "a folder": (root / "afolder", {"output_folder", "input_folder"}),
        # written through (a plot too, never NAME.png beside it); documents are read
        "a device": (Path("/dev/null"), {"output_file", "plot_file"}),
        "a read-only place": (Path("/proc/tvm-gnn-x"), {"input_folder"}),
        "a path under a file": (root / "afile" / "x", {"input_folder"}),
        "a new path": (
            root / "new" / "x",
            {"output_file", "document_file", "output_folder", "input_folder", "plot_file"},
        ),
    }


@pytest.mark.parametrize("place", ["a regular file", "a folder", "a device", "a read-only place",
                                   "a path under a file", "a new path"])  # fmt: skip
def test_a_path_option_takes_what_its_kind_allows_and_refuses_the_rest(places, place):
    path, kinds = places[place]
    wrong = []
    for command, name, action in PATHS:
        code, err = _parse([command, *REQUIRED.get(command, []), f"{name}={path}"])
        if action.type.__name__ in kinds:
            ok = code is None
        else:
            ok = code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
        if not ok:
            wrong.append(f"{command} {name}: {code} {err.strip()}")
    assert not wrong, wrong
    assert not list(Path("/dev").glob("null.*")), "a writer replaced /dev/null"


@pytest.mark.parametrize(
    "argv,says",
    [
        (["collect", "--rpc-key", "k"], "--rpc-key and --rpc-workers are for measuring through"),
        (["collect", "--rpc-tracker", "127.0.0.1:9190"], "--rpc-tracker needs --rpc-key"),
        (["collect", "--trials-per-task", "8", "--wide-spread", "2", "--wide-spread-trials", "4"],
         "wide_spread_trials (4) must be at least trials_per_task (8)"),
    ],
)  # fmt: skip
def test_counts_that_do_not_go_together_are_one_line_before_any_work(argv, says, tmp_path, capsys):
    code = main([*argv, "--out", str(tmp_path / "raw")])
    err = capsys.readouterr().err
    assert code == 2 and says in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "raw").exists() or not list((tmp_path / "raw").rglob("database_*"))


def test_the_kinds_bounds_are_what_tvm_takes():
    assert common.positive_int.high == common.INT_MAX == 2**31 - 1
    assert common.seed_int.low == 0 and common.non_negative_int.low == 0
