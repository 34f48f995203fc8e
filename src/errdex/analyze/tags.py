"""Tags and the backgroundTag of a record, decided by fixed rules (documented in docs/taxonomy.md).

Tags: "test" first for test code, then the path segments, the class, and
identifiers from the template's placeholders and the condition.
backgroundTag: the first rule of `RULES` that matches the record's class,
its message words and its condition's shape. Both are heuristics: the rule
that fired is returned so provenance can name it.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_IDENTIFIERS = 8
_LAYOUT_DIRS = frozenset({"src", "lib", "python", "py", "__init__"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NOT_TAGS = frozenset({*keyword.kwlist, "self", "cls", "raised", "isinstance", "issubclass", "len", "type",
                       "str", "int", "float", "bool", "list", "dict", "tuple", "set", "none", "true", "false",
                       "getattr", "hasattr", "min", "max", "any", "all", "repr", "shape", "join"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def tags_for(record: dict, test_text: str | None = None) -> list[str]:
    """Path segments, class and identifiers, lower-case and deduplicated; "test" first for test code.

    `test_text` is the condition's own test (identifiers of the earlier guards are noise here).
    """
    ex = record["errdex"]
    out: dict[str, None] = {}
    if ex.get("test"):
        out["test"] = None
    path = (record.get("filePath") or "").removesuffix(".py")
    for seg in path.split("/"):
        if seg and seg not in _LAYOUT_DIRS:
            out[seg.lower()] = None
    cls = (ex.get("classQualname") or record.get("errorClass") or "").rpartition(".")[2]
    if cls:
        out[class_tag(cls)] = None
    idents = 0
    for text in (*(ex.get("placeholders") or {}).values(), _strip_strings(test_text if test_text is not None else ex.get("condition") or "")):
        for name in _IDENT.findall(text):
            low = name.lower()
            if idents >= MAX_IDENTIFIERS:
                break
            if len(low) > 2 and low not in _NOT_TAGS and low not in out:
                out[low] = None
                idents += 1
    return list(out)


def class_tag(name: str) -> str:
    """`ValueError` -> `value-error`."""
    return _CAMEL.sub("-", name).lower()


def _strip_strings(expr: str) -> str:
    return re.sub(r"'[^']*'|\"[^\"]*\"", " ", expr)


@dataclass(frozen=True, slots=True)
class Rule:
    """One taxonomy rule: the tag it gives, a name for provenance, and what it looks at.

    It matches when `when` (if given) holds and any of its parts hits: one of
    `classes` among the class and its ancestors, `words` in the message's
    literal text, `condition` in the condition. A rule with no parts matches
    on `when` alone.
    """

    tag: str
    name: str
    classes: frozenset[str] = frozenset()
    words: str | None = None
    condition: str | None = None
    when: Callable[["Facts"], bool] | None = None


@dataclass(frozen=True, slots=True)
class Facts:
    """What the rules look at, computed once per record."""

    error_type: str
    classes: frozenset[str]     # the class and its ancestors, plain names
    words: str                  # the template's literal text, lower-case
    condition: str
    http_status: int | None


def _facts(record: dict) -> Facts:
    ex = record["errdex"]
    names = [record.get("errorClass") or "", ex.get("classQualname") or "", *(ex.get("classAncestors") or [])]
    classes = frozenset(n.rpartition(".")[2] for n in names if n)
    if record.get("errorType") == "assertion":
        classes |= {"AssertionError"}
    words = re.sub(r"\{[^{}]*\}", " ", record.get("errorMessage") or "").lower()
    return Facts(record.get("errorType") or "", classes, words, ex.get("condition") or "", record.get("httpStatus"))


_DEPRECATION = r"deprecat|will be removed|no longer supported|is obsolete"
_SHAPE_WORDS = r"\bshape|\bdtype|\bdim\b|\bdims\b|dimension|\bndim|contiguous|\bstride|\brank\b|size mismatch|mismatch"
_CONFIG_WORDS = (r"not supported|unsupported|only supports?|does not support|doesn't support|not compatible|"
                 r"incompatible|cannot be used with|can't be used with|is not available|not enabled|must be enabled|"
                 r"requires? |please (set|use|enable|disable)|backend|mode\b")
_WARNING = "warning"

#: First match wins; the order is the priority.
RULES: tuple[Rule, ...] = (
    Rule("deprecation", "warning-deprecation", frozenset({"DeprecationWarning", "FutureWarning",
                                                          "PendingDeprecationWarning"}), _DEPRECATION,
         when=lambda f: f.error_type == _WARNING),
    Rule("http-error", "http-status", frozenset({"HTTPException", "HTTPError"}),
         when=lambda f: f.error_type == "http" or f.http_status is not None or bool(f.classes & {"HTTPException", "HTTPError"})),
    Rule("not-implemented", "not-implemented", frozenset({"NotImplementedError"}),
         r"not (yet )?implemented|unimplemented"),
    Rule("missing-dependency", "missing-dependency", frozenset({"ImportError", "ModuleNotFoundError"}),
         r"pip install|not installed|is required but|install (it|the)|failed to import|cannot import"),
    Rule("permission", "permission", frozenset({"PermissionError"}),
         r"permission|unauthori[sz]ed|forbidden|access denied"),
    Rule("timeout", "timeout", frozenset({"TimeoutError"}), r"time ?out|timed out|deadline"),
    Rule("resource-exhaustion", "resource-exhaustion", frozenset({"MemoryError", "OutOfMemoryError"}),
         r"out of memory|\boom\b|not enough (memory|space|blocks|slots)|too many|exhaust|"
         r"no (free|available) |capacity|exceeds? (the )?(max|limit|available)"),
    Rule("io-network", "io-network",
         frozenset({"OSError", "IOError", "FileNotFoundError", "FileExistsError", "IsADirectoryError",
                    "ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "BrokenPipeError"}),
         r"\bfile\b|no such file|directory|\bpath\b|connect|socket|network|download|\burl\b|\bport\b|\bhost\b"),
    Rule("shape-dtype-mismatch", "shape-dtype", words=_SHAPE_WORDS,
         condition=r"\.(shape|dtype|ndim|size\(\)|dim\(\)|is_contiguous\(\))"),
    Rule("unsupported-configuration", "unsupported-configuration", words=_CONFIG_WORDS),
    Rule("internal-invariant", "unreachable", when=lambda f: f.condition == "False"),
    Rule("internal-invariant", "invariant-words",
         words=r"should not happen|should never|unreachable|\bbug\b|invariant|internal error|unexpected"),
    Rule("internal-invariant", "bare-assert", when=lambda f: f.error_type == "assertion"),
    Rule("unsupported-configuration", "config-condition",
         condition=r"\b(server_args|config|args|envs?|settings|backend)\b\."),
    Rule("input-validation", "validation-class",
         frozenset({"ValueError", "TypeError", "KeyError", "IndexError", "LookupError", "AttributeError"})),
    Rule("input-validation", "validation-words", words=r"invalid|must be|expected|should be|\bgot\b"),
    Rule("runtime-warning", "warning", when=lambda f: f.error_type == _WARNING),
    Rule("runtime-error", "fallback"),
)


_WORD_RX = {i: re.compile(r.words) for i, r in enumerate(RULES) if r.words}
_COND_RX = {i: re.compile(r.condition) for i, r in enumerate(RULES) if r.condition}
_ANY_WORD = re.compile("|".join(f"(?:{r.words})" for r in RULES if r.words))
_ANY_COND = re.compile("|".join(f"(?:{r.condition})" for r in RULES if r.condition))


_WORD_HITS: dict[str, frozenset[int]] = {}


def _word_hits(words: str) -> frozenset[int]:
    """Indices of the rules whose word pattern occurs in `words` (cached: messages repeat)."""
    found = _WORD_HITS.get(words)
    if found is None:
        if words and _ANY_WORD.search(words) is not None:
            found = frozenset(i for i, rx in _WORD_RX.items() if rx.search(words))
        else:
            found = frozenset()
        if len(_WORD_HITS) < 200_000:
            _WORD_HITS[words] = found
    return found


def background_tag(record: dict, test_text: str | None = None) -> tuple[str, str]:
    """(tag, rule name) of the first rule that matches.

    `test_text` is the condition's own test (the last conjunct): condition
    rules read only that, since earlier guards say little about this raise.
    """
    f = _facts(record)
    text = f.condition if test_text is None else test_text
    words = _word_hits(f.words)
    cond = text not in ("", "True", "False") and "." in text and _ANY_COND.search(text) is not None
    for i, rule in enumerate(RULES):
        if rule.when is not None and not rule.when(f):
            continue
        if not (rule.classes or rule.words or rule.condition) or (f.classes & rule.classes) or i in words:
            return rule.tag, rule.name
        if cond and rule.condition and _COND_RX[i].search(text):
            return rule.tag, rule.name
    return "runtime-error", "fallback"
