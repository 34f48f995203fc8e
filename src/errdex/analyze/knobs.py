"""The settings a user turns that decide a site: command-line options and environment variables.

A check on `server_args.max_ep_size` or on `os.environ.get("SGLANG_X")` is met by someone
running the program, not by a bug upstream; the prose names the knob so that person finds it.
Three sources, each read from text the record already holds: options the message itself names
(`--max-ep-size must be ...`), attributes read off an argparse-style namespace in the condition
(`args.max_ep_size`, `server_args.tp_size`: by argparse's convention the option `--max-ep-size`),
and environment variables read by a call in the condition or its feeding lines
(`os.environ.get("X")`, `os.getenv("X")`, `get_bool_env_var("X")`, `envs.X.get()`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: `--max-ep-size` in a message (not `---`, not inside a word or a path).
_FLAG = re.compile(r"(?<![\w/-])--([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)(?![\w-])")
#: `args.x`, `server_args.x`, `self.server_args.x`, `get_global_server_args().x`.
_NAMESPACE = re.compile(r"(?<![\w.])(?:self\.)?(?:[a-z_]*_)?args(?:\(\))?\.([a-z_][a-z0-9_]*)\b(?!\s*\()")
#: An environment read with the variable's name as a string literal.
_ENV_CALL = re.compile(r"\b(?:os\.environ\.get|os\.getenv|os\.environ\.setdefault|\w*env\w*)\(\s*[\"']([A-Z][A-Z0-9_]{2,})[\"']"
                       r"|\bos\.environ\[\s*[\"']([A-Z][A-Z0-9_]{2,})[\"']\s*\]")
#: `envs.SGLANG_X.get()` / `envs.SGLANG_X.value`: a registry of environment variables.
_ENV_REGISTRY = re.compile(r"\benvs?\.([A-Z][A-Z0-9_]{2,})\b")
_MAX = 4


class Knob(NamedTuple):
    """A plain tuple: the runtime hook renders prose, and `dataclasses` costs its start-up."""

    kind: str      # "option" | "env"
    name: str      # `--max-ep-size`, `SGLANG_MAMBA_SSM_DTYPE`
    how: str       # where errdex saw it: "the message names it", "read as `args.x`"



def knobs(message: str, condition: str, feeding: list[str]) -> list[Knob]:
    """The options and environment variables the site depends on, message first (`knob_words`
    says at most four)."""
    found: dict[str, Knob] = {}
    for m in _FLAG.finditer(message or ""):
        name = "--" + m.group(1)
        found.setdefault(name.replace("_", "-"), Knob("option", name, "the message names it"))
    for m in _NAMESPACE.finditer(condition or ""):
        flag = "--" + m.group(1).replace("_", "-")
        if flag not in found:
            found[flag] = Knob("option", flag, f"read as `{m.group(0)}`, by argparse's naming")
    for i, text in enumerate((condition or "", *(feeding or ()))):
        for m in _ENV_CALL.finditer(text):
            name = m.group(1) or m.group(2)
            found.setdefault(name, Knob("env", name, "read by the check" if i == 0 else "read before it"))
        for m in _ENV_REGISTRY.finditer(text):
            found.setdefault(m.group(1), Knob("env", m.group(1), f"read as `{m.group(0)}`"))
    return list(found.values())


def knob_words(found: list[Knob]) -> str:
    """`the command-line options `--tp` and `--dp` (the message names them); the environment
    variable `X` (read by the check)`: knobs seen the same way said together."""
    groups: dict[tuple[str, str], list[str]] = {}
    for k in found[:_MAX]:
        groups.setdefault((k.kind, k.how), []).append(f"`{k.name}`")
    parts = []
    for (kind, how), names in groups.items():
        what = "command-line option" if kind == "option" else "environment variable"
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        if len(names) > 1:
            how = how.replace("names it", "names them")
        parts.append(f"the {what}{'s' if len(names) > 1 else ''} {listed} ({how})")
    return "; ".join(parts)
