"""Each shortcut of the dataset analysis against the plain path it replaces, on inputs made to hit its edges.

Guard names in one scan, the public-name test, tags merged in one pass, the
backgroundTag cache and the typeGuard pre-check must give what the longer
way gives; the sglang equality check covers real data, these the corners.
"""

from __future__ import annotations

import itertools
import random
import re

from errdex.analyze import tags
from errdex.analyze.callgraph import _public_name
from errdex.analyze.codegen import type_guard
from errdex.analyze.condexpr import parse_condition
from errdex.analyze.related import _NOT_GUARDS, guard_names

_STRINGS = re.compile(r"'[^']*'|\"[^\"]*\"")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def _guards_by_stripping(condition: str) -> tuple[str, ...]:
    """Strings blanked first, then the names: the two-pass form of `guard_names`."""
    if not condition or condition in ("True", "False"):
        return ()
    names = _NAME.findall(_STRINGS.sub(" ", condition[-300:]))
    return tuple(dict.fromkeys(n for n in reversed(names) if n.split(".")[0] not in _NOT_GUARDS))


def test_guard_names_in_one_scan_match_stripping_strings_first():
    fixed = ["x is None and 'self.mode' != y", "f'{a}' + b", 'cfg["k"] and "it\'s" in z', "a 'open", "'a'b'c'd",
             "len(s.x) > 2 and isinstance(t, int)", "x" * 400 + " and tail.name", "1e5 > n and _p"]
    rng = random.Random(7)
    alphabet = "ab_.'\" 1(x)"
    made = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    for condition in fixed + made:
        assert guard_names(condition) == _guards_by_stripping(condition), condition


def test_public_name_shortcut_agrees_for_methods_and_functions():
    parts = ["a", "_b", "__init__", "C", "_", "__x__"]
    for k in (1, 2, 3):
        for combo in itertools.product(parts, repeat=k):
            q = ".".join(combo)
            plain = "._" not in q and q[:1] != "_"
            for method in (False, True):
                assert (plain or (method and _public_name(q, True))) == _public_name(q, method), (q, method)


def _tags_one_by_one(record: dict, test_text: str | None) -> list[str]:
    """The tag rule written as a loop: head, then up to 8 new identifiers in order."""
    ex = record["errdex"]
    cls = (ex.get("classQualname") or record.get("errorClass") or "").rpartition(".")[2]
    out = dict(tags._head(bool(ex.get("test")), record.get("filePath") or "", cls))
    added = 0
    cond = test_text if test_text is not None else ex.get("condition") or ""
    for text, strip in [*((v, False) for v in (ex.get("placeholders") or {}).values()), (cond, True)]:
        for low in tags._candidates(text, strip):
            if added < tags.MAX_IDENTIFIERS and low not in out:
                out[low] = None
                added += 1
    return list(out)


def _record(rng: random.Random) -> dict:
    words = ["shape", "tensor_a", "block_size", "mode", "cfg.backend", "Kernel", "value", "rounds", "x"]
    placeholders = {f"p{k}": rng.choice(words + ["paths['rounds']", "len(batch)"]) for k in range(rng.randint(0, 4))}
    condition = " and ".join(f"{rng.choice(words)} > {rng.randint(0, 9)}" for _ in range(rng.randint(1, 9)))
    return {"filePath": rng.choice(["pkg/layers/attention.py", "tests/test_mode.py", "src/block/value.py"]),
            "errorClass": rng.choice(["ValueError", "KernelError", None]), "errorType": "exception",
            "errdex": {"test": rng.random() < 0.3, "classQualname": None, "placeholders": placeholders,
                       "condition": condition}}


def test_tags_merged_once_match_the_loop():
    rng = random.Random(3)
    for _ in range(400):
        record = _record(rng)
        for text in (None, record["errdex"]["condition"].rpartition(" and ")[2]):
            assert tags.tags_for(record, text) == _tags_one_by_one(record, text)


def test_background_tag_cache_gives_the_uncached_rule():
    cases = []
    for cls, msg, cond, kind, status in itertools.product(
            ["ValueError", "TimeoutError", "KernelError", None], ["{x} is not supported", "bad shape {s}", ""],
            ["x.shape[0] != 3", "False", "server_args.mode == 'a'", ""], ["exception", "warning", "assertion"],
            [None, 404]):
        cases.append({"errorClass": cls, "errorMessage": msg, "errorType": kind, "httpStatus": status,
                      "errdex": {"condition": cond, "classQualname": None, "classAncestors": ["Exception"]}})
    first = [tags.background_tag(r) for r in cases]
    tags._FIRST_BEFORE_CONDITION.clear()
    tags._BY_CLASS.clear()
    tags._FIRST_WORD.clear()
    again = [tags.background_tag(r) for r in reversed(cases)]
    assert first == again[::-1]
    assert len(set(first)) > 5   # the cases reach several rules


def test_type_guard_precheck_keeps_every_isinstance_test():
    found = [type_guard(parse_condition(text)) for text in
             ["not isinstance(x, int)", "isinstance (x, (int, float))", "x and not isinstance(y, str)",
              "n > 3", "is_instance(x)", "raised(f(x), TypeError)"]]
    assert [g is not None for g in found] == [True, True, True, False, False, False]


def test_tag_candidates_lowered_once_match_lowering_each_name():
    def by_name(text: str, strip: bool) -> tuple[str, ...]:
        plain = tags._strip_strings(text) if strip else text
        return tuple(dict.fromkeys(low for name in tags._IDENT.findall(plain)
                                   if len(low := name.lower()) > 2 and low not in tags._NOT_TAGS))

    rng = random.Random(5)
    alphabet = "aBc_Xy1 .'(\u212a\u0130zZ"   # the Kelvin sign and dotted I lower-case into ASCII letters
    texts = ["Self.Block_Size > MAX and 'Shape' in X", "\u212aernel_size is None", "len(A) == None"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(2000)]
    for text in texts:
        for strip in (False, True):
            assert tags._candidates(text, strip) == by_name(text, strip), (text, strip)
