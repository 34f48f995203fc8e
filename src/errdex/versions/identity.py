"""Site identity across versions: a record whose id is new may be an old site renamed or reworded.

`records.record_id` already keeps the id while file path, function and
template stay the same. Here, at index time, the records of a new dataset are
matched against the previous dataset of the same repo: a record whose id is
new takes the id of a disappeared previous record when the template and the
surrounding code say it is the same site. `errdex.identity` says why a
record carries its id:

- "same-key": the id is the hash of its own path, function and template;
- "renamed-file": same function name and template, file moved;
- "renamed-function": same file and template, enclosing function renamed;
- "moved": same template, file and function both changed, near-identical code;
- "changed-message": same file and function, template reworded.

A record whose id is carried over by exact key match inherits the previous
record's identity, so unchanged sites keep identical (shared) bodies.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

SAME_KEY = "same-key"

#: Minimum source-window similarity (0..1) for each recognition rule.
_RENAMED_MIN = 0.5
_MOVED_MIN = 0.8
_REWORDED_MIN = 0.6
#: A template with less literal text than this says little about where a site went.
_MIN_LITERAL = 6
#: Window comparisons allowed per group; a larger group (a generic template) is left unmatched.
_MAX_PAIRS = 400


@dataclass(slots=True)
class SiteKey:
    """What identifies a site, read from a record."""

    id: str
    path: str
    function: str
    template: str
    error_class: str | None
    source: list[str]
    identity: str
    literal: int         # characters of literal text in the template

    @classmethod
    def of(cls, record: dict) -> SiteKey:
        extra = record.get("errdex") or {}
        return cls(record["id"], record.get("filePath") or "", extra.get("function") or "",
                   record.get("errorMessage") or "", record.get("errorClass"),
                   (record.get("sourceCode") or "").split("\n"), extra.get("identity") or SAME_KEY,
                   int(extra.get("literalLength") or len(record.get("errorMessage") or "")))

    @property
    def short_function(self) -> str:
        return self.function.rsplit(".", 1)[-1]


@dataclass(slots=True)
class IdentityLink:
    """One new record recognised as a previous site."""

    new_id: str         # the id the record was built with
    old_id: str         # the id it keeps
    how: str
    similarity: float


def similarity(a: list[str], b: list[str], minimum: float = 0.0) -> float:
    """How alike two source windows are, ignoring indentation (0 when below `minimum` by a cheap bound)."""
    matcher = difflib.SequenceMatcher(None, [s.strip() for s in a], [s.strip() for s in b], autojunk=False)
    if matcher.real_quick_ratio() < minimum or matcher.quick_ratio() < minimum:
        return 0.0
    return matcher.ratio()


def link_identities(records: list[dict], previous: Iterable[dict],
                    prev_ids: set[str] | None = None) -> list[IdentityLink]:
    """Give recognised sites their previous id, in place; set `errdex.identity` on every record.

    `previous` are the records of the previous dataset of the same repo (or only
    those whose id disappeared, with `prev_ids` then naming all of its ids).
    Returns the links made (records whose id changed).
    """
    prev = [SiteKey.of(r) for r in previous]
    new_ids = {r["id"] for r in records}
    prev_ids = {p.id for p in prev} if prev_ids is None else prev_ids
    for r in records:
        r.setdefault("errdex", {}).setdefault("identity", SAME_KEY)
    gone = [p for p in prev if p.id not in new_ids]
    fresh = [r for r in records if r["id"] not in prev_ids]
    if not gone or not fresh:
        return []
    made = []
    for record, old, how, score in _match(fresh, gone):
        made.append(IdentityLink(record["id"], old.id, how, score))
        record["id"] = old.id
        record["errdex"]["identity"] = how
    return made


_Rule = tuple[str, Callable[[SiteKey], tuple], Callable[[SiteKey, SiteKey], bool], float]

_RULES: tuple[_Rule, ...] = (
    # (how, grouping key, extra condition new vs old, minimum similarity)
    ("key", lambda s: (s.path, s.function, s.template), lambda n, o: True, 0.0),
    ("renamed-file", lambda s: (s.short_function, s.template), lambda n, o: n.path != o.path, _RENAMED_MIN),
    ("renamed-function", lambda s: (s.path, s.template), lambda n, o: n.function != o.function, _RENAMED_MIN),
    ("moved", lambda s: (s.template,), lambda n, o: True, _MOVED_MIN),
    ("changed-message", lambda s: (s.path, s.function, s.error_class), lambda n, o: True, _REWORDED_MIN),
)


def _match(fresh: list[dict], gone: list[SiteKey]) -> list[tuple[dict, SiteKey, str, float]]:
    """Apply the rules in order; each previous site is taken at most once, best similarity first."""
    out: list[tuple[dict, SiteKey, str, float]] = []
    left = {r["id"]: (r, SiteKey.of(r)) for r in fresh}
    free = {o.id: o for o in gone}
    for how, group_key, accept, minimum in _RULES:
        by_group: dict[tuple, list[SiteKey]] = defaultdict(list)
        for o in free.values():
            by_group[group_key(o)].append(o)
        fresh_per_group: dict[tuple, int] = defaultdict(int)
        for _, key in left.values():
            fresh_per_group[group_key(key)] += 1
        pairs = []
        for rid, (record, key) in left.items():
            group = by_group.get(group_key(key), ())
            if not group or not _worth_comparing(how, key, len(group) * fresh_per_group[group_key(key)]):
                continue
            for o in group:
                if accept(key, o):
                    score = _score(how, key, o, len(group), minimum)
                    if score >= minimum:
                        pairs.append((score, rid, o.id))
        pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
        for score, rid, oid in pairs:
            if rid in left and oid in free:
                record, _ = left.pop(rid)
                old = free.pop(oid)
                out.append((record, old, old.identity if how == "key" else how, score))
    return out


def _worth_comparing(how: str, key: SiteKey, pairs: int) -> bool:
    """Exact keys always; otherwise only templates with real text, in groups of bounded size."""
    if how == "key":
        return True
    if how in ("renamed-file", "moved") and key.literal < _MIN_LITERAL:
        return False
    return pairs <= _MAX_PAIRS


def _score(how: str, new: SiteKey, old: SiteKey, candidates: int, minimum: float) -> float:
    """Similarity of the windows; an exact key with one candidate needs no comparison."""
    if how == "key" and candidates == 1:
        return 1.0
    return similarity(new.source, old.source, minimum)


def previous_dataset(datasets: list, repo: str, version: str):
    """The dataset to compare a new (repo, version) with: its own earlier copy, else the repo's latest."""
    same_repo = [d for d in datasets if d.repo == repo]  # most recently published first
    return next((d for d in same_repo if d.version == version), None) or (same_repo[0] if same_repo else None)


def link_to_previous(store, repo: str, version: str, records: list[dict]) -> list[IdentityLink]:
    """The pipeline's hook: match `records` against the previous dataset of `repo` in `store`."""
    from errdex.store.versions import site_bodies

    prev = previous_dataset(store.datasets(), repo, version)
    if prev is None:
        return link_identities(records, ())
    prev_ids = store.record_ids(prev.id)
    gone = prev_ids - {r["id"] for r in records}
    # Only sites that disappeared can be matched: the rest keep their id by key.
    return link_identities(records, site_bodies(store, prev, only=gone), prev_ids)
