"""JSON text of a scan report, encoded in pieces as the C encoder would write it.

`json.dumps(report.to_dict())` of a 200 MB log's report took ~0.4 s in the
parent after the scan. Here each occurrence is encoded once, by the process
that found it (a split scan's ranges in parallel), without its log line
(shifted when ranges merge); a record's own fields are encoded once per
record, and group entries reuse them. `report_json` is then mostly a join;
its text equals `json.dumps(report.to_dict())` character for character.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING

from errdex.match.resolve import Match

if TYPE_CHECKING:
    from errdex.match.scan import ScanReport


def report_json(report: "ScanReport") -> str:
    """`json.dumps(report.to_dict())`, from the occurrences' fragments."""
    return "".join(report_json_parts(report))


def report_json_parts(report: "ScanReport") -> list[str]:
    """`report_json`'s text in a few pieces, for a writer that writes them one after another:
    the occurrences (7 MB for the 100 MB bench log) are not copied once more into one string."""
    encode_occurrences(report.occurrences)
    parts = []   # each fragment, then its log line, brace and separator: one join, no string per occurrence
    add = parts.append
    for m in report.occurrences:
        add(m.encoded)
        add(f', "logLine": {m.log_line}}}, ' if m.log_line is not None else "}, ")
    if parts:
        parts[-1] = parts[-1][:-2]   # no separator after the last
    return ['{"occurrences": [', "".join(parts),
            f'], "groups": {groups_json(report)}, "unknown": {json.dumps(report.unknown_list())}, '
            f'"stats": {json.dumps(dict(report.stats))}}}']


def groups_json(report: "ScanReport") -> str:
    """`json.dumps(report.groups())`, the record fields cut from a member's encoded JSON
    (they follow its id and end where its score starts: a quote inside a JSON string
    is escaped, so the first `, "score": ` is that boundary)."""
    from errdex.match.scan import group_dict

    parts = []
    add = parts.append
    quote, words = encode_basestring_ascii, _WORDS
    for m, count, first, last, confidence in report.grouped():
        enc = m.encoded or ""
        lead = '{"id": ' + quote(m.id) if type(m.id) is str else None
        cut = enc.find(', "score": ')
        word = words.get(confidence) or _word(confidence)
        if cut < 0 or lead is None or m.candidates or not enc.startswith(lead) \
                or not (type(first) is type(last) is int):
            add(json.dumps(group_dict(m, count, first, last, confidence)))
            continue
        add(f'{lead}, "count": {count}, "firstLine": {first}, "lastLine": {last}{enc[len(lead):cut]}, '
            f'"confidence": {word}}}')
    return "[" + ", ".join(parts) + "]"


def encode_occurrences(matches: list[Match], cache: "FragmentCache | None" = None) -> None:
    """Give each match its JSON fragment: `to_dict()` without the log line (shifted
    when ranges merge) and without the closing brace."""
    cache = cache if cache is not None else FragmentCache()
    for m in matches:
        if m.encoded is None:
            m.encoded = cache.fragment(m)


class FragmentCache:
    """Encoded record fields for one scan (or one report): a record's id names the same
    fields only within one index, so nothing is kept across scans."""

    def __init__(self) -> None:
        # (record id, dataset) -> (its fields, opened; {values bound: its expressions})
        self.records: dict[tuple[str, str], tuple[str, dict[int, str]]] = {}

    def fragment(self, m: Match) -> str:
        """`json.dumps(m.to_dict())` minus the log line and the closing brace; the record's own
        fields are encoded once per record, the rest formatted as the C encoder would."""
        if m.condition_check is not None or m.candidates or type(m.score) is not float:
            d = m.to_dict()
            d.pop("logLine", None)
            return json.dumps(d)[:-1]
        known = self.records.get((m.id, m.dataset))
        if known is None:
            known = self.records[(m.id, m.dataset)] = (_record_head(m), {})
        head, by_count = known
        exprs = by_count.get(len(m.bindings))   # the record and the bound names fix the expressions
        if exprs is None:
            exprs = by_count[len(m.bindings)] = _str_dict(m.expressions)
        words = _WORDS
        confidence, via, kind = words.get(m.confidence), words.get(m.via), words.get(m.match_kind)
        if confidence is None or via is None or kind is None:
            confidence, via, kind = _word(m.confidence), _word(m.via), _word(m.match_kind)
        return (f'{head}, "score": {m.score!r}, "confidence": {confidence}, "via": {via}, '
                f'"bindings": {_str_dict(m.bindings)}, "expressions": {exprs}, '
                f'"matchKind": {kind}, "chain": {int(m.chain)}, '
                f'"primary": {"true" if m.primary else "false"}')


_WORDS: dict[str, str] = {}   # confidence, via, match kind -> JSON string (the same in every index)


def _record_head(m: Match) -> str:
    """The record's own fields as `json.dumps` writes them, opened (no closing brace)."""
    if type(m.id) is str and type(m.repo) is str and type(m.file_path) is str \
            and type(m.error_message) is str and type(m.line_number) is int \
            and (m.error_class is None or type(m.error_class) is str):
        quote = encode_basestring_ascii
        cls = "null" if m.error_class is None else quote(m.error_class)
        return (f'{{"id": {quote(m.id)}, "repo": {quote(m.repo)}, "filePath": {quote(m.file_path)}, '
                f'"lineNumber": {int.__repr__(m.line_number)}, "errorClass": {cls}, '
                f'"errorMessage": {quote(m.error_message)}')
    return json.dumps({"id": m.id, "repo": m.repo, "filePath": m.file_path, "lineNumber": m.line_number,
                       "errorClass": m.error_class, "errorMessage": m.error_message})[:-1]


def _str_dict(values: dict[str, str]) -> str:
    """`json.dumps` of a str -> str dict, without the encoder's per-call set-up."""
    if not values:
        return "{}"
    quote = encode_basestring_ascii
    try:
        return "{" + ", ".join([f"{quote(k)}: {quote(v)}" for k, v in values.items()]) + "}"
    except TypeError:   # a value that is not a string
        return json.dumps(values)


def _word(text: str) -> str:
    quoted = _WORDS.get(text)
    if quoted is None:
        quoted = _WORDS[text] = json.dumps(text)
    return quoted
