"""Checking a model's prose against the record's static facts before it is stored.

Each field is accepted or rejected with a short reason:
- `contradicts-condition`: a value stated as triggering is ruled out by the
  (exact) trigger condition, evaluated by `errdex.safe_eval` on the named values;
- `unknown-class` / `unknown-file` / `unknown-line` / `unknown-function`:
  the prose names a class, file, line or function that is not the record's;
- `code-does-not-parse`: exampleFix / validationCode is not valid Python;
- `repeats-error`: a solution only restates the error message (such items
  are dropped; the field is rejected when none is left);
- `empty`: nothing left to store.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from errdex.enrich.claims import trigger_claims
from errdex.safe_eval import evaluate, free_names

_CODE_FIELDS = ("exampleFix", "validationCode")
_LIST_FIELDS = ("solutions", "preventionTips")
_TRIGGER_FIELDS = {"triggerScenarios": True, "commonSituations": True, "documentation": False}
_CLASS_WORD = re.compile(r"\b([A-Z][A-Za-z0-9_]*(?:Error|Exception|Warning|Exit|Interrupt))\b")
_FILE_WORD = re.compile(r"(?<![\w/.-])([\w./-]+\.py)\b(?::(\d+))?")
_LINE_WORD = re.compile(r"\bline\s+(\d+)\b", re.I)
_CALL_WORD = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\(")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?|\n?```\s*$")
_BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass(slots=True)
class FieldVerdict:
    """The outcome for one field: the value to store, or why it was rejected."""

    field: str
    value: Any = None
    reason: str | None = None        # None = accepted
    detail: str = ""                 # the offending sentence or name
    dropped: list[str] = field(default_factory=list)   # list items left out

    @property
    def accepted(self) -> bool:
        return self.reason is None


def verify_fields(record: dict[str, Any], prose: dict[str, Any]) -> list[FieldVerdict]:
    """A verdict for each non-empty field of `prose` (field name -> model value)."""
    known = _KnownNames.of(record)
    verdicts = []
    for name, value in prose.items():
        if value in (None, "", []):
            continue
        verdicts.append(_verify(name, value, record, known))
    return verdicts


def _verify(name: str, value: Any, record: dict[str, Any], known: _KnownNames) -> FieldVerdict:
    verdict = FieldVerdict(name, value)
    if name in _CODE_FIELDS:
        return _verify_code(verdict, known)
    if name in _LIST_FIELDS:
        value = [str(item).strip() for item in value if str(item).strip()]
        if name == "solutions":
            kept = [item for item in value if not repeats_error(item, record.get("errorMessage"))]
            verdict.dropped = [item for item in value if item not in kept]
            value = kept
            if not value:
                return _reject(verdict, "repeats-error", verdict.dropped[0] if verdict.dropped else "")
        verdict.value = value
    text = "\n".join(value) if isinstance(value, list) else str(value)
    problem = known.foreign_name(text)
    if problem:
        return _reject(verdict, *problem)
    if name in _TRIGGER_FIELDS:
        sentence = contradicted_claim(record, text, all_sentences=_TRIGGER_FIELDS[name])
        if sentence:
            return _reject(verdict, "contradicts-condition", sentence)
    return verdict


def _verify_code(verdict: FieldVerdict, known: _KnownNames) -> FieldVerdict:
    code = _FENCE.sub("", str(verdict.value).strip())
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError) as exc:
        return _reject(verdict, "code-does-not-parse", str(exc))
    problem = known.foreign_class(code)
    if problem:
        return _reject(verdict, *problem)
    verdict.value = code
    return verdict


def _reject(verdict: FieldVerdict, reason: str, detail: str) -> FieldVerdict:
    verdict.reason, verdict.detail = reason, detail[:300]
    return verdict


def contradicted_claim(record: dict[str, Any], text: str, *, all_sentences: bool) -> str | None:
    """The first sentence naming a triggering value the exact condition rules out."""
    ex = record.get("errdex") or {}
    condition = ex.get("condition")
    if not condition or ex.get("conditionExact") is not True:
        return None
    names = free_names(condition)
    aliases = {ph: expr for ph, expr in (ex.get("placeholders") or {}).items() if expr in names}
    claims = trigger_claims(text, names | set(aliases), all_sentences=all_sentences)
    for claim in claims:
        witness = claim.witness()
        if witness is None and claim.op != "==":
            continue
        target = aliases.get(claim.name, claim.name)
        if evaluate(condition, {target: witness}) is False:
            return claim.sentence.strip()
    return None


def repeats_error(solution: str, message: str | None) -> bool:
    """True when the solution is (nearly) the error message's own words."""
    if not message:
        return False
    literal = re.sub(r"\{[^{}]*\}", " ", message)
    a, b = _words(solution), _words(literal)
    if not a or not b:
        return False
    if set(a) <= set(b):
        return True
    return SequenceMatcher(None, " ".join(a), " ".join(b)).ratio() >= 0.8


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@dataclass(slots=True)
class _KnownNames:
    """The names prose may use: the record's own class, file, line, function and its code."""

    classes: set[str]
    paths: set[str]
    lines: set[int]
    identifiers: set[str]

    @classmethod
    def of(cls, record: dict[str, Any]) -> _KnownNames:
        ex = record.get("errdex") or {}
        classes = {c.rsplit(".", 1)[-1] for c in
                   [record.get("errorClass") or "", ex.get("classQualname") or "",
                    *(ex.get("classAncestors") or []), *(ex.get("classBases") or [])] if c}
        classes |= set(_CLASS_WORD.findall(record.get("errorMessage") or ""))
        path = record.get("filePath") or ""
        parts = path.split("/")
        paths = {"/".join(parts[i:]) for i in range(len(parts))} if path else set()
        line = record.get("lineNumber") or 0
        lines = set(range(line, max(line, ex.get("endLine") or line) + 1))
        context = "\n".join([record.get("sourceCode") or "", *(ex.get("feeding") or []),
                             ex.get("condition") or "", ex.get("function") or "",
                             *(ex.get("callers") or []), *(ex.get("entryPoints") or []),
                             *(ex.get("conditionCalls") or []), record.get("errorMessage") or ""])
        return cls(classes, paths, lines, set(_IDENT.findall(context)))

    def foreign_class(self, text: str) -> tuple[str, str] | None:
        for name in _CLASS_WORD.findall(text):
            if name not in self.classes:
                return "unknown-class", name
        return None

    def foreign_name(self, text: str) -> tuple[str, str] | None:
        """(reason, name) for the first class/file/line/function that is not the record's."""
        problem = self.foreign_class(text)
        if problem:
            return problem
        for path, line in _FILE_WORD.findall(text):
            if path not in self.paths:
                return "unknown-file", path
            if line and int(line) not in self.lines:
                return "unknown-line", f"{path}:{line}"
        for line in _LINE_WORD.findall(text):
            if int(line) not in self.lines:
                return "unknown-line", f"line {line}"
        for call in _CALL_WORD.findall(text):
            last = call.rsplit(".", 1)[-1]
            if last not in self.identifiers and last not in _BUILTIN_NAMES:
                return "unknown-function", f"{call}()"
        return None
