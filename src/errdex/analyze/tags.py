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
    cls = (ex.get("classQualname") or record.get("errorClass") or "").rpartition(".")[2]
    head = _head(bool(ex.get("test")), record.get("filePath") or "", cls)
    cond = test_text if test_text is not None else ex.get("condition") or ""
    # Placeholder sources keep their strings (`paths['rounds']` gives "rounds"); the condition's are dropped.
    found = _candidates(cond, True)
    placeholders = ex.get("placeholders")
    if placeholders:
        found = dict.fromkeys([low for v in placeholders.values() for low in _candidates(v, False)] + list(found))
    return [*head, *[low for low in found if low not in head][:MAX_IDENTIFIERS]]


_HEADS: dict[tuple, dict[str, None]] = {}


def _head(test: bool, file_path: str, cls: str) -> dict[str, None]:
    """"test", the path segments and the class tag (cached: a file holds many records)."""
    key = (test, file_path, cls)
    out = _HEADS.get(key)
    if out is None:
        out = {"test": None} if test else {}
        for seg in file_path.removesuffix(".py").split("/"):
            if seg and seg not in _LAYOUT_DIRS:
                out[seg.lower()] = None
        if cls:
            out[class_tag(cls)] = None
        if len(_HEADS) < 100_000:
            _HEADS[key] = out
    return out


_CANDIDATES: dict[str, tuple[str, ...]] = {}            # by text, strings kept
_CANDIDATES_STRIPPED: dict[str, tuple[str, ...]] = {}   # by text, strings dropped


def _candidates(text: str, strip: bool) -> tuple[str, ...]:
    """Identifiers of an expression (strings removed when `strip`) that may be tags, lower-case, in order."""
    cache = _CANDIDATES_STRIPPED if strip else _CANDIDATES
    found = cache.get(text)
    if found is None:
        plain = _strip_strings(text) if strip and ("'" in text or '"' in text) else text
        if plain.isascii():   # lower-case the text once (outside ASCII, lower() may make new letters)
            names = [low for low in _IDENT.findall(plain.lower()) if len(low) > 2 and low not in _NOT_TAGS]
        else:
            names = [low for name in _IDENT.findall(plain) if len(low := name.lower()) > 2 and low not in _NOT_TAGS]
        found = tuple(dict.fromkeys(names))
        if len(cache) < 200_000:
            cache[text] = found
    return found


def class_tag(name: str) -> str:
    """`ValueError` -> `value-error`."""
    return _CAMEL.sub("-", name).lower()


_STRINGS = re.compile(r"'[^']*'|\"[^\"]*\"")


def _strip_strings(expr: str) -> str:
    return _STRINGS.sub(" ", expr)


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
    checks_args: bool = False   # `errdex.checksArguments` outside test code: an assert on what a caller passed


_CLASS_SETS: dict[tuple, frozenset[str]] = {}


def _facts(record: dict) -> Facts:
    ex = record["errdex"]
    key = (record.get("errorClass"), ex.get("classQualname"), tuple(ex.get("classAncestors") or ()),
           record.get("errorType") == "assertion")
    classes = _CLASS_SETS.get(key)
    if classes is None:   # one set object per distinct class: its hash is then computed once
        classes = frozenset(n.rpartition(".")[2] for n in (key[0], key[1], *key[2]) if n)
        if key[3]:
            classes |= {"AssertionError"}
        if len(_CLASS_SETS) < 50_000:
            _CLASS_SETS[key] = classes
    words = _literal_words(record.get("errorMessage") or "")
    return Facts(record.get("errorType") or "", classes, words, ex.get("condition") or "", record.get("httpStatus"),
                 _checks_args(ex))


def _checks_args(ex: dict) -> bool:
    """An assert on what a caller passed: `errdex.checksArguments`, or any assert of a dataclass's
    `__post_init__`, whose fields are the constructor's arguments (review 27 #11: a setting read
    from the environment into a config's field was "a bug or an unexpected call order")."""
    if ex.get("test"):
        return False
    return bool(ex.get("checksArguments")) or (ex.get("function") or "").endswith(".__post_init__")


_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_WORDS_OF: dict[str, str] = {}


def _literal_words(template: str) -> str:
    """The template's literal text, lower-case (cached: templates repeat)."""
    found = _WORDS_OF.get(template)
    if found is None:
        found = _PLACEHOLDER.sub(" ", template).lower() if "{" in template else template.lower()
        if len(_WORDS_OF) < 200_000:
            _WORDS_OF[template] = found
    return found


_DEPRECATION = r"deprecat|will be removed|no longer supported|is obsolete"
#: "min_count exceeds max_count": two settings that disagree, not a resource running out.
_MIN_OVER_MAX = re.compile(r"\bmin\w*\s+(cannot |must not |should not )?exceeds?\s+(the\s+)?max")
#: "rank" and "mismatch" alone are not enough: "DP rank {i}" is a process, "field set mismatch" no tensor.
#: A file or endpoint that is missing or unreachable. "path", "host", "port", "file" or "url" alone
#: are not: sglang's "this code path", "host memory pool", "the SM90 port" and "JSON in file X" are not
#: I/O failures, and the tag's advice (retry, check the endpoint) would be wrong for them. Within one
#: sentence (`[^.]*`): a bounded gap (`{0,60}`) tripled the compile time of the rules' hyperscan database.
_IO_WORDS = (r"no such (file|directory)|\b(file|path|directory|folder)\b[^.]*"
             r"\b(does not exist|doesn't exist|not exist|not found)|\bdirector(y|ies)\b|socket|"
             r"network|download|(failed|unable|could not|cannot|can't) to connect|(could not|cannot|can't) connect|"
             r"connection (refused|reset|closed|error|failed|timed out|lost)|lost connection|address already in use|"
             r"\b(host|server|endpoint)\b[^.]*\bunreachable|\bport\b[^.]*\b(in use|unavailable|already)")
#: "size mismatch" alone is not a tensor's: sglang's "Page size mismatch" between two servers is a
#: setting (a tensor size check reads `.shape`/`.size()`, which the condition rule sees).
#: Whole words: `contiguous_segments`, `shape_id` or `--kv-cache-dtype` (review 25: a command-line
#: string, no tensor) in a message is an option's name, not a layout.
_SHAPE_WORDS = (r"(?<![-\w])(shapes?|dtypes?|dims?|ndim|contiguous|strides?)(?![-\w])|dimension(s|al)?\b|"
                r"\b(shape|dtype|type) mismatch|tensor size mismatch|mismatched rank|wrong rank|expects? \w+ rank|"
                r"got rank\b")
_CONFIG_WORDS = (r"not supported|unsupported|only supports?|does not support|doesn't support|not compatible|"
                 r"incompatible|cannot be used with|can't be used with|is not available|not enabled|must be enabled|"
                 r"requires? |please (set|use|enable|disable)|backend|mode\b")
_WARNING = "warning"
#: A test on the parallel layout (`num_heads % tp_size != 0`): the model and the parallel sizes chosen
#: do not fit together, a configuration to change, not a bug upstream (review 20 #27831). Every name
#: holds `_size`: `background_tag` looks for it before running the condition rules.
_PARALLEL_SIZES = (r"\b(?:attn_|moe_|tp_|tensor_|tensor_model_|pipeline_|pipeline_model_|expert_|attn_cp_)?"
                   r"(?:tp|ep|dp|pp|cp|sp|world|tp_world|parallel)_size\b|"
                   r"\bget_(?:tensor_model_parallel|pipeline_model_parallel|moe_expert_parallel|attention_tp|"
                   r"attention_dp)_(?:world_)?size\b")

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
         r"no (free|available) |(exceed\w*|over|at|reached|insufficient|out of|beyond) (the |its )?([\w-]+ ){0,4}capacity|"
         r">\s*capacity|capacity (exceeded|reached|is full|is (smaller|too small|less))|"
         r"(buffer|pool|cache|memory|space) (is )?too small|exceeds? (the )?(max|limit|available)",
         when=lambda f: _MIN_OVER_MAX.search(f.words) is None),
    Rule("io-network", "io-network",
         frozenset({"OSError", "IOError", "FileNotFoundError", "FileExistsError", "IsADirectoryError",
                    "ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "BrokenPipeError"}),
         _IO_WORDS),
    Rule("shape-dtype-mismatch", "shape-dtype", words=_SHAPE_WORDS,
         condition=r"\.(shape|dtype|ndim|size\(\)|dim\(\)|is_contiguous\(\))"),
    Rule("unsupported-configuration", "unsupported-configuration", words=_CONFIG_WORDS),
    Rule("internal-invariant", "unreachable", when=lambda f: f.condition == "False"),
    Rule("internal-invariant", "invariant-words",
         words=r"should not happen|should never|unreachable|\bbug\b|invariant|internal error|unexpected"),
    Rule("unsupported-configuration", "parallel-sizes", condition=_PARALLEL_SIZES),
    Rule("internal-invariant", "bare-assert", when=lambda f: f.error_type == "assertion" and not f.checks_args),
    Rule("unsupported-configuration", "config-condition",
         condition=r"\b(server_args|config|args|envs?|settings|backend)\b\."),
    # review 17 P3: an assert on what a caller passed checks an input (a setting read off it is one above)
    Rule("input-validation", "assert-on-arguments", when=lambda f: f.error_type == "assertion" and f.checks_args),
    Rule("input-validation", "validation-class",
         frozenset({"ValueError", "TypeError", "KeyError", "IndexError", "LookupError", "AttributeError"})),
    Rule("input-validation", "validation-words", words=r"invalid|must be|expected|should be|\bgot\b"),
    Rule("runtime-warning", "warning", when=lambda f: f.error_type == _WARNING),
    Rule("runtime-error", "fallback"),
)


_COND_RX = {i: re.compile(r.condition) for i, r in enumerate(RULES) if r.condition}
_ANY_COND = re.compile("|".join(f"(?:{r.condition})" for r in RULES if r.condition))
_WORD_RULES = tuple(i for i, r in enumerate(RULES) if r.words)
_ALTERNATIONS: dict[tuple[int, int], re.Pattern] = {}
_FIRST_WORD: dict[tuple[str, int], int] = {}
_NONE = len(RULES)


def _word_database():
    """A hyperscan database of the word rules (id = rule index), or None without hyperscan.

    One scan reports every rule whose pattern occurs, at a fraction of the cost
    of Python's regex over the same alternation. ASCII text only: there the
    two agree on `\\b` (checked on every sglang message).
    """
    try:
        import hyperscan
    except ImportError:   # wheels for x86-64 Linux only; the `re` path below gives the same answer
        return None
    try:
        db = hyperscan.Database()
        db.compile(expressions=[RULES[i].words.encode() for i in _WORD_RULES], ids=list(_WORD_RULES),
                   elements=len(_WORD_RULES),
                   flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(_WORD_RULES))
        return db, hyperscan.Scratch(db)
    except Exception:  # noqa: BLE001 - a pattern hyperscan rejects: fall back to `re`
        return None


_HS: list = []


def _hyperscan_first(words: str, start: int) -> int:
    if not _HS:
        _HS.append(_word_database())
    if _HS[0] is None or not words.isascii():   # hyperscan's `\\b` is ASCII-only; `re`'s is Unicode
        return -1
    db, scratch = _HS[0]
    low = _WORD_RULES[start]
    hits = []

    def on_match(rule: int, _from: int, _to: int, _flags: int, _ctx) -> None:
        hits.append(rule)

    db.scan(words.encode(), match_event_handler=on_match, scratch=scratch)
    return min((h for h in hits if h >= low), default=_NONE)


def _alternation(start: int, end: int) -> re.Pattern:
    """One regex for the word rules `_WORD_RULES[start:end]`, a named group per rule."""
    rx = _ALTERNATIONS.get((start, end))
    if rx is None:
        rx = _ALTERNATIONS[(start, end)] = re.compile(
            "|".join(f"(?P<r{k}>{RULES[_WORD_RULES[k]].words})" for k in range(start, end)))
    return rx


def first_word_rule(words: str, start: int = 0) -> int:
    """Index in RULES of the first word rule (from `_WORD_RULES[start]` on) whose pattern occurs in `words`.

    `len(RULES)` when none does. Through hyperscan when available; else one
    search over the alternation of the word rules finds some rule k that
    occurs, and only the rules before k can still be first, so the search
    repeats over those. Cached: messages repeat.
    """
    key = (words, start)
    found = _FIRST_WORD.get(key)
    if found is None:
        found = _hyperscan_first(words, start) if words else _NONE
        if found < 0:
            found, end = _NONE, len(_WORD_RULES)
            while end > start:
                m = _alternation(start, end).search(words)
                if m is None:
                    break
                end = int(m.lastgroup[1:])
                found = _WORD_RULES[end]
        if len(_FIRST_WORD) < 200_000:
            _FIRST_WORD[key] = found
    return found


def background_tag(record: dict, test_text: str | None = None) -> tuple[str, str]:
    """(tag, rule name) of the first rule that matches.

    `test_text` is the condition's own test (the last conjunct): condition
    rules read only that, since earlier guards say little about this raise.
    The first rule is the earliest of three: the first that fires on class
    and `when` alone (cached per class set and shape), the first word rule
    that occurs in the message, and a condition rule before both.
    """
    ex = record["errdex"]
    condition = ex.get("condition") or ""
    # Everything but the condition rules follows from these (records repeat them: one class, one message).
    key = (record.get("errorClass"), ex.get("classQualname"), tuple(ex.get("classAncestors") or ()),
           record.get("errorType"), record.get("httpStatus") is not None, condition == "False",
           record.get("errorMessage") or "", _checks_args(ex))
    first = _FIRST_BEFORE_CONDITION.get(key)
    if first is None:
        f = _facts(record)
        # Rule 0 (deprecation words) only counts for warnings: others look from the next word rule on.
        by_words = first_word_rule(f.words, 0 if f.error_type == _WARNING else 1)
        while by_words < _NONE and RULES[by_words].when is not None and not RULES[by_words].when(f):
            # its words occur, but the rule does not apply: the next word rule that occurs
            nxt = _WORD_RULES.index(by_words) + 1
            by_words = first_word_rule(f.words, nxt) if nxt < len(_WORD_RULES) else _NONE
        first = min(_first_by_class(f), by_words)
        if len(_FIRST_BEFORE_CONDITION) < 200_000:
            _FIRST_BEFORE_CONDITION[key] = first
    text = condition if test_text is None else test_text
    if "raised(" in text:   # review 23 #2: `raised(audio.shape[-1], Exception)` names a failing call, no test of a shape
        text = _RAISED_FACT.sub("", text)
    if text not in ("", "True", "False") and ("." in text or "_size" in text) and _ANY_COND.search(text) is not None:
        for i in _COND_RULES:
            if i >= first:
                break
            if _COND_RX[i].search(text):
                first = i
                break
    rule = RULES[first] if first < _NONE else RULES[-1]
    return rule.tag, rule.name


#: A `raised(call, E)` term whose call holds no nested brackets deeper than two (most): left out of
#: what the condition rules read.
_RAISED_FACT = re.compile(r"raised\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)")
_FIRST_BEFORE_CONDITION: dict[tuple, int] = {}
_COND_RULES = tuple(sorted(_COND_RX))
_BY_CLASS: dict[tuple, int] = {}


def _first_by_class(f: Facts) -> int:
    """Index of the first rule that fires on the class, the ancestors and `when` alone (words aside)."""
    key = (f.error_type, f.classes, f.http_status is not None, f.condition == "False", f.checks_args)
    found = _BY_CLASS.get(key)
    if found is None:
        found = _NONE
        for i, rule in enumerate(RULES):
            if rule.when is not None and not rule.when(f):
                continue
            if not (rule.classes or rule.words or rule.condition) or (f.classes & rule.classes):
                found = i
                break
        if len(_BY_CLASS) < 10_000:
            _BY_CLASS[key] = found
    return found
