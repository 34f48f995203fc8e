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
from collections import Counter, defaultdict
from itertools import chain

TOP = 5
_SAME_FUNCTION, _SHARED_GUARD, _SAME_CLASS = 8.0, 4.0, 2.0
_MIN_JACCARD = 0.25
_MAX_POSTING = 120       # words shared by more records than this carry no signal
_NEAR = 16               # of a tier key with more records, only the nearest in the source
_PROBE_WORDS = 3         # candidates for similarity come through a record's rarest words
_CANDIDATES = 12
_MAX_GUARDS = 6          # guard names looked up per record
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_WORD = re.compile(r"[a-z][a-z0-9_]{2,}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_NOT_GUARDS = frozenset({*keyword.kwlist, "self", "cls", "raised", "isinstance", "len", "type", "hasattr",
                         "getattr", "callable", "issubclass", "min", "max", "any", "all", "str", "int",
                         "float", "bool", "list", "tuple", "dict", "set"})


def literal_words(template: str) -> frozenset[str]:
    """Lower-case words of the template's literal text (placeholders removed)."""
    return frozenset(_WORD.findall(_PLACEHOLDER.sub(" ", template or "").lower()))


def guard_names(condition: str | None) -> frozenset[str]:
    """Names (dotted chains kept whole) a condition tests, minus keywords and builtins."""
    if not condition or condition in ("True", "False"):
        return frozenset()
    out = set()
    for name in _NAME.findall(_strip_strings(condition)):
        if name.split(".")[0] not in _NOT_GUARDS and not name[0].isdigit():
            out.add(name)
    return frozenset(out)


def _strip_strings(expr: str) -> str:
    return re.sub(r"'[^']*'|\"[^\"]*\"", " ", expr)


def related_ids(records: list[dict]) -> list[list[str]]:
    """For each record (same order), the ids of its top related records."""
    n = len(records)
    fn_key, guard_keys, class_key, words = [], [], [], []
    by_fn: dict[tuple, list[int]] = defaultdict(list)
    by_guard: dict[tuple, list[int]] = defaultdict(list)
    by_class: dict[tuple, list[int]] = defaultdict(list)
    by_word: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        ex = r["errdex"]
        module = ex.get("module") or r.get("filePath")
        fk = (module, ex.get("function"))
        fn_key.append(fk)
        by_fn[fk].append(i)
        gk = [(module, g) for g in guard_names(ex.get("condition"))]
        guard_keys.append(gk)
        for k in gk:
            by_guard[k].append(i)
        ck = (module, r.get("errorClass")) if r.get("errorClass") else None
        class_key.append(ck)
        if ck:
            by_class[ck].append(i)
        w = literal_words(r.get("errorMessage") or "")
        words.append(w)
        for t in w:
            by_word[t].append(i)
    out = []
    similar_cache: dict[frozenset, list] = {}
    for i in range(n):
        scores: dict[int, float] = {}
        _add(scores, by_fn[fn_key[i]], _SAME_FUNCTION, i)
        for k in guard_keys[i][:_MAX_GUARDS]:
            _add(scores, by_guard[k], _SHARED_GUARD, i)
        if class_key[i]:
            _add(scores, by_class[class_key[i]], _SAME_CLASS, i)
        _add_similar(scores, words, by_word, i, similar_cache)
        scores.pop(i, None)
        best = heapq.nsmallest(TOP, scores.items(), key=lambda kv: (-kv[1], abs(kv[0] - i)))
        out.append([records[j]["id"] for j, _ in best])
    return out


def _add(scores: dict, posting: list[int], weight: float, me: int) -> None:
    """Add `weight` to the records of a tier key; of a long key, only those nearest `me`.

    Records are in file/line order, so "nearest" means closest in the source:
    only TOP of them can be kept anyway.
    """
    if len(posting) > _NEAR:
        at = bisect.bisect_left(posting, me)
        posting = posting[max(0, at - _NEAR // 2):at + _NEAR // 2 + 1]
    for j in posting:
        scores[j] = scores.get(j, 0.0) + weight


def _add_similar(scores: dict, words: list[frozenset], by_word: dict, me: int, cache: dict) -> None:
    """Jaccard on literal words, for candidates found through the record's rarest words.

    Many records share a word set (the same message in several places), so
    the candidates are computed once per word set.
    """
    mine = words[me]
    if not mine:
        return
    found = cache.get(mine)
    if found is None:
        found = cache[mine] = _similar(mine, words, by_word)
    for j, jac in found:
        if j != me:
            scores[j] = scores.get(j, 0.0) + jac


def _similar(mine: frozenset, words: list[frozenset], by_word: dict) -> list[tuple[int, float]]:
    postings = [p for p in sorted((by_word[w] for w in mine), key=len)[:_PROBE_WORDS] if len(p) <= _MAX_POSTING]
    if not postings:
        return []
    counts = Counter(chain.from_iterable(postings)) if len(postings) > 1 else dict.fromkeys(postings[0], 1)
    size = len(mine)
    out = []
    for j in counts:
        other = words[j]
        common = len(mine & other)
        jac = common / (size + len(other) - common)
        if jac >= _MIN_JACCARD:
            out.append((j, jac))
    if len(out) > _CANDIDATES:
        out = heapq.nlargest(_CANDIDATES, out, key=lambda t: t[1])
    return out
