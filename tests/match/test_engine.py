"""PatternEngine: hyperscan and the pure-Python fallback agree; short templates never match alone."""

import random
import string

import pytest

from errdex.match.engine import PatternEngine
from errdex.match.patterns import RecordRef

from .conftest import make_record

pytest.importorskip("hyperscan")

WORDS = ["kernel", "shape", "tensor", "expected", "got", "invalid", "size", "block", "mismatch",
         "rank", "dtype", "value", "must", "be", "of", "the", "(", ")", "[", "]", ".", "*", "+", "?",
         "a|b", "$", "^", "\\", "é", "→"]


def _random_template(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 7)):
        if rng.random() < 0.3:
            parts.append("{" + rng.choice(["K", "x.shape[0]", "name", "n"]) + "}")
        else:
            parts.append(rng.choice(WORDS))
    return " ".join(parts) if rng.random() < 0.8 else "".join(parts)


def _render(template: str, rng: random.Random) -> str:
    out = template
    while "{" in out:
        start = out.index("{")
        end = out.index("}", start)
        value = rng.choice(["0", "12", "'abc'", "(2, 3)", "torch.float16", "x y"])
        out = out[:start] + value + out[end + 1:]
    return out


def _refs(templates):
    return [RecordRef.from_record(i, make_record(t, line=i + 1)) for i, t in enumerate(templates)]


def _answer(engine, text):
    return sorted((h.record.idx, h.kind, tuple(h.values)) for h in engine.match_message(text))


def test_backends_agree_on_random_inputs(tmp_path):
    rng = random.Random(7)
    templates = sorted({_random_template(rng) for _ in range(400)})
    refs = _refs(templates)
    hs = PatternEngine(refs, tmp_path / "engine", backend="hyperscan")
    py = PatternEngine(refs, backend="python")
    texts = [_render(rng.choice(templates), rng) for _ in range(300)]
    texts += [t[: rng.randint(5, max(6, len(t)))] for t in texts[:100]]          # truncated
    texts += ["".join(rng.choice(string.printable) for _ in range(60)) for _ in range(50)]
    hits = 0
    for text in texts:
        assert _answer(hs, text) == _answer(py, text), text
        hits += bool(_answer(hs, text))
    assert hits > 200  # the inputs really exercise matching
    block = "\n".join(f"INFO ts={i} {t}" for i, t in enumerate(texts)).encode()
    a, b = hs.scan_block(block), py.scan_block(block)
    assert {k: (v.start, v.candidates, v.markers) for k, v in a.items()} == \
           {k: (v.start, v.candidates, v.markers) for k, v in b.items()}


def test_compiled_database_is_cached_and_reloaded(tmp_path):
    refs = _refs([f"thing number {i} failed with {{code}}" for i in range(200)])
    first = PatternEngine(refs, tmp_path / "engine", backend="hyperscan")
    assert not first.stats.loaded_from_cache
    assert list((tmp_path / "engine").glob("*.hsdb"))
    second = PatternEngine(refs, tmp_path / "engine", backend="hyperscan")
    assert second.stats.loaded_from_cache
    assert _answer(second, "thing number 17 failed with 3") == _answer(first, "thing number 17 failed with 3")


@pytest.mark.parametrize("backend", ["hyperscan", "python"])
def test_placeholder_only_and_tiny_templates_never_match_alone(backend):
    engine = PatternEngine(_refs(["{msg}", "{e}", "x: {y}", "Invalid value {v} for block size"]), backend=backend)
    assert _answer(engine, "anything at all") == []
    assert _answer(engine, "x: 3") == []
    assert [h[1] for h in _answer(engine, "Invalid value 3 for block size")] == ["full"]


@pytest.mark.parametrize("backend", ["hyperscan", "python"])
def test_whitespace_runs_prefix_and_contained(backend):
    engine = PatternEngine(_refs(["Packed decode kernel only supports NK=1 (got K={K}, BK={BK})."]), backend=backend)
    (hit,) = engine.match_message("Packed  decode kernel\n only supports NK=1 (got K=0, BK=1).")
    assert hit.kind == "full" and hit.values == ["0", "1"]
    (hit,) = engine.match_message("Packed decode kernel only supp")
    assert hit.kind == "prefix"
    (hit,) = engine.match_message("Packed decode kernel only supports NK=1 (got K=300")
    assert hit.kind == "prefix" and hit.values == ["300"]
    (hit,) = engine.match_message("wrapped: Packed decode kernel only supports NK=1 (got K=0, BK=1). see docs")
    assert hit.kind == "contained"


def test_procedural_verifier_reads_groups_like_the_regex():
    import re

    from errdex.match.patterns import normalize_space, verify_full, verify_regex

    rng = random.Random(11)
    checked = 0
    for _ in range(600):
        template = _random_template(rng)
        (ref,) = _refs([template])
        text = normalize_space(_render(template, rng))
        hit = verify_full(ref, text)
        m = re.fullmatch(verify_regex(ref.chunks), text, re.S)
        assert (hit is not None and hit.kind == "full") == (m is not None), (template, text)
        if m:
            assert hit.values == list(m.groups()), (template, text)
            checked += 1
    assert checked > 300
