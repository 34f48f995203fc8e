"""Queries across datasets for the versions stage: a site in every dataset, indexed commits.

Kept apart from `Store` so the version features add SQL without growing the
core read/write object; each function takes an open `Store`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from errdex.models import DatasetInfo
from errdex.store.bodies import restore_record, restore_site
from errdex.store.store import Store
from errdex.store.windows import window_text


@dataclass(frozen=True, slots=True)
class CommitInfo:
    """One commit indexed from a git range."""

    sha: str
    committed_at: int        # unix seconds (committer date)
    author: str
    subject: str
    parents: tuple[str, ...]


def record_in_datasets(store: Store, record_id: str) -> list[tuple[DatasetInfo, dict[str, Any]]]:
    """The full record with this id in every dataset that holds it, in publish order."""
    infos = {info.id: info for info in store.datasets()}
    rows = store._conn.execute(
        "SELECT dr.dataset_id, b.body, dr.line_number, w.text, dr.related FROM dataset_records dr"
        " JOIN record_bodies b ON b.key = dr.body_key"
        " LEFT JOIN source_windows w ON w.key = dr.window_key WHERE b.record_id = ?"
        " ORDER BY dr.dataset_id", (record_id,))
    return [(infos[ds], restore_record(body, infos[ds], line, window_text(window), related))
            for ds, body, line, window, related in rows]


def site_bodies(store: Store, dataset: DatasetInfo, only: set[str] | None = None) -> Iterator[dict[str, Any]]:
    """The stored bodies of one dataset, positions and window back: no dataset fields or overlays.

    Cheaper than `Store.iter_records` for index-time comparisons that read thousands of records;
    `only` limits it to those record ids (the others are not even decoded).
    """
    rows = store._conn.execute(
        "SELECT b.record_id, b.body, dr.line_number, w.text, dr.related FROM dataset_records dr"
        " JOIN record_bodies b ON b.key = dr.body_key"
        " LEFT JOIN source_windows w ON w.key = dr.window_key WHERE dr.dataset_id = ?", (dataset.id,))
    for record_id, body, line, window, related in rows:
        if only is None or record_id in only:
            yield restore_site(body, line, window_text(window), related, prose=False)



def put_commits(store: Store, repo: str, commits: Iterable[CommitInfo]) -> None:
    """Remember indexed commits (replacing earlier rows for the same sha)."""
    rows = [(repo, c.sha, c.committed_at, c.author, c.subject, " ".join(c.parents)) for c in commits]
    store._write(lambda: store._conn.executemany(
        "INSERT OR REPLACE INTO version_commits (repo, sha, committed_at, author, subject, parents)"
        " VALUES (?, ?, ?, ?, ?, ?)", rows))


def commits(store: Store, repo: str) -> dict[str, CommitInfo]:
    """Indexed commits of `repo` by sha."""
    rows = store._conn.execute(
        "SELECT sha, committed_at, author, subject, parents FROM version_commits WHERE repo = ?", (repo,))
    return {sha: CommitInfo(sha, at, author, subject, tuple(parents.split()))
            for sha, at, author, subject, parents in rows}
