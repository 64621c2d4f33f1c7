"""JSON read back with errors that name the file and the line."""

import pytest

from tvm_gnn.errors import DataError
from tvm_gnn.jsonfile import read_json


def test_valid_json_is_read(tmp_path):
    (tmp_path / "a.json").write_text('{"x": [1, 2]}')
    assert read_json(tmp_path / "a.json") == {"x": [1, 2]}


def test_errors_name_the_file_and_the_line(tmp_path):
    bad = tmp_path / "tasks.json"
    bad.write_text('[\n {"name": "a"},\n {"name": \n')
    with pytest.raises(DataError, match=rf"{bad}, line 4 column 1: not valid JSON"):
        read_json(bad)
    with pytest.raises(DataError, match="cannot read .*missing.json"):
        read_json(tmp_path / "missing.json")
