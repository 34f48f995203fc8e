"""The prose fields of a record, written from its facts by templates (no model).

documentation, triggerScenarios, commonSituations, solutions,
handlingStrategy and preventionTips. Every sentence names what the code
shows (the function, the test, the values); when the condition is not exact
the text says "approximately" and why. Nothing here invents a number: the
only numbers are those in the condition.
"""

from __future__ import annotations

import ast
import builtins
import re

from errdex.analyze.codegen import binding_loop, feeding_for, names_in, one_line
from errdex.analyze.advice import message_advice
from errdex.analyze.condexpr import (
    CONTEXT_SHOWN, Condition, bounds, call_words, code, context_words, dispatch_types, exception_words, flag_named,
    expected_raises, negate_code, split_conjuncts,
    raised_in,
    tests_types_on_the_way,
)
from errdex.analyze.fixes import off_path, report_verb
from errdex.analyze.knobs import Knob, knob_words, knobs
from errdex.extract.logcalls import LOG_LEVELS
from errdex.analyze.operations import OPERATIONS, module_operation, operation

_SITUATIONS = {
    "input-validation": "A value that {fn} checks and rejects: an argument, or state set before the call.",
    # review 27 #23: a check that reads no argument (`errdex.noInputRead`) is decided by no caller's value
    "input-validation-no-input": "A value that {fn} checks and rejects, which none of its arguments decides: one it"
                                 " reads from its module, the environment or an installed package.",
    "unsupported-configuration": "A setting or combination of options that {fn} does not handle.",
    "shape-dtype-mismatch": "Tensors or arrays whose shape, dtype or layout differ from what {fn} checks for.",
    "resource-exhaustion": "A request or batch larger than the capacity {fn} has left.",
    "not-implemented": "A code path {fn} does not implement (yet) for this case.",
    # review 27 #4, #11, #15: "an unexpected call order" of asserts on settings, devices and limits
    "internal-invariant": "A state {fn} assumes cannot occur: a value passed in, or made before the check, breaks"
                          " that assumption (a bug upstream, or a case the code does not support).",
    "io-network": "A file, path or network endpoint {fn} needs that is missing or unreachable.",
    "missing-dependency": "An optional package {fn} needs that is not installed in this environment.",
    "permission": "An operation {fn} is not permitted to perform in this environment.",
    "timeout": "An operation {fn} waits on that did not finish in time.",
    "deprecation": "Code calling a deprecated option or API through {fn}.",
    "http-error": "A request {fn} answers with an HTTP error status.",
    "runtime-warning": "A condition {fn} warns about but continues past.",
    "runtime-error": "A failure {fn} reports at run time.",
}
_STRATEGY = {
    "input-validation": "validate", "shape-dtype-mismatch": "validate", "unsupported-configuration": "fix-configuration",
    "missing-dependency": "fix-configuration", "permission": "fix-configuration", "deprecation": "fix-configuration",
    "resource-exhaustion": "fallback", "not-implemented": "fallback", "timeout": "retry", "io-network": "retry",
    "internal-invariant": "propagate", "http-error": "propagate", "runtime-warning": "propagate",
    "runtime-error": "propagate",
}


class SiteFacts:
    """What the templates need about one record (a plain slotted class: see `condexpr.Condition`)."""

    __slots__ = ("function", "short", "error_class", "cond", "exact", "reason", "placeholders", "feeding",
                 "entry_points", "callers", "tag", "error_type", "test", "neg", "said", "fed", "message", "setters",
                 "helper_check", "loops", "site_class", "caught", "unfed", "knobs", "no_input", "test_file", "holds",
                 "nan_only",
                 "init_args", "status", "checked_by", "from_none", "then", "helper", "raise_follows", "runs",
                 "while_test")

    def __init__(self, function: str, short: str, error_class: str, cond: Condition, exact: bool,
                 reason: str | None, placeholders: dict, feeding: list[str], entry_points: list[str],
                 callers: list[str], tag: str, error_type: str, test: bool) -> None:
        self.function = function          # qualname of the raising function
        self.short = short                # its last name part
        self.error_class = error_class
        self.cond = cond
        self.exact = exact
        self.reason = reason
        self.placeholders = placeholders
        self.feeding = feeding
        self.entry_points = entry_points
        self.callers = callers
        self.tag = tag
        self.error_type = error_type
        self.test = test
        self.neg = ""                     # the own test negated, as code ("" when there is none)
        self.said = ""                    # the own test in words
        self.fed: list[str] | None = None   # the feeding lines the own test reads (`relevant_feeding`, computed once)
        self.status: tuple[str, str] | None | bool = False   # `_checked_status`, computed once (False: not yet)
        self.message = ""                 # the message template, for the fix it states itself
        self.setters: dict[str, list[str]] = {}   # `errdex.setters`: methods that assign what the test reads
        #: (helper, its check) when the site raises inside a helper whose own check reads the helper's
        #: own values (`helper_guard`): that check decides, and the condition holds only the call's path
        self.helper_check: tuple[str, str] | None = None
        self.site_class: str | None = None   # the class whose method raises (`errdex.siteClass`)
        self.caught: dict | None = None      # `errdex.caughtBy`: a handler of its own function that catches it
        self.loops: list[str] = []        # `errdex.loops`: the `for` headers around the site, outermost first
        self.unfed: list[str] = []        # `errdex.unfedLocals`: locals the guard reads that only the function has
        self.no_input = False             # `errdex.noInputRead`: nothing a caller passes decides the check
        self.test_file = test             # in test code (`errdex.test`), a test's helper too (`test`: a test itself)
        self.holds = False                # `errdex.assertHolds`: a reached assert whose test cannot fail
        self.nan_only = False             # `errdex.nanOnly`: only a NaN meets the condition
        self.knobs: list[Knob] | None = None   # `settings_of`, computed once
        #: `errdex.initArgs`: attributes the own test reads that are constructor arguments of the class
        self.init_args: dict[str, str] = {}
        self.checked_by: list[str] = []   # `errdex.checkedBy`: callers that check the test before each call
        self.from_none = False            # an except-site raising `... from None`: the caught error is not shown
        self.then: str | None = None      # a report's next statement when it leaves: "return" or "raise"
        self.helper: str | None = None    # `errdex.helper`: the helper the site raises through
        self.raise_follows = False        # the site is an `if` body of its own, and a `raise` follows the `if`
        self.runs = ""                    # `errdex.siteRuns`: "generator", "context", "async" (words)
        self.while_test: str | None = None   # the test of a `while` loop around the site (`around.enclosing_while`)


def handling_strategy(f: SiteFacts) -> tuple[str, str]:
    """(strategy, rule), one of issue 3's five: an except-site propagates an underlying failure unless
    it is transient. A log or a warning raises nothing and the call goes on (`_report_strategy`)."""
    if _goes_on(f):
        return _report_strategy(f)
    if f.cond.is_except and f.tag not in ("timeout", "io-network"):
        return "propagate", "strategy:except-site"
    if _unchecked(f):   # no input passes: nothing to validate at the caller
        return "propagate", "strategy:always-raises"
    if f.error_class.rpartition(".")[2] in _PATH_ERRORS:   # a path the code found missing or wrong: not transient
        return "fix-configuration", "strategy:path"
    if f.tag == "io-network" and f.error_class.rpartition(".")[2] in _CHECK_ERRORS:
        # review 27 #22: "download" in a ValueError's message after a forced re-download: the code checked
        # what it got and rejected it, and another attempt gets the same
        return "fix-configuration", "strategy:io-checked"
    return _STRATEGY.get(f.tag, "propagate"), f"strategy:{f.tag}"


def _report_strategy(f: SiteFacts) -> tuple[str, str]:
    """A report's strategy: nothing is raised, so nothing is validated or caught (review 18: `validate`
    on 2,507 of 2,530 logs and warnings). One about the setup is answered by fixing it; one that says
    the code falls back or retries describes what the code itself does, as does one of a failure it
    caught (the code goes on without what failed: a fallback); any other passes on to the log as it
    is (`propagate`)."""
    if f.tag in _SETUP_TAGS:
        return "fix-configuration", f"strategy:reported-{f.tag}"
    words = f.message.lower()
    if "deprecat" in words:   # a deprecation logged, not warned: the call it names is to change
        return "fix-configuration", "strategy:reported-deprecation"
    if _FALLS_BACK.search(words):
        return "fallback", "strategy:reported-fallback"
    if _RETRIES.search(words):
        return "retry", "strategy:reported-retry"
    if f.then == "raise":   # review 27 #0: logged, then raised on: nothing falls back
        return "propagate", "strategy:reported-then-raised"
    if f.cond.is_except:   # review 23 #2/#12: a caught failure logged, then the code goes on without it
        return "fallback", "strategy:reported-caught"
    return "propagate", "strategy:reported-and-continues"


#: Words of a message that speak of running out, or of a request, batch or token count exceeding a
#: limit (splitting the work may help); dimension names in a shape message do not count.
_LOAD_WORDS = re.compile(r"out of memory|\boom\b"
                         r"|exceed\w*\b.*\b(?:requests?|batch\w*|tokens?)\b|\b(?:requests?|batch\w*|tokens?)\b.*\bexceed",
                         re.IGNORECASE)
#: Report tags whose cause is the setup (configuration, installed packages, rights).
_SETUP_TAGS = frozenset({"unsupported-configuration", "missing-dependency", "permission"})
_FALLS_BACK = re.compile(r"\bfall(?:s|ing)?[ -]?back\b|\bfallback\b|\binstead\b|\bdisabl(?:e|ed|ing)\b")
_RETRIES = re.compile(r"\bretr(?:y|ies|ying|ied)\b|\btry(?:ing)? again\b|\breconnect")


#: Errors a check raises about what it was given, not a failure on the way: another attempt meets the same.
_CHECK_ERRORS = frozenset({"ValueError", "TypeError", "KeyError", "IndexError", "AttributeError", "AssertionError",
                           "NotImplementedError", "LookupError"})
#: Errors the code raises about a path it checked: a retry finds the same file system.
_PATH_ERRORS = frozenset({"FileNotFoundError", "NotADirectoryError", "IsADirectoryError", "PermissionError",
                          "FileExistsError"})


def _goes_on(f: SiteFacts) -> bool:
    """A log or a warning other than a deprecation's: it reports, and the call goes on."""
    return f.error_type in ("log", "warning") and f.tag != "deprecation"


def _warns(f: SiteFacts) -> bool:
    """A warning, or a log at warning level (`logger.warning`, as `errorClass` writes the call)."""
    return f.error_type == "warning" or LOG_LEVELS.get(f.error_class.rpartition(".")[2]) == "warning"


def approx(f: SiteFacts) -> str:
    return "" if f.exact else f" (approximately: {f.reason or 'not every path was followed'})"


def approx_mark(f: SiteFacts) -> str:
    """The caveat once more, without its reason: the documentation gives that (review 16 P4: the
    whole reason pasted into every field)."""
    return "" if f.exact else " (approximately)"


def short_name(function: str) -> str:
    """The last part of a qualified name; for module-level code, the module's (`pkg.mod.<module>`: `mod`)."""
    head, _, last = function.rpartition(".")
    return head.rpartition(".")[2] if last == MODULE_LEVEL and head else last


#: The qualified name's last part for code at module level, run when the module is imported.
MODULE_LEVEL = "<module>"


def _subject(function: str) -> str:
    """Who raises: `f` is called; module-level code runs when its module is imported."""
    module, _, last = function.rpartition(".")
    return f"Importing `{module}`" if last == MODULE_LEVEL and module else f"`{function}`"


def _helper_words(f: SiteFacts) -> str:
    helper, check = f.helper_check
    path = code(f.cond.tree) if f.cond.tree is not None else ""
    where = f", on the path where `{path}` holds" if path and path != "True" and len(path) <= CONTEXT_SHOWN else \
        (", once the conditions on its path hold (written out under \"Raised when\", `errdex.condition`)"
         if path and path != "True" else "")
    return f"through `{helper}`, when that helper's own check holds (`{check}`, over its own values){where}"


#: Earlier checks are named in the documentation when they are this short together.
_NAMED_CHECKS = 160


def _earlier_checks(guards: list[str]) -> list[str]:
    """The conjuncts of the earlier checks that passed, when few and short enough to read (the
    `not raised(...)` ones aside: the prose names a call that did not raise elsewhere); else none."""
    named = [c for text in guards for c in split_conjuncts(text) if "raised(" not in c]
    return named if named and sum(len(c) for c in named) <= _NAMED_CHECKS and len(named) <= 4 else []


def documentation(f: SiteFacts) -> str:
    what = report_verb(f.error_type)
    shown = f" `{f.error_class}`" if f.error_class else ""   # a returned message has no class
    if f.helper_check:
        return f"{_subject(f.function)} {what}{shown} {_helper_words(f)}{approx(f)}."
    parts = [f"{_subject(f.function)} {what}{shown}"]
    c = f.cond.constant
    if c is False and f.holds:   # review 17 P10: the line runs; only its test cannot fail
        parts.append(f" on no input{approx(f)}: the line runs, but the test it asserts holds on every path that"
                     " reaches it (the checks before it already ensure it).")
    elif c is False and f.exact:
        parts.append(" on no input: every path to this line is cut off earlier, so the site is unreachable as written.")
    elif c is False:
        parts.append(f" on no input the analysis could follow{approx(f)}: it found no path to this line,"
                     " but one it did not follow may still reach it.")
    elif f.cond.tree is None:
        parts.append(" under a condition that could not be worked out from the code.")
    elif f.nan_only:
        parts.append(f" only when {_nan_words(f)} is NaN (not a number){approx(f)}: the tests on the way to this"
                     " line leave no number through, and NaN fails every order test, so it passes them all.")
    else:
        parts.append(f" when {f.said}{context_words(f.cond)}{loop_words(f)}{approx(f)}.")
        if f.cond.guards:
            named = _earlier_checks(f.cond.guards)
            if named:   # review 23 #18: `quant_config is not None`, which decides the site, went unsaid
                parts.append(" It is reached only where the earlier checks in the function let it through: "
                             + ", ".join(f"`{c}`" for c in named) + ".")
            else:
                parts.append(" It is reached only after the earlier checks in the function pass"
                             " (the full condition is written out under \"Raised when\", `errdex.condition`).")
        elif len(f.cond.context) > CONTEXT_SHOWN:
            # review 23 #2/#18: "shown as code" read as the validationCode, which some records lack
            parts.append(" The full condition is written out under \"Raised when\" (`errdex.condition`).")
    if f.cond.is_except and " raised `" not in f.said:
        for call, exc in raised_in(f.cond)[:1]:
            parts.append(f" It re-reports a failure: {call_words(call)} raised {exception_words(exc)}.")
    if f.caught:
        parts.append(caught_words(f))
    shown = [f"`{{{k}}}` is the value of `{v}`" for k, v in f.placeholders.items()][:4]
    if shown:
        parts.append(" In the message, " + "; ".join(shown) + ".")
    fed = [line for line in relevant_feeding(f) if not line.startswith(_IMPORTS)]   # a module is no value
    deps = fed[-3:]   # the lines nearest the check: the ones its test reads itself come last
    if deps:
        earlier = f" (and {len(fed) - 3} earlier)" if len(fed) > 3 else ""
        parts.append(" Values it depends on: " + "; ".join(f"`{one_line(d)}`" for d in deps) + earlier + ".")
    return "".join(parts)


def caught_words(f: SiteFacts) -> str:
    """What becomes of the error inside its own function (`errdex.caughtBy`)."""
    c = f.caught
    where = f"`{c['handler']}` at line {c['line']}"
    if c["outcome"] == "converted" and c.get("into"):
        if c["into"].rpartition(".")[2] == f.error_class.rpartition(".")[2]:   # review 27 #22
            return (f" It does not leave `{f.short}` as it is: {where} raises a new `{c['into']}` in its place,"
                    " with a message of its own.")
        return f" It does not leave `{f.short}` as `{f.error_class}`: {where} raises `{c['into']}` instead."
    return f" It does not leave `{f.short}`: {where} catches it and the function goes on."


def relevant_feeding(f: SiteFacts) -> list[str]:
    """The feeding lines that assign a name the own test reads (all of them when there is no own test).

    The feeding slice serves the whole condition; a line that only feeds an
    earlier guard says nothing about this test.
    """
    if f.fed is None:
        f.fed = feeding_for(names_in(f.cond.own_text), f.feeding) if f.cond.own_text and f.feeding \
            else f.feeding
    return f.fed


def trigger_scenarios(f: SiteFacts) -> str:
    if f.cond.constant is False:
        if f.holds:
            return f"None{approx_mark(f)}: the assert in `{f.function}` runs, and its test holds wherever it does."
        if not f.exact:
            return f"None found: no path the analysis followed reaches this line of `{f.function}`{approx_mark(f)}."
        return f"None: no input reaches this line of `{f.function}`."
    when = f.said if f.cond.tree is not None else "its condition holds"
    if f.nan_only and f.cond.tree is not None:
        when = f"{_nan_words(f)} is NaN (not a number), which no order test stops"
    if f.helper_check:
        return f"{_runs(f)}: it {report_verb(f.error_type, bare=True)} {_helper_words(f)}."
    via = [e for e in f.entry_points if e != f.function][:3]
    head = _subject(f.function) if f.function.endswith(MODULE_LEVEL) else _runs(f)
    where = context_words(f.cond) + loop_words(f) if f.cond.tree is not None and not f.nan_only else ""
    # review 25: "(reached from X) when C" read as a claim that X gets here when C, where X checks C
    # first or takes another branch; the call graph shows calls as written, not the values they pass
    lead = (" Public functions that lead to it in the call graph (calls as written; their own checks and"
            " branches are not followed): " + ", ".join(f"`{e}`" for e in via) + ".") if via else ""
    return f"{head} when {when}{where}{approx_mark(f)}.{lead}{_checked_first(f)}"


def _switched(f: SiteFacts) -> bool:
    """A site raised through a helper whose own check is a setting (an environment variable, a flag of
    the run) deciding between raising and warning: the own test is that switch, the finding before it."""
    return bool(f.helper and f.cond.own is not None and f.cond.context and f.cond.constant is None
                and not f.cond.is_except and knobs("", f.cond.own_text, []) and not knobs("", f.cond.context, []))


def _short_name(qualname: str) -> str:
    """`Cls.method` or `function`, without the module."""
    parts = qualname.split(".")
    if len(parts) > 2 and parts[-2][:1].isupper():
        return f"{parts[-2]}.{parts[-1]}"
    return parts[-1]


def _checked_first(f: SiteFacts) -> str:
    """The callers left off the way because they check the test before each call (`errdex.checkedBy`)."""
    if not f.checked_by:
        return ""
    names = [f"`{_short_name(c)}`" for c in f.checked_by[:3]]
    more = f" and {len(f.checked_by) - 3} more" if len(f.checked_by) > 3 else ""
    verb = "checks" if len(f.checked_by) == 1 else "check"
    return (f" {', '.join(names)}{more} {verb} this before each call to `{f.short}`, so no call from there"
            " gets here with it failing.")


def _nan_words(f: SiteFacts) -> str:
    """"`n` or `cap`": what the negated order tests of a NaN-only condition compare."""
    seen: list[str] = []
    for node in ast.walk(f.cond.tree):
        if node.__class__ is ast.UnaryOp and node.op.__class__ is ast.Not and node.operand.__class__ is ast.Compare:
            test = node.operand
            if not any(op.__class__ in _ORDER_OPS for op in test.ops):
                continue
            for side in (test.left, *test.comparators):
                text = code(side)
                if not _NUMBER.fullmatch(text) and text not in seen:
                    seen.append(text)
    shown = [f"`{one_line(t)}`" for t in seen[:3]]
    if not shown:
        return "a value it compares"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


_ORDER_OPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_IMPORTS = ("import ", "from ")   # the local imports `site` puts first among the feeding lines
_NUMBER = re.compile(r"-?[\d_.]+(e-?\d+)?|-?inf|float\('-?inf'\)|math\.inf")


def _runs(f: SiteFacts) -> str:
    """What runs the function: "Calling `f`", or the operation behind a special method
    ("Assigning an attribute of a `ServerArgs` (`...ServerArgs.__setattr__`)")."""
    if f.site_class:
        special = operation(f.short, f.site_class.rpartition(".")[2])
    else:
        special = module_operation(f.short, f.function.rpartition(".")[0])
    if special is not None:
        return f"{special.words} (`{f.function}`)"
    if "generator" in f.runs.split():   # review 29 #20: calling a generator runs none of its body
        return f"Iterating over what `{f.function}` returns (a generator: its body runs as it is consumed)"
    if "context" in f.runs.split():
        return f"Entering `with {f.short}(...)` (`{f.function}`, a context manager)"
    return f"Calling `{f.function}`"


def settings_of(f: SiteFacts) -> list[Knob]:
    """The options and environment variables behind the site (`knobs`), once per record: the
    situations and the solutions both ask."""
    if f.knobs is None:
        f.knobs = knobs(f.message, code(f.cond.tree) if f.cond.tree is not None else "", f.feeding)
    return f.knobs


def _shown(f: SiteFacts) -> str:
    """The function as prose names it: its last name part, with its class for a special method
    (`ServerArgs.__setattr__`, where a bare `__setattr__` says little)."""
    if f.site_class and f.short in OPERATIONS:
        return f"`{f.site_class.rpartition('.')[2]}.{f.short}`"
    return f"`{f.short}`"


def loop_words(f: SiteFacts) -> str:
    """", in a pass of `for req in reqs`" when the test reads what that loop binds: the check is
    made for each element, and fails for the one it names."""
    loop = binding_loop(f.loops, names_in(f.cond.own_text) | names_in(f.cond.context))
    if loop is None and f.while_test and f.while_test in (f.cond.context or ""):
        loop = f"while {f.while_test}"   # review 29 #20: its test holds in each pass, not once
    return f", in a pass of `{loop}`" if loop else ""


def common_situations(f: SiteFacts) -> str:
    if f.test and f.error_type == "assertion" and f.neg and f.cond.constant is None:
        return (f"The test `{f.short}` expects `{f.neg}`; it fails when the code it exercises"
                " gives something else.")
    if f.cond.constant is False and f.holds:
        return f"None{approx_mark(f)}: the checks before this assert in {_shown(f)} already ensure what it tests."
    if f.nan_only and f.cond.tree is not None:
        return (f"A NaN reaching {_shown(f)} in {_nan_words(f)}: float arithmetic that made one (`0.0 / 0.0`,"
                " `inf - inf`, a diverging loss or scale), or a value read as `float('nan')`.")
    if f.cond.constant is False:   # nothing reaches it: no situation to describe
        return (f"None in this version: no path into {_shown(f)} reaches this line{approx(f)}."
                if f.exact else f"None the analysis found: no path it followed reaches this line{approx(f)}.")
    if _unchecked(f):
        return (f"Any run of {_shown(f)} that reaches this line: it raises every time, with no check"
                " first (the message says why).")
    tag = "runtime-warning" if f.error_type == "log" and _warns(f) else f.tag
    if f.test_file and tag == "internal-invariant":   # review 17 P3: no "bug upstream" in a test's helper
        return (f"In test code: {_shown(f)} meets a state it does not expect; the code under test, or the"
                " test's own setup, changed.")
    key = f"{tag}-no-input" if f.no_input and f"{tag}-no-input" in _SITUATIONS else tag
    situation = _SITUATIONS.get(key, _SITUATIONS["runtime-error"]).format(fn=_shown(f))
    found = settings_of(f)
    if not found:
        return situation
    lead = f"Settings of the run involved: {knob_words(found)}."
    # a value someone sets is no state the code "assumes cannot occur"
    return lead if tag == "internal-invariant" else f"{lead} {situation}"


#: Tags whose situation and strategy speak of a value that a check rejects.
_CHECKED_TAGS = frozenset({"input-validation", "internal-invariant", "shape-dtype-mismatch"})


def _unchecked(f: SiteFacts) -> bool:
    """A raise that runs whenever it is reached, which a checked-value tag would describe as a
    rejected value (`__setattr__` of a read-only object): there is no check to pass."""
    return f.cond.constant is True and f.exact and f.tag in _CHECKED_TAGS and not f.cond.is_except


def solutions(f: SiteFacts) -> tuple[list[str], bool]:
    """Ordered fixes, and whether every one rests on the condition alone (a fact)."""
    out: list[str] = []
    chained = {"http": " (chained to this one inside the server: the HTTP response carries only this error's detail)",
               "log": " (logged with this line only when the call passes it or its traceback, as"
                      " `logger.exception` and `exc_info=True` do)",
               "warning": " (caught: the warning does not carry it)"}.get(f.error_type, ", which Python chains to this one,")
    if f.from_none and f.error_type not in ("http", "log", "warning"):
        chained = " (`from None` keeps it out of this one's traceback: catch it, or print it, to see it)"
    own = f.cond.own if f.cond.tree is not None and not f.cond.is_except else None
    if f.nan_only and f.cond.tree is not None:   # no number to keep in range: find the NaN
        return [f"Find where {_nan_words(f)} became NaN (`math.isnan(x)`, or `torch.isnan(t).any()` for a tensor)"
                f" and fix that computation: for numbers, `{f.short}` never gets here{approx_mark(f)}."], True
    expects = expected_raises(f.cond) if own is not None else []
    if expects:   # review 22: `try: check(0) / except ValueError: pass / else: raise`: the call went through
        call, exc = expects[0]
        return [f"`{f.short}` expects {call_words(call)} to raise {exception_words(exc)}, and it returned instead"
                f"{approx_mark(f)}: find why it accepts what it was given here (in a test: the code under test"
                " no longer rejects it)."], f.exact
    if _goes_on(f) and f.cond.constant is not False and (own is not None or (f.cond.is_except and _warns(f))):
        # review 16 P7: a report told as a failure to prevent; a caught failure logged as an error
        # still leads with that failure
        what = "the failure it caught" if f.cond.is_except else "this"
        after = {"return": "then returns (its caller gets what it returns)",
                 "raise": "then raises"}.get(f.then or "", "goes on")
        out.append(f"Nothing is raised here: `{f.short}` {report_verb(f.error_type, bare=True)} {what} and {after};"
                   " change what follows only if the situation it reports is not what you intend.")
    for call, exc in raised_in(f.cond):
        out.append(f"Fix the underlying failure first: {call_words(call)} raised {exception_words(exc)}; its own error"
                   f"{chained} says why.")
    if _switched(f):
        # review 26: `raise_error_or_warn(obj, strict_flag, ...)` raises only while a setting is on and
        # warns otherwise: "make sure the setting is off" hides what the function found
        helper = f.helper.rpartition(".")[2]
        out.append(f"Find why `{f.cond.context}` holds where `{f.short}` checks it{approx_mark(f)}: that is what it"
                   f" found. `{helper}` raises it only while `{f.cond.own_text}` holds: turning that setting off"
                   " stops the error, not its cause.")
        own = None
    if f.helper_check:
        helper, check = f.helper_check
        out.append(f"Find why `{helper}`'s own check (`{check}`) holds: it reads values of `{helper}` that this"
                   " call does not pass, so the check cannot be written here.")
        own = None
    if f.test and f.error_type == "assertion" and own is not None and f.cond.constant is None:
        # Advice to "call the test differently" would be nonsense: the test's expectation failed.
        return [f"The test expects `{f.neg}`{approx_mark(f)}: find which change in the code it exercises"
                " broke that."], f.exact
    if f.init_args and own is not None and f.cond.constant is None:
        out.append(_made_with(f))
    dispatch = dispatch_types(f.cond) if own is not None else None
    if dispatch is not None:   # a type dispatch: the earlier branches' types pass too
        subject, types = dispatch
        out.append(f"Pass `{subject}` as one of the types `{f.short}` handles: "
                   + ", ".join(f"`{t}`" for t in types) + f"{approx_mark(f)}.")
    elif own is not None and f.cond.constant is None and tests_types_on_the_way(f.cond):
        # earlier branches take other types: what passes is the whole path failing, not the own test
        out.append(f"Make sure `{off_path(f.cond)}` holds where `{f.short}` checks it{approx_mark(f)}.")
    elif own is not None and f.cond.constant is None:
        route = _route(own)
        status = _checked_status(f) if not route else None
        if status:   # review 19 #19496: "keep `ret == 0`" names no way to it; the call that returned it does
            out.append(_why_call_failed(f, status))
        elif f.raise_follows:
            out.append(_both_raise(f))
        elif not route:
            out.append(_keep(f, own))
        if route:
            out.append(f"Use a value `{f.short}` accepts: `{route}`.")   # no claim of a branch taking the rest
    fact = bool(out) and f.exact
    if f.setters and own is not None:
        out.extend(_call_first(f, f.cond.own_text))
    stated = message_advice(f.message, report=f.error_type in ("log", "warning"))
    if stated:   # the author's own remedy, quoted: a fact about the message
        out.append("The message says what to do: " + " ".join(f'"{a}"' for a in stated))
    entry = next((e for e in f.entry_points if e != f.function), None)
    if f.error_type in ("log", "warning") or f.test:
        entry = None   # the call goes on past a log or warning; a test's own check is not repeated upstream
    elif entry and any(k.kind == "env" for k in settings_of(f)):
        entry = None   # a value read from the environment: set it, no caller passes it
    elif entry and f.unfed and own is not None and not names_in(f.cond.own_text).isdisjoint(f.unfed):
        entry = None   # the test reads a value the function makes itself (in a `try`, a `with`, a branch)
    elif f.no_input:
        entry = None   # module state or values made from nothing passed: an entry point has nothing to check
    if entry and own is not None and f.cond.constant is None:   # a constant is no check to repeat
        # review 25: the entry point may check it already (or never pass such values): not followed
        out.append(f"Check it before `{f.short}` is called; its callers' own checks (from the entry point"
                   f" `{entry}` on) are not followed, and one may make it already.")
    if f.tag in ("missing-dependency",) and not stated:
        out.append("Install the optional package the message names.")
        fact = False
    if f.tag == "resource-exhaustion" and f.error_type not in ("log", "warning") and _LOAD_WORDS.search(f.message):
        # only where the message speaks of the load (memory, batches, requests, tokens): a kernel's
        # fixed capacity or a pool's slots are not split by sending less (review 19 pattern 7)
        out.append("Split the work into smaller requests or batches.")
        fact = False
    if not out and f.cond.constant is False and f.holds:
        out.append(f"Nothing to fix: the checks before this assert in `{f.short}` already ensure its test{approx_mark(f)};"
                   " if it fails, one of them changed or a value changed between them (the linked source shows both).")
    elif not out and f.cond.constant is False:
        out.append(f"No input the analysis followed reaches this line; if it is raised, the linked source of"
                   f" `{f.short}` shows the path it took.")
    elif not out and f.cond.constant is True:
        # No check to satisfy: the line raises whenever it runs.
        what = ("use a class or option that implements it" if f.tag == "not-implemented"
                else "take a path that does not reach it")
        verb = report_verb(f.error_type, bare=True)
        subject = _subject(f.function) if f.function.endswith(MODULE_LEVEL) else f"`{f.short}`"
        out.append(f"{subject} {verb} here whenever this line is reached{approx(f)}: {what}.")
    elif not out:
        out.append(f"Read the check in `{f.function}` (linked source) to see which input it rejects.")
    return out, fact


def _made_with(f: SiteFacts) -> str:
    """"`self.min_p` is the `min_p` argument `SamplingParams` is made with: pass one for which
    `min_p >= 0.0 and min_p <= 1.0` holds" (review 17 P1: name what the user sets, not only the test)."""
    cls = (f.site_class or "").rpartition(".")[2] or "the class"
    chains, args = list(f.init_args), list(f.init_args.values())
    many = len(args) > 1
    which = (f"{_listed(chains)} {'are' if many else 'is'} the {_listed(args)} argument{'s' if many else ''}"
             f" `{cls}` is made with (`{cls}({', '.join(f'{a}=...' for a in args)})`)")
    also = sorted({_class_method(m) for chain in chains for m in f.setters.get(chain, ()) if not m.endswith(".__init__")})
    if also:
        which += f" ({_listed(also)} assign{'s' if len(also) == 1 else ''} {'them' if many else 'it'} too)"
    wanted = f.neg
    for arg in args:
        wanted = re.sub(rf"\bself\.{re.escape(arg)}\b(?!\s*\()", arg, wanted)
    if not wanted or "self." in wanted:   # the test reads more of the object than its arguments
        return f"{which}: the check reads {'them' if many else 'it'}."
    try:   # names, not attributes (`x.ndim` reads `x`): review 18 read "`ndim` as f has it"
        read = {n.id for n in ast.walk(ast.parse(wanted, mode="eval")) if isinstance(n, ast.Name)}
    except (SyntaxError, ValueError, RecursionError):
        read = set()
    others = sorted(n for n in read if n not in args and not hasattr(builtins, n))
    where = f", with {_listed(others)} as `{f.short}` has {'them' if len(others) > 1 else 'it'}" if others else ""
    return f"{which}: pass {'values' if many else 'one'} for which `{wanted}` holds{where}{approx_mark(f)}."


def _class_method(qualname: str) -> str:
    """`Pool.register` of `pkg.mod.Pool.register`."""
    head, _, method = qualname.rpartition(".")
    return f"{head.rpartition('.')[2]}.{method}"


def _listed(names: list[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


#: The methods that build an object: they ran for any object a method runs on.
CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__"})


def _call_first(f: SiteFacts, own_text: str) -> list[str]:
    """"Call `Pool.register` before `get`: it sets `self.pool`" for a test that the attribute is
    unset; a private or `__init__` setter, or one the function calls itself, is named, not advised."""
    out = []
    context = f.cond.context or ""
    for chain, methods in f.setters.items():
        if own_text not in (f"{chain} is None", f"not {chain}"):
            continue
        named = [_class_method(m) for m in methods]
        if all(n.rpartition(".")[2] in CONSTRUCTORS for n in named):
            continue   # review 29 #9, #23: a constructor ran for any object a method runs on: no "check it ran"
        public = [n for n in named if not n.rpartition(".")[2].startswith("_")
                  and f"self.{n.rpartition('.')[2]}(" not in context]
        if public:
            which = f"`{public[0]}`" if len(public) == 1 else "one of " + ", ".join(f"`{n}`" for n in public)
            out.append(f"Call {which} before `{f.short}`: it sets `{chain}`.")
        else:
            out.append(f"`{chain}` is assigned in {', '.join(f'`{n}`' for n in named)}: check that one ran,"
                       f" with a value, before `{f.short}`.")
    return out


#: Names a status is kept in: a return code, a result flag.
_STATUS_NAME = re.compile(r"(?:\w+_)?(?:ret|rc|res|result|status|code|err|errno|error|ok|success|retval|ret_?code"
                          r"|returncode|exit_?code|status_?code)", re.I)
_RESULT_LINE = re.compile(r"([A-Za-z_]\w*)\s*=\s*(?:await\s+)?(([A-Za-z_][\w.]*)\(.*\))\s*$", re.S)


def _checked_status(f: SiteFacts) -> tuple[str, str] | None:
    """(name, call) when the own test checks one status a call returned, as the feeding lines
    show it (`ret = acl.rt.subscribe_report(tid, ptr)` then `if ret != 0: raise ...`): a name
    for a status or result, tested for truth, against None or against an integer literal, and
    nothing else read; the check then reports a failed call. None otherwise, and for a test's own
    check. Worked out once per record (solutions and tips both ask)."""
    if f.status is False:
        f.status = None if f.test else _call_status(f)
    return f.status


def _call_status(f: SiteFacts) -> tuple[str, str] | None:
    own = f.cond.own
    if own is None or not f.feeding:
        return None
    name = _status_test(own)
    if name is None or not _STATUS_NAME.fullmatch(name):
        return None
    for line in reversed(f.feeding):   # the last assignment of the name is the one the test reads
        m = _RESULT_LINE.match(line.strip())
        if m is not None and m.group(1) == name:
            return name, m.group(2)
        if name in names_in(line.partition("=")[0]):
            return None   # bound some other way
    return None


def _status_test(own: ast.expr) -> str | None:
    """The name of `ret`, `not ret`, `ret != 0`, `ret is None`, `ret < 0`, `0 != ret`; else None."""
    if isinstance(own, ast.UnaryOp) and isinstance(own.op, ast.Not):
        own = own.operand
    if isinstance(own, ast.Name):
        return own.id
    if isinstance(own, ast.Compare) and len(own.ops) == 1:
        sides = (own.left, own.comparators[0])
        names = [side.id for side in sides if isinstance(side, ast.Name)]
        literals = [side for side in sides if _status_literal(side)]
        if len(names) == 1 and len(literals) == 1:
            return names[0]
    return None


def _status_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and (node.value is None or node.value.__class__ in (int, bool))


def _why_call_failed(f: SiteFacts, status: tuple[str, str]) -> str:
    """The advice for a check of a status a call returned: find why the call failed."""
    name, call = status
    return (f"The check tests the status `{name}` that `{one_line(call)}` returned: find why"
            f" `{one_line(call).partition('(')[0]}(...)` failed there, with the values it was given{approx_mark(f)};"
            f" `{f.short}` only reports it.")


def _both_raise(f: SiteFacts) -> str:
    """The fix of a test that only picks one of two raises (`if isinstance(b, BaseException): raise
    X from b`, then `raise X(...)` right after): what lets the function past both."""
    words = (f"Keeping `{f.neg}` does not avoid an error: where it holds, `{f.short}` raises at the statement"
             f" right after this check instead{approx_mark(f)}.")
    context = f.cond.context
    if not context:
        return words + " The error comes from what led the function to these lines."
    try:   # unparsed, not cut from the condition's source (`negate_code` reads that)
        node = ast.parse(context, mode="eval").body
    except SyntaxError:
        return words
    negated = ast.unparse(node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
                          else ast.UnaryOp(ast.Not(), node))
    return words + f" What keeps it from both is `{negated}`, where `{f.short}` checks it."


def _keep(f: SiteFacts, own) -> str:
    """"keep m <= 512" for bounds on literals; otherwise the negated test as code."""
    parts = getattr(own, "values", [own])
    found = bounds(own)
    if found and len(found) == len(parts):
        # "where it checks": the names are the function's own at that line, not necessarily its arguments.
        kept = [f"`{b.subject} {_flip_text(b.op)} {b.limit}`" for b in found]
        if isinstance(own, ast.BoolOp) and isinstance(own.op, ast.And):
            return f"Keep at least one of {', '.join(kept)} where `{f.short}` checks it{approx_mark(f)}."
        return f"Keep {' and '.join(kept)} where `{f.short}` checks it{approx_mark(f)}."
    neg = f.neg if own is f.cond.own else negate_code(own)
    truthy = isinstance(own, ast.UnaryOp) and isinstance(own.op, ast.Not) and \
        isinstance(own.operand, (ast.Name, ast.Attribute, ast.Subscript))
    excused = _flag_excuse(f) if own is f.cond.own else None
    if excused:
        return f"Make sure `{excused}` holds where `{f.short}` checks it{approx_mark(f)}."
    what = ("is True" if flag_named(own.operand) else f"is truthy (`bool({neg})` is True)") if truthy else "holds"
    return f"Make sure `{neg}` {what} where `{f.short}` checks it{approx_mark(f)}."


def _flag_excuse(f: SiteFacts) -> str | None:
    """The whole path failing (`end_layer % n == 0 or is_final_stage`) when the own test is a flag
    (`not is_final_stage`) after other tests: such a flag states a fact that only excuses the rest
    of the path, and advice to flip it would silence the check."""
    own = f.cond.own
    if own is None or not f.cond.context:
        return None
    tested = own.operand if isinstance(own, ast.UnaryOp) and isinstance(own.op, ast.Not) else own
    if isinstance(tested, (ast.Name, ast.Attribute)) and flag_named(tested):
        return off_path(f.cond)
    return None


def _route(own) -> str | None:
    """The values another branch handles, when the test rejects everything outside a literal set."""
    tests = own.values if isinstance(own, ast.BoolOp) and isinstance(own.op, ast.And) else [own]
    subjects, values = set(), []
    for t in tests:
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], (ast.NotIn, ast.NotEq))):
            return None
        right = t.comparators[0]
        if isinstance(t.ops[0], ast.NotEq) and isinstance(right, ast.Constant):
            values.append(code(right))
        elif isinstance(t.ops[0], ast.NotIn) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) \
                and all(isinstance(e, ast.Constant) for e in right.elts):
            values.extend(code(e) for e in right.elts)
        else:
            return None
        subjects.add(code(t.left))
    if len(subjects) != 1 or len(values) < 2:
        return None
    return f"{subjects.pop()} in ({', '.join(values)})"


_FLIPS = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "==": "!=", "!=": "==", "is": "is not",
          "is not": "is", "in": "not in", "not in": "in"}


def _flip_text(op: str) -> str:
    return _FLIPS.get(op, op)


def prevention_tips(f: SiteFacts) -> list[str]:
    """Tips that follow from the test, the values it reads and the tag; none for a test's own assertion."""
    if (f.test and f.error_type == "assertion") or f.cond.constant is False:
        return []   # a test's own check, or a line nothing reaches: nothing to prevent
    if f.nan_only and f.cond.tree is not None:
        return [f"Reject NaN where {_nan_words(f)} is computed (`math.isnan`), before it reaches `{f.short}`."]
    tips = []
    checked = f.cond.own is not None and not f.cond.is_except and f.cond.constant is None and not f.helper_check \
        and "raised(" not in f.cond.own_text   # a call expected to raise: no value to validate
    # a call's status (review 19 #19496): "validate `ret == 0` where the values are produced" names
    # no value to validate; the solutions send the reader to the call
    status = _checked_status(f) if checked else None
    if checked and not _goes_on(f) and not status:   # a report: nothing to prevent, the call goes on
        tips.append(f"Validate `{_flag_excuse(f) or f.neg}` where the values are produced, not only in `{f.short}`.")
    fed = [line for line in relevant_feeding(f)
           if not _LITERAL_VALUE.search(line) and not line.startswith(_IMPORTS)] \
        if checked and f.cond.own_text and not status else []
    if fed:
        tips.append(f"The check reads a derived value (`{one_line(fed[-1])}`): check the inputs it is computed from.")
    tip = _TAG_TIPS.get(f.tag)
    if tip and not (f.test_file and f.tag == "internal-invariant"):   # a test's helper is the test already
        tips.append(tip)
    return tips


#: `x = None`, `n: int = 0`, `seen = set()`: an initial value, not something derived from inputs.
_LITERAL_VALUE = re.compile(r"=\s*(None|True|False|-?\d[\d_.]*|'[^']*'|\"[^\"]*\"|\[\]|\{\}|\(\)|set\(\)|dict\(\)|list\(\))\s*$")
_TAG_TIPS = {"unsupported-configuration": "Check option combinations at startup, before work begins.",
             "shape-dtype-mismatch": "Assert shapes and dtypes at module boundaries in tests.",
             "missing-dependency": "Pin optional dependencies in the environment that runs this path.",
             "internal-invariant": "Add a test that reproduces the inputs that reached this state.",
             "deprecation": "Run tests with warnings as errors to find deprecated calls early."}
