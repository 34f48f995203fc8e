"""Versions indexed into one file reuse the bodies of sites whose inputs did not change
(`store.encoding.Memo`): what is stored is exactly what a run without the memo stores."""

import sqlite3

from errdex.analyze.dataset import Finisher
from errdex.pipeline import index_source
from errdex.store import Store, publish

from .conftest import SAMPLE, write_sample


def _count_own(monkeypatch) -> list[int]:
    """Count the records completed by `Finisher.own` (publishes this small encode in this process)."""
    calls = [0]
    own = Finisher.own

    def counted(self, record):
        calls[0] += 1
        own(self, record)

    monkeypatch.setattr(Finisher, "own", counted)
    return calls


def _versions(tmp_path, db, calls=None) -> list[int]:
    """Index three versions of the sample into `db` (the third changes one message in core.py);
    return how many records each version completed (`calls`: from `_count_own`)."""
    src = write_sample(tmp_path / f"src-{db.stem}", SAMPLE)
    counts = []
    for version in ("1", "2", "3"):
        if version == "3":
            core = src / "widgets/core.py"
            core.write_text(core.read_text().replace("negative size {n}", "size {n} is negative"))
        before = calls[0] if calls else 0
        index_source(str(src), db, jobs=1, repo="acme/widgets", version=version)
        counts.append(calls[0] - before if calls else 0)
    return counts


def _records(db, version):
    with Store.open(db, readonly=True) as store:
        out = {}
        for r in store.iter_records(f"acme/widgets@{version}"):
            r.pop("analyzedAt")
            out[r["id"]] = r
        return out


def test_a_later_version_reuses_unchanged_bodies_and_stores_the_same(tmp_path, monkeypatch):
    calls = _count_own(monkeypatch)
    counts = _versions(tmp_path, tmp_path / "memo.db", calls)
    monkeypatch.setattr(publish, "_memo", lambda *a: None)
    plain = _versions(tmp_path, tmp_path / "plain.db", calls)

    total = len(_records(tmp_path / "plain.db", "3"))
    assert plain == [total, total, total]
    # version 1: no other dataset, no memo; version 2 stores the keys; version 3 completes only the edited site
    assert counts == [total, total, 1]
    for version in ("1", "2", "3"):
        assert _records(tmp_path / "memo.db", version) == _records(tmp_path / "plain.db", version)


def test_removing_datasets_drops_the_keys_of_the_bodies_it_frees(tmp_path):
    db = tmp_path / "memo.db"
    _versions(tmp_path, db)
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM body_prekeys").fetchone()[0] > 0
    conn.close()
    with Store.open(db) as store:
        for version in ("1", "2", "3"):
            store.remove_dataset(f"acme/widgets@{version}")
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM record_bodies").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM body_prekeys").fetchone()[0] == 0
    conn.close()


def test_a_body_is_reused_only_by_the_code_that_wrote_it(tmp_path, monkeypatch):
    db = tmp_path / "memo.db"
    _versions(tmp_path, db)
    calls = _count_own(monkeypatch)
    index_source(str(tmp_path / "src-memo"), db, jobs=1, repo="acme/widgets", version="4")
    assert calls[0] == 0   # the source of version 3, the same code: every body reused
    monkeypatch.setattr("errdex.analyze.dataset._OWN_VERSION", b"another errdex")
    index_source(str(tmp_path / "src-memo"), db, jobs=1, repo="acme/widgets", version="5")
    assert calls[0] == len(_records(db, "5"))   # another errdex's bodies: every record completed again
