"""Related errors: the top few other records a reader of one record should look at.

Ranked by tiers, strongest first: raised in the same function, sharing a
guard variable (a name in both conditions, within one module), the same
class raised in the same module, then similar message templates (token
Jaccard over the literal words). Every tier is looked up through an inverted
index, never by comparing all pairs; very common keys (a word in thousands of
messages, a function with hundreds of sites) are capped so one record's work
stays bounded.
"""

from __future__ import annotations

import bisect
import heapq
import keyword
import re
from collections import defaultdict
from itertools import chain
from typing import NamedTuple

TOP = 5
_SAME_FUNCTION, _SHARED_GUARD, _SAME_CLASS = 8.0, 4.0, 2.0
_MIN_JACCARD = 0.25
_MAX_POSTING = 40        # words shared by more records than this carry no signal
_NEAR = 10               # of a tier key with more records, only the nearest in the source
_PROBE_WORDS = 3         # candidates for similarity come through a record's rarest words
_CANDIDATES = 8
_GUARD_TEXT = 300         # characters of the condition read for guard names
_MAX_GUARDS = 4          # guard names looked up per record
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_WORD = re.compile(r"[a-z][a-z0-9_]{2,}")
_NOT_GUARDS = frozenset({*keyword.kwlist, "self", "cls", "raised", "isinstance", "len", "type", "hasattr",
                         "getattr", "callable", "issubclass", "min", "max", "any", "all", "str", "int",
                         "float", "bool", "list", "tuple", "dict", "set"})


_WORDS_CACHE: dict[str, frozenset[str]] = {}
_GUARDS_CACHE: dict[str, tuple[str, ...]] = {}


def literal_words(template: str) -> frozenset[str]:
    """Lower-case words of the template's literal text (placeholders removed; cached: templates repeat)."""
    found = _WORDS_CACHE.get(template)
    if found is None:
        found = frozenset(_WORD.findall(_PLACEHOLDER.sub(" ", template or "").lower()))
        if len(_WORDS_CACHE) < 200_000:
            _WORDS_CACHE[template] = found
    return found


def guard_names(condition: str | None) -> tuple[str, ...]:
    """Names (dotted chains kept whole) a condition tests, minus keywords and builtins, nearest the site first.

    An ordered tuple, not a set: only the first `_MAX_GUARDS` are looked up,
    and a set's order would change with the hash seed from run to run.
    """
    if not condition or condition in ("True", "False"):
        return ()
    found = _GUARDS_CACHE.get(condition)
    if found is None:
        # The guards nearest the site come last; a long conjunction's head adds little but cost.
        names = _NAME_OUTSIDE_STRINGS.findall(condition[-_GUARD_TEXT:])   # "" for each string literal
        names.reverse()
        found = tuple(dict.fromkeys([n for n in names if n and n.partition(".")[0] not in _NOT_GUARDS]))
        if len(_GUARDS_CACHE) < 200_000:
            _GUARDS_CACHE[condition] = found
    return found


#: A string literal (matched to be skipped) or a name: one scan finds the names outside strings.
_NAME_OUTSIDE_STRINGS = re.compile(r"'[^']*'|\"[^\"]*\"|([A-Za-z_][A-Za-z0-9_.]*)")


class RelatedKey(NamedTuple):
    """What ranking reads of one record: kept small so a re-index can store it and rank a few records again."""

    id: str
    module: str | None
    function: str | None
    guards: tuple[str, ...]
    error_class: str | None
    words: frozenset[str]

    @classmethod
    def of(cls, record: dict) -> RelatedKey:
        ex = record["errdex"]
        return _new_key(cls, (record["id"], ex.get("module") or record.get("filePath"), ex.get("function"),
                              guard_names(ex.get("condition")), record.get("errorClass"),
                              literal_words(record.get("errorMessage") or "")))


_new_key = tuple.__new__   # what `RelatedKey._make` calls, without its Python frame


class RelatedIndex:
    """The inverted indexes over a dataset's keys (records in file/line order).

    Each record keeps the postings of its own tier keys (the lists themselves,
    complete once every key is added), so ranking one looks nothing up by key.
    """

    def __init__(self, keys: list[RelatedKey]) -> None:
        self.keys = keys
        self.by_fn: dict[tuple, list[int]] = defaultdict(list)
        self.by_guard: dict[tuple, list[int]] = defaultdict(list)
        self.by_class: dict[tuple, list[int]] = defaultdict(list)
        self.word_sets = _WordSets()
        self.modules: list[str | None] = []
        self.fn_posting: list[list[int]] = []              # by_fn of the record's function
        self.guard_postings: list[list[list[int]]] = []    # by_guard of its first _MAX_GUARDS guards
        self.class_posting: list[list[int] | None] = []    # by_class of its class (None without one)
        self.words: list[int] = []                          # its word set's id
        by_fn, by_guard, by_class = self.by_fn, self.by_guard, self.by_class
        add_words = self.word_sets.add
        for i, (_, module, function, guards, error_class, words) in enumerate(keys):
            self.modules.append(module)
            posting = by_fn[(module, function)]
            posting.append(i)
            self.fn_posting.append(posting)
            mine = []
            for n, g in enumerate(guards):
                posting = by_guard[(module, g)]
                posting.append(i)
                if n < _MAX_GUARDS:
                    mine.append(posting)
            self.guard_postings.append(mine)
            if error_class:
                posting = by_class[(module, error_class)]
                posting.append(i)
                self.class_posting.append(posting)
            else:
                self.class_posting.append(None)
            self.words.append(add_words(words, i))

    def related(self, i: int) -> list[str]:
        """The ids of record i's top related records."""
        keys = self.keys
        return [keys[j].id for j in self.ranked(i)]

    def sharing_words(self, i: int) -> list[int]:
        """Records whose ranking record i's words can reach: they share a word rare enough to be probed.

        Adding or removing record i changes only these records' similarity candidates (a word's
        posting grows or shrinks by one, so one at the cap may cross it).
        """
        sets = self.word_sets
        out: list[int] = []
        for w in sets.sets[self.words[i]]:
            posting = sets.by_word[w]
            if len(posting) <= _MAX_POSTING + 1:
                out.extend(j for wid in posting for j in sets.members[wid])
        return out

    def ranked(self, i: int) -> list[int]:
        """The TOP records of the highest score for record i; ties go to the nearest in the source.

        The tiers add their weights in a fixed order (function, guards, class, then similarity),
        so equal sums are equal floats and ties fall to the distance.
        """
        scores: defaultdict[int, float] = defaultdict(float)
        posting = self.fn_posting[i]
        for j in (posting if len(posting) <= _NEAR else _near(posting, i)):
            scores[j] += _SAME_FUNCTION
        for posting in self.guard_postings[i]:
            for j in (posting if len(posting) <= _NEAR else _near(posting, i)):
                scores[j] += _SHARED_GUARD
        posting = self.class_posting[i]
        if posting is not None:
            for j in (posting if len(posting) <= _NEAR else _near(posting, i)):
                scores[j] += _SAME_CLASS
        self.word_sets.add_scores(scores, self.words[i], i)
        scores.pop(i, None)
        items = scores.items()
        if len(scores) > TOP:
            # Only records scoring at least the TOP-th best score can be in the top: order just those.
            cut = sorted(scores.values(), reverse=True)[TOP - 1]
            items = [(j, s) for j, s in items if s >= cut]
        # Ties: the same module's nearest first, then dataset order. Distances are never compared across
        # modules, so records added or removed elsewhere cannot reorder this list (`errdex.delta`).
        modules = self.modules
        module = modules[i]
        keyed = sorted([(-s, 0, j - i if j > i else i - j, j) if modules[j] == module else (-s, 1, 0, j)
                        for j, s in items])
        return [t[3] for t in keyed[:TOP]]


def _near(posting: list[int], me: int) -> list[int]:
    """Of a long tier key's records, only those nearest `me`.

    Records are in file/line order, so "nearest" means closest in the source:
    only TOP of them can be kept anyway.
    """
    at = bisect.bisect_left(posting, me)
    return posting[max(0, at - _NEAR // 2):at + _NEAR // 2 + 1]


class _WordSets:
    """Literal word sets, interned: many records share one (the same message in several places)."""

    def __init__(self) -> None:
        self.ids: dict[frozenset, int] = {}
        self.sets: list[frozenset] = []
        self.sizes: list[int] = []
        self.members: list[list[int]] = []
        self.by_word: dict[str, list[int]] = defaultdict(list)
        self.similar: dict[int, list[tuple[int, float]]] = {}
        self.rank: dict[str, int] | None = None   # each word's place, rarest first (see `_rarity`)

    def add(self, words: frozenset, record: int) -> int:
        wid = self.ids.get(words)
        if wid is None:
            wid = self.ids[words] = len(self.sets)
            self.sets.append(words)
            self.sizes.append(len(words))
            self.members.append([])
            for w in words:
                self.by_word[w].append(wid)
            self.rank = None
        self.members[wid].append(record)
        return wid

    def similar_sets(self, wid: int) -> list[tuple[int, float]]:
        found = self.similar.get(wid)
        if found is None:
            found = self.similar[wid] = self._similar(wid)
        return found

    def add_scores(self, scores: dict, wid: int, me: int) -> None:
        if not self.sizes[wid]:
            return
        found = self.similar.get(wid)
        if found is None:
            found = self.similar[wid] = self._similar(wid)
        all_members = self.members
        for other, jac in found:
            members = all_members[other]
            for j in (members if len(members) <= _NEAR else _near(members, me)):
                scores[j] += jac

    def _rarity(self) -> dict[str, int]:
        """Each word's place when sorted by posting length, then by the word: one sort for all sets.

        The word breaks ties because a frozenset's order changes with the hash seed from run to run.
        """
        if self.rank is None:
            by_word = self.by_word
            self.rank = {w: n for n, w in enumerate(sorted(by_word, key=lambda w: (len(by_word[w]), w)))}
        return self.rank

    def _similar(self, wid: int) -> list[tuple[int, float]]:
        """Word sets with Jaccard >= _MIN_JACCARD, found through this set's rarest words."""
        mine = self.sets[wid]
        by_word = self.by_word
        rarest = sorted(mine, key=self._rarity().__getitem__)[:_PROBE_WORDS]
        postings = [p for p in (by_word[w] for w in rarest) if len(p) <= _MAX_POSTING]
        if not postings:
            return [(wid, 1.0)]
        candidates = set(chain.from_iterable(postings))
        size = len(mine)
        sets, sizes = self.sets, self.sizes
        out = []
        lo, hi = size * _MIN_JACCARD, size / _MIN_JACCARD   # |B| outside these cannot reach the threshold
        for other in candidates:
            n = sizes[other]
            if lo <= n <= hi:
                common = len(mine & sets[other])
                jac = common / (size + n - common)
                if jac >= _MIN_JACCARD:
                    out.append((other, jac))
        if len(out) > _CANDIDATES:
            out = heapq.nlargest(_CANDIDATES, out, key=lambda t: t[1])
        return out
