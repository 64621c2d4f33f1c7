"""benchmarks/cli/cli_mistakes.py: each row runs in a scratch folder and reports what a user
reads."""

from .. import script

cli_mistakes = script("cli_mistakes")


def test_a_row_reports_its_exit_and_the_last_line_of_stderr():
    row = cli_mistakes.Row("tvm-gnn dataset-stats --data afile")
    code, line = cli_mistakes.run_row(row)
    assert code == 2
    assert line.startswith("tvm-gnn dataset-stats: error: argument --data: afile is not a folder")


def test_the_table_escapes_pipes_and_says_when_nothing_was_printed():
    rows = [cli_mistakes.Row("a | b", note="n"), cli_mistakes.Row("1. scenario")]
    text = cli_mistakes.table(rows, [(141, ""), (0, "x | y")])
    assert "| `a \\| b` (n) | 141 | nothing |" in text
    assert "| 1. scenario | 0 | `x \\| y` |" in text


def test_torchs_deprecation_notice_is_not_what_the_user_reads():
    err = "tvm-gnn x: error: y\n/p/_script.py:1: FutureWarning: deprecated\n  warnings.warn(\n"
    assert cli_mistakes.last_line(err) == "tvm-gnn x: error: y"
