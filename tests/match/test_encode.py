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
