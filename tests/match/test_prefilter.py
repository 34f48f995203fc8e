"""The literal prefilter: a log block's line hits equal those of the full database
scanned over the whole block, including lines whose literal occurs without its pattern."""

import random

import pytest

from errdex.match.engine import MARKER_NAMES, PatternEngine, _collect_offsets
from errdex.match.patterns import RecordRef, line_literal

from .conftest import make_record

hyperscan = pytest.importorskip("hyperscan")

TEMPLATES = [
    "Request {rid} exceeded the token budget of {n}",
    "tensor {name} must be divisible by {k} for the kernel",
    "{x} must be divisible by {k}",                      # shares its literal with the one above
    "Invalid   value {v}\nfor block size",               # whitespace runs, a newline
    "Unsupported activation: {act}",
    "numéro {n} → hors limites",                         # non-ASCII literal bytes
    "x: {y}",                                            # too short: never a candidate
]

LINES = [
    "2024-01-01 INFO step 3 ok",
    "2024-01-01 ERROR w: RuntimeError: Request r1 exceeded the token budget of 4096",
    "2024-01-01 INFO a request exceeded the token budget of 10",       # literal, no pattern
    "2024-01-01 WARN tensor must be divisible by 8",                   # record 1's literal: record 2 only
    "ValueError: tensor q must be divisible by 8 for the kernel",
    "ValueError: Invalid value 3 for block size",
    "Invalid value for block size",                                    # literals, no value between
    "Traceback (most recent call last):",
    '  File "/x/y.py", line 3, in f',
    "E   ValueError: Unsupported activation: gelu",
    "KeyError: a request exceeded the token budget of 3",              # literal + marker, no pattern
    "numéro 4 → hors limites",
    "Unsupported activation: silu and Request r2 exceeded the token budget of 1",   # two records
    "x: 1",
]


def _refs():
    return [RecordRef.from_record(i, make_record(t, line=i + 1)) for i, t in enumerate(TEMPLATES)]


def _full_database_hits(engine: PatternEngine, block: bytes) -> dict:
    """Reference: the full database (line regexes and markers) over the whole block."""
    backend = engine._backend
    raw: list[tuple[int, int]] = []
    backend.db.scan(block, match_event_handler=_collect_offsets, context=raw)
    out: dict[int, tuple] = {}
    for end, pid in raw:
        line_no = block.count(b"\n", 0, end - 1)
        start = block.rfind(b"\n", 0, end - 1) + 1
        cands, markers = out.setdefault(line_no, (start, set(), set()))[1:]
        if pid < backend.marker_base:
            cands.update(backend.targets[pid])
        else:
            markers.add(MARKER_NAMES[pid - backend.marker_base])
    return out


def _hits(engine: PatternEngine, block: bytes) -> dict:
    return {k: (v.start, v.candidates, v.markers) for k, v in engine.scan_block(block).items()}


def test_every_literal_lies_in_any_rendering_as_the_line_regex_sees_it():
    assert line_literal(_refs()[3].chunks) == "for block size"
    assert line_literal(_refs()[1].chunks) == "must be divisible by"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_prefilter_hits_equal_the_full_database_over_the_block(tmp_path, seed):
    rng = random.Random(seed)
    refs = _refs()
    hs = PatternEngine(refs, tmp_path / "engine", backend="hyperscan")
    py = PatternEngine(refs, backend="python")
    lines = [rng.choice(LINES) for _ in range(400)]
    block = ("\n".join(lines) + ("\n" if seed != 2 else "")).encode()   # seed 2: no final newline
    got = _hits(hs, block)
    assert got == _full_database_hits(hs, block)
    assert got == _hits(py, block)
    assert hs.scan_block(block).newlines == block.count(b"\n")
    # Lines whose literal occurs without the pattern are not reported (no marker either).
    quiet = {i for i, line in enumerate(lines) if line in (LINES[2], LINES[6])}
    assert quiet and not quiet & set(got)
    shared = [i for i, line in enumerate(lines) if line == LINES[3]]
    assert shared and all(got[i][1] == {2} for i in shared)
    # A literal on a marker line without its pattern: the markers only.
    marker_only = [i for i, line in enumerate(lines) if line == LINES[10]]
    assert marker_only and all(got[i][1] == set() and got[i][2] == {"errline"} for i in marker_only)
    both = [i for i, line in enumerate(lines) if line == LINES[12]]
    assert both and all(got[i][1] == {0, 4} for i in both)


def test_a_snapshot_restores_the_prefilter(tmp_path):
    refs = _refs()
    first = PatternEngine(refs, tmp_path / "engine", backend="hyperscan")
    again = PatternEngine(refs, None, backend="hyperscan", snapshot=first.snapshot())
    assert again.stats.loaded_from_cache
    block = "\n".join(LINES).encode()
    assert _hits(again, block) == _hits(first, block) == _full_database_hits(first, block)


# Templates whose line pieces are awkward for the per-literal check: adjacent placeholders
# (two `.+?` in a row), a whitespace-only piece between placeholders, a repeated piece, a
# literal shared by templates whose other pieces differ, pieces that overlap.
TRICKY = [
    "shape {a}{b} does not fit the cache layout",
    "cannot fit {a} {b} into the cache layout",
    "layout {a} layout {b} layout mismatch",
    "does not fit the cache layout",
    "abab{x}bab error in the cache layout",
    "numéro {n} → hors limites du cache layout",
]


def _tricky_lines(rng: random.Random) -> list[bytes]:
    # No non-ASCII values: `.+?` reads bytes in hyperscan and characters in `re`, so a
    # one-character value like "é" fills two adjacent placeholders for hyperscan only.
    words = ["", "x", "xy", " ", "layout", "cache", "ab", "bab"]
    rendered = []
    for template in TRICKY:
        for _ in range(6):
            text = template
            while "{" in text:
                head, _, tail = text.partition("{")
                text = head + rng.choice(words) + tail.partition("}")[2]
            rendered.append(text)
    lines = []
    for _ in range(300):
        text = rng.choice(rendered)
        cut = rng.randrange(len(text) + 1)
        kind = rng.random()
        if kind < 0.3:   # a piece dropped or cut short: the literal may stay, the pattern not
            text = text[:cut] + text[cut + rng.randint(1, 4):]
        elif kind < 0.5:
            text = text[:cut] + rng.choice(words) + text[cut:]
        line = f"2024-01-01 ERROR w: {rng.choice(['ValueError: ', '', 'x '])}{text}".encode()
        if rng.random() < 0.1:
            line += b" \xff\xfe"   # bytes that are not UTF-8
        lines.append(line)
    return lines


@pytest.mark.parametrize("seed", [4, 5, 6, 7])
def test_per_literal_check_equals_the_full_database_on_awkward_templates(tmp_path, seed):
    """The lines' candidates from the literal's own line regexes (`line_has`) equal what
    the full database of every line regex finds, line by line, and the fallback agrees."""
    refs = [RecordRef.from_record(i, make_record(t, line=i + 1)) for i, t in enumerate(TRICKY)]
    hs = PatternEngine(refs, tmp_path / "engine", backend="hyperscan")
    py = PatternEngine(refs, backend="python")
    block = b"\n".join(_tricky_lines(random.Random(seed))) + b"\n"
    got = _hits(hs, block)
    assert got == _full_database_hits(hs, block)
    assert {k: v for k, v in got.items() if v[1]} == {k: v for k, v in _hits(py, block).items() if v[1]}
    # Both kinds of line occur: a pattern found, and a literal present without its pattern.
    assert any(v[1] for v in got.values())
    literal_only = [line for i, line in enumerate(block.split(b"\n")) if b"cache layout" in line and i not in got]
    assert literal_only
