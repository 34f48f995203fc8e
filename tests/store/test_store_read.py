"""Reading: dataset resolution, record lookup, filters, FTS search, stats."""

from __future__ import annotations

import pytest

from errdex.models import Diagnostic
from errdex.store import Store, StoreError
from .store_factories import make_meta, make_record


@pytest.fixture
def filled(store: Store) -> Store:
    """Two versions of acme/widgets and one of other/lib, published in that order."""
    v1 = [make_record(n, path=f"pkg/core/m{n % 2}.py") for n in range(6)]
    v1.append(make_record(6, path="pkg/io/files.py", error_class="errors.KernelLimitError",
                          message="Packed decode kernel only supports NK=1 (got K={K})",
                          errorType="exception", backgroundTag="kernel-limit",
                          tags=["kernel-limit", "triton"]))
    v1.append(make_record(7, path="pkg/io/warn.py", error_class="UserWarning", errorType="warning",
                          severity="warning", message="widget cache is stale"))
    store.publish(make_meta("1.0"), v1, [Diagnostic("pkg/bad.py", "syntax", "invalid syntax"),
                                         Diagnostic("pkg/old.py", "python2", "print statement"),
                                         Diagnostic("pkg/bad2.py", "syntax", "invalid syntax")])
    v2 = [make_record(n, path=f"pkg/core/m{n % 2}.py") for n in range(4)]
    v2[0]["documentation"] = "Changed in version two."
    store.publish(make_meta("2.0"), v2, [])
    store.publish(make_meta("0.1", repo="other/lib"), [make_record(50)], [])
    return store


def test_resolve_dataset_by_name_repo_and_latest(filled: Store) -> None:
    assert filled.resolve_dataset(None).name == "other/lib@0.1"
    assert filled.resolve_dataset("acme/widgets").name == "acme/widgets@2.0"
    assert filled.resolve_dataset("widgets").name == "acme/widgets@2.0"
    assert filled.resolve_dataset("acme/widgets@1.0").version == "1.0"
    with pytest.raises(StoreError) as error:
        filled.resolve_dataset("acme/widgets@9")
    assert "acme/widgets@1.0" in str(error.value) and "other/lib@0.1" in str(error.value)


def test_resolve_dataset_on_empty_store(store: Store) -> None:
    with pytest.raises(StoreError, match="no datasets in .*run errdex index first"):
        store.resolve_dataset(None)


def test_get_record_by_id_prefers_most_recent_dataset(filled: Store) -> None:
    hit = filled.get_record(f"{0:016x}")
    assert hit["dataset"] == "acme/widgets@2.0"
    assert hit["record"]["documentation"] == "Changed in version two."
    assert hit["datasetVersion"] == filled.resolve_dataset("acme/widgets@2.0").published_at
    older = filled.get_record(f"{0:016X}", "acme/widgets@1.0")  # ids are case-insensitive
    assert older["record"]["documentation"] == "Raised when widget 0 is out of range."
    assert filled.get_record(f"{6:016x}")["dataset"] == "acme/widgets@1.0"
    assert filled.get_record("ffffffffffffffff") is None


def test_get_record_by_slug(filled: Store) -> None:
    hit = filled.get_record("packed-decode-kernel-only-supports-nk=1-(got-k=k)")
    assert hit is not None and hit["record"]["id"] == f"{6:016x}"
    assert filled.get_record("no-such-slug") is None


def test_iter_records_ordered_and_filtered(filled: Store) -> None:
    records = list(filled.iter_records("acme/widgets@1.0"))
    keys = [(r["filePath"], r["lineNumber"]) for r in records]
    assert keys == sorted(keys) and len(records) == 8
    by_class = [r["id"] for r in filled.iter_records("acme/widgets@1.0", error_class="KernelLimitError")]
    assert by_class == [f"{6:016x}"]
    assert filled.count_records("acme/widgets@1.0", error_type="warning") == 1
    assert filled.count_records("acme/widgets@1.0", background_tag="kernel-limit") == 1
    assert filled.count_records("acme/widgets@1.0", path_glob="pkg/core/*") == 6
    assert filled.count_records("acme/widgets@1.0", text="widget cache") == 1
    assert filled.count_records() == 8 + 4 + 1
    page = list(filled.iter_records("acme/widgets@1.0", limit=3, offset=2))
    assert [r["id"] for r in page] == [r["id"] for r in records[2:5]]


@pytest.mark.parametrize("hostile", [
    '"', '"unbalanced', "*", "NEAR(", "NEAR(a b", "AND", "a OR", "-", "col:thing",
    "^start", "", "   ", "(((", "'; DROP TABLE datasets; --", "K={K}", "\x00", "ünïcödé*",
])
def test_search_never_raises_on_odd_input(filled: Store, hostile: str) -> None:
    results = filled.search(hostile)
    assert isinstance(results, list)
    assert filled.count_records(text=hostile) >= 0
    assert len(filled.datasets()) == 3


def test_search_ranks_message_matches_first(filled: Store) -> None:
    hits = filled.search("packed decode kernel")
    assert hits[0]["record"]["id"] == f"{6:016x}"
    assert hits[0]["score"] > 0
    stemmed = filled.search("supporting kernels")  # porter stemming
    assert stemmed and stemmed[0]["record"]["id"] == f"{6:016x}"


def test_search_returns_each_record_once_from_latest(filled: Store) -> None:
    hits = filled.search("widget range")
    ids = [h["record"]["id"] for h in hits]
    assert len(ids) == len(set(ids))
    assert {h["dataset"] for h in hits if h["record"]["id"] == f"{1:016x}"} == {"acme/widgets@2.0"}
    scoped = filled.search("widget", "acme/widgets@1.0", limit=50)
    assert {h["dataset"] for h in scoped} == {"acme/widgets@1.0"}
    assert filled.search("widget", "acme/widgets@1.0", error_class="UserWarning")[0]["record"]["id"] \
        == f"{7:016x}"
    assert len(filled.search("widget", limit=2)) == 2


def test_search_falls_back_to_any_word(filled: Store) -> None:
    hits = filled.search("stale zzzunknownword")
    assert [h["record"]["id"] for h in hits] == [f"{7:016x}"]


def test_stats_counts(filled: Store) -> None:
    stats = filled.stats("acme/widgets@1.0")
    assert stats["records"] == 8 and stats["datasets"] == 1
    assert stats["by_error_class"] == {"ValueError": 6, "UserWarning": 1, "errors.KernelLimitError": 1}
    assert stats["by_error_type"] == {"exception": 7, "warning": 1}
    assert stats["by_severity"] == {"error": 7, "warning": 1}
    assert stats["by_background_tag"]["value-range"] == 7
    assert stats["files_with_records"] == 4 and stats["files_indexed"] == 3
    assert stats["diagnostics"] == 3
    assert stats["diagnostics_by_reason"] == {"syntax": 2, "python2": 1}
    overall = filled.stats()
    assert overall["records"] == 13 and overall["datasets"] == 3 and overall["diagnostics"] == 3
