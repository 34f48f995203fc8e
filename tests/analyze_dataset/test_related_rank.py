"""Related ranking against a plain restatement of its rules: same lists, same order, ties included.

The index keeps each record's postings and orders only the records that can
reach the top; the reference below scores every record of the dataset tier by
tier and sorts them all. Keys are drawn at random (seeded) from small pools so
that functions, guards, classes and word sets repeat, long tier keys need the
nearest-window rule, and equal scores are common.
"""

from __future__ import annotations

import bisect
import heapq
import random
from collections import defaultdict
from itertools import chain

from errdex.analyze import related as rel
from errdex.analyze.related import RelatedIndex, RelatedKey


def _keys(seed: int, n: int) -> list[RelatedKey]:
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(60)] + ["common"] * 20
    modules = ["pkg.a", "pkg.b", "pkg.c", None]
    out = []
    for i in range(n):
        module = rng.choice(modules)
        words = frozenset(rng.sample(vocab, rng.randint(0, 6)))
        guards = tuple(dict.fromkeys(rng.choice(["x", "y", "self.n", "cfg.mode", "z"])
                                     for _ in range(rng.randint(0, 6))))
        out.append(RelatedKey(f"id{i}", module, rng.choice(["f", "g", "h", "k"]), guards,
                              rng.choice([None, "ValueError", "TypeError"]), words))
    return out


def _window(members: list[int], me: int) -> list[int]:
    if len(members) <= rel._NEAR:
        return members
    at = bisect.bisect_left(members, me)
    return members[max(0, at - rel._NEAR // 2):at + rel._NEAR // 2 + 1]


def _reference(keys: list[RelatedKey], i: int) -> list[str]:
    """Every tier from scratch for record i: postings by scanning all keys, then one full sort."""
    me = keys[i]
    scores: defaultdict[int, float] = defaultdict(float)
    for j in _window([j for j, k in enumerate(keys) if (k.module, k.function) == (me.module, me.function)], i):
        scores[j] += rel._SAME_FUNCTION
    for g in me.guards[:rel._MAX_GUARDS]:
        for j in _window([j for j, k in enumerate(keys) if k.module == me.module and g in k.guards], i):
            scores[j] += rel._SHARED_GUARD
    if me.error_class:
        same = [j for j, k in enumerate(keys) if (k.module, k.error_class) == (me.module, me.error_class)]
        for j in _window(same, i):
            scores[j] += rel._SAME_CLASS
    if me.words:
        sets = list(dict.fromkeys(k.words for k in keys))
        by_word: dict[str, list[int]] = defaultdict(list)
        for wid, s in enumerate(sets):
            for w in s:
                by_word[w].append(wid)
        rarest = sorted(me.words, key=lambda w: (len(by_word[w]), w))[:rel._PROBE_WORDS]
        postings = [by_word[w] for w in rarest if len(by_word[w]) <= rel._MAX_POSTING]
        similar = [(sets.index(me.words), 1.0)] if not postings else [
            (o, jac) for o in set(chain.from_iterable(postings))
            for common in (len(me.words & sets[o]),)
            for jac in (common / (len(me.words) + len(sets[o]) - common),) if jac >= rel._MIN_JACCARD]
        if len(similar) > rel._CANDIDATES:
            similar = heapq.nlargest(rel._CANDIDATES, similar, key=lambda t: t[1])
        for o, jac in similar:
            for j in _window([j for j, k in enumerate(keys) if k.words == sets[o]], i):
                scores[j] += jac
    scores.pop(i, None)
    order = sorted((-s, 0, abs(j - i), j) if keys[j].module == me.module else (-s, 1, 0, j)
                   for j, s in scores.items())
    return [keys[t[3]].id for t in order[:rel.TOP]]


def test_index_ranks_as_the_rules_say():
    for seed in (1, 2, 3):
        keys = _keys(seed, 260)
        index = RelatedIndex(keys)
        got = [index.related(i) for i in range(len(keys))]
        assert got == [_reference(keys, i) for i in range(len(keys))]
        assert sum(len(r) == rel.TOP for r in got) > 200   # most records fill the list: the cut is exercised
