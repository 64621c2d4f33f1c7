"""Which collect run wrote which record lines: counts walked back from the end of the file."""

import gzip
import json

from tvm_gnn.dataset.provenance import RunSpan, run_spans


def _folder(tmp_path, runs, records, packed=False):
    folder = tmp_path / "hw" / "net"
    folder.mkdir(parents=True)
    text = "".join(f"[0, [[], [0.001], {{}}, []], {i}]\n" for i in range(records))
    if packed:
        (folder / "database_tuning_record.json.gz").write_bytes(gzip.compress(text.encode()))
    else:
        (folder / "database_tuning_record.json").write_text(text)
    lines = [json.dumps(r) if isinstance(r, dict) else r for r in runs]
    (folder / "provenance.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_each_counted_run_holds_its_lines_and_the_uncounted_runs_the_rest(tmp_path):
    runs = [
        {"date": "2026-11-22T10:00"},  # before runs counted their records
        {"date": "2026-11-23T10:00"},
        {"date": "2026-11-28T10:00", "measured": 30},
        {"date": "2026-11-28T11:00", "measured": 0},  # a finished network run again
        "{not json",  # a run killed while writing its line
        {"date": "2026-11-30T09:00", "measured": 20, "cpu_id": {"llvm": "znver3"}},
    ]
    spans = run_spans(_folder(tmp_path, runs, 100))
    assert spans == [
        RunSpan(1, 50, "2026-11-22T10:00", None, counted=False),
        RunSpan(51, 80, "2026-11-28T10:00", None, counted=True),
        RunSpan(81, 100, "2026-11-30T09:00", "znver3", counted=True),
    ]
    assert [s.lines for s in spans] == [50, 30, 20]


def test_lines_a_killed_run_did_not_count_come_first_and_counts_past_the_file_are_cut(tmp_path):
    # the first run wrote 5 records more than its count says: they are the file's first lines
    runs = [{"date": "a", "measured": 10}, {"date": "b", "measured": 10}]
    assert run_spans(_folder(tmp_path / "short", runs, 25, packed=True)) == [
        RunSpan(1, 5, "a", None, counted=False),
        RunSpan(6, 15, "a", None, counted=True),
        RunSpan(16, 25, "b", None, counted=True),
    ]
    # a file cut short: the last run keeps its lines, the first gets what is left
    assert run_spans(_folder(tmp_path / "cut", runs, 14)) == [
        RunSpan(1, 4, "a", None, counted=True),
        RunSpan(5, 14, "b", None, counted=True),
    ]
    assert run_spans(_folder(tmp_path / "empty", [], 0)) == []
