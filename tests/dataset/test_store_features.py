"""TVM's per-store features of each measured program, summarized and cached."""

import numpy as np
import pytest

from tvm_gnn import dataset as data
from tvm_gnn.dataset.store_features import summarize


def test_summarize_is_mean_max_and_log_count():
    rows = np.array([[1.0, 4.0], [3.0, 0.0], [2.0, 2.0]], dtype=np.float32)
    assert summarize(rows).tolist() == [2.0, 2.0, 3.0, 4.0, 2.0]  # log2(1 + 3) = 2
    assert summarize(np.zeros((0, 2))).tolist() == [0.0] * 5
    with pytest.raises(ValueError, match="stores, F"):
        summarize(np.zeros(3))


def test_store_features_match_tvms_extractor_and_are_cached(packed, tmp_path):
    from tvm.s_tir import meta_schedule as ms

    graphs, samples = data.load_graphs(packed, cache_dir=tmp_path / "cache")
    rows = data.load_store_features(packed, cache_dir=tmp_path / "cache")
    assert set(rows) == {(s.network, s.line) for s in samples}
    # the first program again, straight from TVM's extractor
    folder = next(f for _, _, f in data.network_folders(packed))
    s, record, cand = next(data.distinct_programs(folder))
    ctx = ms.TuneContext(mod=record.workload.mod, target={"kind": "llvm", "num-cores": 2})
    direct = ms.feature_extractor.PerStoreFeature().extract_from(ctx, [cand])[0].numpy()
    np.testing.assert_allclose(rows[(s.network, s.line)], summarize(direct), rtol=1e-6)
    cache = list((tmp_path / "cache").rglob("*.npz"))
    assert len(cache) == 1
    cache[0].write_bytes(b"cut")  # a broken cache is rebuilt, not trusted
    again = data.load_store_features(packed, cache_dir=tmp_path / "cache")
    assert all(np.array_equal(again[k], rows[k]) for k in rows)
