"""A report's JSON from pre-encoded pieces equals `json.dumps(to_dict())`, whatever the matches hold."""

import json

from errdex.match import MatchContext, explain
from errdex.match.scan import ScanReport

from .conftest import make_record


def _ctx(tmp_path):
    records = [
        make_record("Invalid rank {rank} for world size {n}", condition="rank >= n", line=5),
        make_record('naïve "quoted" → {value} failed', error_class=None, line=9, file_path="pkg/ü.py"),
        make_record("Request {rid} exceeded the token budget of {n}", error_class="RuntimeError", line=40),
    ]
    return MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend="python")


def test_report_json_equals_dumping_the_dict(tmp_path):
    ctx = _ctx(tmp_path)
    matches = []
    for text in ("ValueError: Invalid rank 7 for world size 4",          # a condition check: the slow path
                 'naïve "quoted" → \\x00\t😀 failed',                  # no class, escapes, non-ASCII
                 "RuntimeError: Request r1 exceeded the token budget of 12",
                 "RuntimeError: Request r1 exceeded the tok"):          # a prefix match
        matches.extend(explain(text, context=ctx))
    assert any(m.condition_check is not None for m in matches)
    assert {m.match_kind for m in matches} >= {"full", "prefix"}
    for i, m in enumerate(matches):
        m.log_line = i * 3 if i % 2 else None
    matches.append(matches[0])                                           # a record seen twice: one group
    report = ScanReport(matches, {"k": {"normalized": "k", "count": 2, "example": "é", "firstLine": 3}},
                        {"bytes": 10, "datasets": ["a@1"]})
    assert report.to_json() == json.dumps(report.to_dict())
    assert all(m.encoded is not None for m in report.occurrences)
    assert json.loads(report.to_json())["groups"][0]["count"] == 2


def test_one_cache_encodes_each_answer_of_a_record_as_json_dumps_does(tmp_path):
    """A record met with other values, scores, confidences, kinds and chain positions: the
    cached text around the bindings never leaks from one answer into another."""
    from dataclasses import replace

    from errdex.match.encode import FragmentCache

    ctx = _ctx(tmp_path)
    base = explain("RuntimeError: Request r1 exceeded the token budget of 12", context=ctx)[0]
    variants = [base, replace(base, bindings={"rid": 'r"2', "n": "é"}), replace(base, score=base.score + 1.5),
                replace(base, confidence="low"), replace(base, match_kind="contained", chain=2, primary=False),
                replace(base, bindings={"rid": "r3"}, expressions={"rid": "rid"}, match_kind="prefix"),
                replace(base, via="frame"), base]
    cache = FragmentCache()
    for m in variants:
        expected = m.to_dict()
        expected.pop("logLine", None)
        assert cache.fragment(m) + "}" == json.dumps(expected)


def test_groups_most_frequent_first_then_by_first_line_with_bare_groups_apart(tmp_path):
    """Ties in count keep first-line order; a bare match of a record groups apart from its
    message matches; a group without a log line sorts as line 0; JSON equals json.dumps."""
    from dataclasses import replace

    ctx = _ctx(tmp_path)
    (a,) = explain("ValueError: Invalid rank 7 for world size 4", context=ctx)[:1]
    (b,) = explain("RuntimeError: Request r1 exceeded the token budget of 12", context=ctx)[:1]
    (c,) = explain('naïve "quoted" → x failed', context=ctx)[:1]
    bare = replace(b, candidates=3, candidate_ids=(b.id, "x", "y"), match_kind="bare")
    at = [(b, 9), (a, 4), (bare, 2), (c, 7), (b, 11), (a, 12), (c, 20)]
    for lineless in (False, True):
        occurrences = [replace(m, log_line=line, encoded=None) for m, line in at]
        if lineless:
            occurrences.append(replace(bare, log_line=None, candidates=5, encoded=None))
        report = ScanReport(occurrences, {}, {})
        order = [(g["id"], g.get("candidates"), g["count"], g["firstLine"]) for g in report.groups()]
        expected = [(a.id, None, 2, 4), (c.id, None, 2, 7), (b.id, None, 2, 9), (b.id, 3, 1, 2)]
        if lineless:
            expected.insert(3, (b.id, 5, 1, None))
        assert order == expected
        assert report.to_json() == json.dumps(report.to_dict())
