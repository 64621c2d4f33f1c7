"""Ansor's logs packed into the committed dataset and back: lossless, deterministic, guarded."""

import gzip

import pytest

from tvm_gnn.dataset.ansor_archive import hardware_folders, pack_ansor, unpack_ansor

LOG = "([abc,[1,2]],llvm).json"


def _raw(root, lines=3):
    folder = root / "ansor" / "llvm-x-2c"
    (folder / "measure_records").mkdir(parents=True)
    (folder / "network_info").mkdir()
    text = "".join(f'{{"i": [["k"], [{n}]], "r": [[0.001], 0]}}\n' for n in range(lines))
    (folder / "measure_records" / LOG).write_text(text)
    (folder / "network_info" / "net.json").write_text('{"tasks": []}\n')
    return folder


def test_pack_then_unpack_round_trip_deterministically(tmp_path):
    folder = _raw(tmp_path / "raw")
    assert hardware_folders(tmp_path / "raw") == [folder]
    out = tmp_path / "data"
    assert len(pack_ansor(tmp_path / "raw", out)) == 1
    gz = out / "ansor" / "llvm-x-2c" / "measure_records" / (LOG + ".gz")
    first = gz.read_bytes()
    assert gzip.decompress(first) == (folder / "measure_records" / LOG).read_bytes()
    assert pack_ansor(tmp_path / "raw", out) == [] and gz.read_bytes() == first  # unchanged
    back = tmp_path / "again"
    assert len(unpack_ansor(out, back)) == 1
    log = back / "ansor" / "llvm-x-2c" / "measure_records" / LOG
    assert log.read_bytes() == (folder / "measure_records" / LOG).read_bytes()
    assert (back / "ansor" / "llvm-x-2c" / "network_info" / "net.json").exists()
    log.write_text(log.read_text() + '{"i": "new"}\n')  # collected further: kept as it is
    assert unpack_ansor(out, back) == [] and log.read_text().endswith('"new"}\n')


def test_a_cut_line_is_left_out_and_a_shorter_log_is_refused(tmp_path):
    folder = _raw(tmp_path / "raw")
    log = folder / "measure_records" / LOG
    whole = log.read_bytes()
    log.write_bytes(whole + b'{"i": [["cut')
    pack_ansor(tmp_path / "raw", tmp_path / "data")
    gz = tmp_path / "data" / "ansor" / "llvm-x-2c" / "measure_records" / (LOG + ".gz")
    assert gzip.decompress(gz.read_bytes()) == whole
    log.write_bytes(whole.splitlines(keepends=True)[0])  # a raw folder that started over
    with pytest.raises(ValueError, match="has fewer lines than"):
        pack_ansor(tmp_path / "raw", tmp_path / "data")
    assert gzip.decompress(gz.read_bytes()) == whole


def test_counts_read_raw_and_packed_alike(tmp_path):
    from tvm_gnn.dataset.ansor_archive import counts

    folder = _raw(tmp_path / "raw", lines=4)
    log = folder / "measure_records" / LOG
    log.write_text(log.read_text() + '{"i": [["k"], []], "r": [[1e10], 4]}\n{"cut')
    pack_ansor(tmp_path / "raw", tmp_path / "data")
    raw, packed = counts(tmp_path / "raw"), counts(tmp_path / "data")
    assert raw == packed == [
        {"hardware": "llvm-x-2c", "networks": ["net"], "logs": 1, "records": 5, "valid": 4,
         "workloads": 1, "run_records": 0, "run_seconds": 0.0}
    ]  # fmt: skip


def test_the_card_counts_each_network_and_says_how_it_was_measured(tmp_path):
    import json

    from tvm_gnn.dataset.ansor_archive import write_card

    folder = _raw(tmp_path / "raw", lines=3)
    task = {"workload_key": "k", "log": f"measure_records/{LOG}", "weight": 1, "desc": "d"}
    other = {**task, "log": "measure_records/none.json"}  # a task not measured yet
    (folder / "network_info" / "net.json").write_text(json.dumps({"tasks": [task, other]}))
    (folder / "network_info" / "resnet18.json").write_text(json.dumps({"tasks": [task]}))
    run = {"cpu_model": "AMD EPYC", "cpu_id": {"llvm": "znver3"}, "cores": 2, "target": "llvm",
           "tvm_version": "0.19.0", "measure": {"number": 3}, "collect": {"seed": 0},
           "measured": 3, "seconds": 6.0}  # fmt: skip
    (folder / "network_info" / "provenance.jsonl").write_text(json.dumps(run) + "\n")
    pack_ansor(tmp_path / "raw", tmp_path / "data")
    (card,) = write_card(tmp_path / "data", held_out=("resnet18",))
    text = open(card).read()
    assert text.startswith("# Ansor dataset: llvm-x-2c\n")
    assert "**3 valid of 3 records over 1 distinct workloads, from 2 networks.**" in text
    assert "AMD EPYC (LLVM `znver3`), 2 cores" in text and "2.00 s a record" in text
    assert "| net | training | 2 | 1 | 3 | 3 |" in text
    assert "| resnet18 | held out (test) | 1 | 1 | 3 | 3 |" in text
