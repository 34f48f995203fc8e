"""The history of one error site across the datasets of its repo.

`site_history(store, id)` lists the versions holding the site with its
template and condition at each, first and last seen. When the datasets are
commits indexed from a git range (`errdex index --rev`), it also says in
which commit the site was introduced and in which commit its message (the
raise statement's lines and the template) and its guard (the enclosing
block headers and the condition) were last changed, by comparing the
per-commit records line by line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from packaging.version import InvalidVersion, Version

from errdex.models import DatasetInfo
from errdex.store import Store
from errdex.store.versions import CommitInfo, commits, record_in_datasets
from errdex.versions.lines import guard_lines, raise_lines


@dataclass(slots=True)
class HistoryEntry:
    """The site as one dataset has it."""

    dataset: str
    version: str
    sha: str | None
    file_path: str
    line: int
    template: str
    condition: str | None
    error_class: str | None
    identity: str


@dataclass(slots=True)
class CommitRef:
    """A commit the history points at; `before_range` when the change predates the indexed range."""

    sha: str
    committed_at: int
    author: str
    subject: str
    before_range: bool = False


@dataclass(slots=True)
class SiteProvenance:
    """When the site appeared and when its message and guard last changed (git ranges only)."""

    introduced: CommitRef
    message_changed: CommitRef
    guard_changed: CommitRef


@dataclass(slots=True)
class SiteHistory:
    """Every version of the repo that holds the site, oldest first."""

    id: str
    repo: str
    entries: list[HistoryEntry]
    missing: list[str] = field(default_factory=list)    # versions between first and last seen without it
    provenance: SiteProvenance | None = None

    @property
    def first_seen(self) -> str:
        return self.entries[0].version

    @property
    def last_seen(self) -> str:
        return self.entries[-1].version

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "repo": self.repo, "firstSeen": self.first_seen, "lastSeen": self.last_seen,
                "versions": [_camel(asdict(e)) for e in self.entries], "missing": self.missing,
                "provenance": None if self.provenance is None else
                {k: _camel(v) for k, v in asdict(self.provenance).items()}}


def _camel(d: dict) -> dict:
    return {"".join(w if i == 0 else w.title() for i, w in enumerate(k.split("_"))): v for k, v in d.items()}


def order_datasets(infos: list[DatasetInfo], known: dict[str, CommitInfo]) -> list[DatasetInfo]:
    """Oldest first: by commit date for indexed commits, else by version number, else publish order."""
    if infos and all(i.version in known for i in infos):
        return sorted(infos, key=lambda i: (known[i.version].committed_at, i.id))
    try:
        return sorted(infos, key=lambda i: (Version(i.version), i.id))
    except InvalidVersion:
        return sorted(infos, key=lambda i: i.id)


def site_history(store: Store, record_id: str) -> SiteHistory | None:
    """The site's history, or None when no dataset holds `record_id`."""
    found = record_in_datasets(store, record_id.strip().lower())
    if not found:
        return None
    repo = found[-1][0].repo
    known = commits(store, repo)
    all_versions = order_datasets([d for d in store.datasets() if d.repo == repo], known)
    by_dataset = {info.id: record for info, record in found if info.repo == repo}
    present = [(info, by_dataset[info.id]) for info in all_versions if info.id in by_dataset]
    entries = [_entry(info, record) for info, record in present]
    first = all_versions.index(present[0][0])
    last = all_versions.index(present[-1][0])
    missing = [d.version for d in all_versions[first:last + 1] if d.id not in by_dataset]
    history = SiteHistory(record_id, repo, entries, missing)
    if all(info.version in known for info, _ in present):
        history.provenance = _provenance(present, known, first == 0)
    return history


def single_version_history(info: DatasetInfo, record: dict) -> SiteHistory:
    """The history of a site of a repo indexed once: that one entry, read from the record in hand."""
    return SiteHistory(record["id"], info.repo, [_entry(info, record)])


def _entry(info: DatasetInfo, record: dict) -> HistoryEntry:
    extra = record.get("errdex") or {}
    return HistoryEntry(info.name, info.version, info.sha, record.get("filePath") or "",
                        record.get("lineNumber") or 0, record.get("errorMessage") or "",
                        extra.get("condition"), record.get("errorClass"), extra.get("identity") or "same-key")


def _provenance(present: list[tuple[DatasetInfo, dict]], known: dict[str, CommitInfo],
                from_first: bool) -> SiteProvenance:
    """Walk the per-commit records oldest first; the last commit where a compared part differs wins."""
    def ref(index: int) -> CommitRef:
        c = known[present[index][0].version]
        return CommitRef(c.sha, c.committed_at, c.author, c.subject, before_range=index == 0 and from_first)

    def message(record: dict) -> tuple:
        return record.get("errorMessage"), raise_lines(record)

    def guard(record: dict) -> tuple:
        return (record.get("errdex") or {}).get("condition"), guard_lines(record)

    message_at = guard_at = 0
    for i in range(1, len(present)):
        before, after = present[i - 1][1], present[i][1]
        if message(before) != message(after):
            message_at = i
        if guard(before) != guard(after):
            guard_at = i
    return SiteProvenance(ref(0), ref(message_at), ref(guard_at))
