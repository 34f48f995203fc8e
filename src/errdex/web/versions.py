"""Versions for the pages, the API and the static export: which datasets to compare, a diff, a site's history.

The diff and history themselves come from `errdex.versions`; this module picks
sensible defaults (the two most recent datasets of a repo, oldest first by
commit date or version number), turns a bad dataset name into an input
error, and bundles what the templates need beside the raw results.
"""

from __future__ import annotations

from dataclasses import dataclass

from errdex.models import DatasetInfo
from errdex.store import Store, StoreError
from errdex.store.versions import commits
from errdex.versions.diff import DatasetDiff, diff_datasets
from errdex.versions.history import SiteHistory, order_datasets, site_history

#: Most sites listed per section of a diff page; the JSON API has them all.
MAX_LISTED = 500
#: Query time a diff may take: it reads every record the two datasets do not share, once per
#: pair (the answer is cached); a request's usual limit is `database.QUERY_TIME_LIMIT_S`.
DIFF_TIME_LIMIT_S = 30.0
#: Most "compare with" links on a dataset page.
MAX_COMPARE_LINKS = 5


class DiffInputError(ValueError):
    """A dataset name given to the diff is unknown (the pages answer 400)."""


@dataclass(frozen=True, slots=True)
class DiffView:
    """A diff with the two datasets it compares, for the diff page."""

    a: DatasetInfo
    b: DatasetInfo
    diff: DatasetDiff

    @property
    def same_repo(self) -> bool:
        return self.a.repo == self.b.repo


@dataclass(frozen=True, slots=True)
class HistoryView:
    """A site's history and how many versions of its repo are indexed (for the one-version note)."""

    history: SiteHistory
    versions_indexed: int


def repo_versions(store: Store, repo: str, infos: list[DatasetInfo] | None = None) -> list[DatasetInfo]:
    """The datasets of `repo`, oldest first (commit date, else version number, else publish order)."""
    infos = store.datasets() if infos is None else infos
    return order_datasets([d for d in infos if d.repo == repo], commits(store, repo))


def default_pair(store: Store, infos: list[DatasetInfo] | None = None) -> tuple[str | None, str | None]:
    """(older, newer) names of the two most recent datasets of the repo published last."""
    infos = store.datasets() if infos is None else infos
    if not infos:
        return None, None
    versions = repo_versions(store, infos[0].repo, infos)
    older = versions[-2].name if len(versions) > 1 else None
    return older, versions[-1].name


def latest_pairs(store: Store) -> list[tuple[DatasetInfo, DatasetInfo]]:
    """For each repo with two or more datasets, its two most recent (older, newer)."""
    infos = store.datasets()
    pairs = []
    for repo in dict.fromkeys(i.repo for i in infos):
        versions = repo_versions(store, repo, infos)
        if len(versions) > 1:
            pairs.append((versions[-2], versions[-1]))
    return pairs


def compare_links(store: Store, info: DatasetInfo) -> list[tuple[str, str, str]]:
    """(a, b, other version) to compare `info` with the repo's other datasets, nearest versions first."""
    versions = repo_versions(store, info.repo)
    here = next(i for i, d in enumerate(versions) if d.id == info.id)
    others = sorted((d for d in versions if d.id != info.id),
                    key=lambda d: abs(versions.index(d) - here))[:MAX_COMPARE_LINKS]
    return [(d.name, info.name, d.version) if versions.index(d) < here else (info.name, d.name, d.version)
            for d in others]


def dataset_diff(store: Store, a: str, b: str) -> DiffView:
    """The diff from `a` to `b` (names as `resolve_dataset` takes them); `DiffInputError` when one is unknown."""
    try:
        info_a, info_b = store.resolve_dataset(a), store.resolve_dataset(b)
    except StoreError as exc:
        raise DiffInputError(str(exc)) from exc
    return DiffView(info_a, info_b, diff_datasets(store, info_a.name, info_b.name))


def history_view(store: Store, record_id: str, repo: str) -> HistoryView | None:
    """The history of the site `record_id` (a 16-hex id, not a slug), or None when no dataset holds it."""
    history = site_history(store, record_id)
    if history is None:
        return None
    indexed = sum(1 for d in store.datasets() if d.repo == (history.repo or repo))
    return HistoryView(history, indexed)
