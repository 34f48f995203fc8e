"""Where a downloaded package's files sit in its GitHub repository, asked of GitHub once.

A wheel says neither which commit it was built from nor where its files live
in the repository: sglang's `sglang/srt/utils.py` is `python/sglang/srt/utils.py`
there, so a permalink built from the wheel's own paths is a dead link. When the
network answers, one small file of the package is looked up (HEAD requests to
raw.githubusercontent.com) under the likely folders and tags; the first hit
fixes `url_prefix` and `permalink_ref`. The answer is kept next to the unpacked
tree, so a later index of the same archive asks nothing. Offline, or when no
candidate exists, the tree keeps its guess (`v<version>`, no prefix): the
permalink stays marked as a guess either way (`GUESSED_PERMALINK_KINDS`).

`ERRDEX_OFFLINE=1` skips the lookup; `ERRDEX_GITHUB_RAW` points it elsewhere (tests).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from errdex.models import SourceTree

RAW_ENV = "ERRDEX_GITHUB_RAW"
OFFLINE_ENV = "ERRDEX_OFFLINE"
DEFAULT_RAW = "https://raw.githubusercontent.com"
ANSWER_FILE = ".errdex-permalink.json"
#: Folders a Python package commonly sits in inside its repository, most common first.
PREFIXES = ("", "python/", "src/")
TIMEOUT_SECONDS = 3.0

#: `probe(url)` -> True (found), False (not there), None (no answer: offline, blocked, timed out).
Probe = Callable[[str], "bool | None"]


def locate_in_github(tree: SourceTree, cache: Path | None, probe: Probe | None = None) -> SourceTree:
    """`tree` with `url_prefix` / `permalink_ref` as GitHub has them, when it can tell; else `tree`."""
    if not tree.github_repo or not tree.permalink_ref or offline():
        return tree
    sample = _sample_file(tree)
    if sample is None:
        return tree
    candidates = _candidates(tree)
    known = _read_answer(cache)
    if known in candidates:   # a file the archive planted could only name a candidate anyway
        return replace(tree, permalink_ref=known[0], url_prefix=known[1])
    probe = probe or _http_probe()
    base = os.environ.get(RAW_ENV, DEFAULT_RAW).rstrip("/")
    for ref, prefix in candidates:
        found = probe(f"{base}/{tree.github_repo}/{ref}/{prefix}{sample}")
        if found is None:   # no answer at all: do not spend the timeout on every candidate
            return tree
        if found:
            _write_answer(cache, {"prefix": prefix, "ref": ref})
            return replace(tree, url_prefix=prefix, permalink_ref=ref)
    return tree


def offline() -> bool:
    """`ERRDEX_OFFLINE` is set (to anything but 0): no lookup at all."""
    return os.environ.get(OFFLINE_ENV, "") not in ("", "0")


def _candidates(tree: SourceTree) -> list[tuple[str, str]]:
    """(tag, folder) pairs: the guessed tag first, then the bare version (some projects tag `1.2.3`)."""
    refs = [tree.permalink_ref]
    if tree.permalink_ref.startswith("v") and tree.permalink_ref[1:] == tree.version:
        refs.append(tree.version)
    return [(ref, prefix) for ref in refs for prefix in PREFIXES]


def _sample_file(tree: SourceTree) -> str | None:
    """A file whose path is the package's own: a top-level package's `__init__.py`, else the first file."""
    for path in tree.files:
        parts = path.split("/")
        if len(parts) == 2 and parts[1] == "__init__.py":
            return path
    return tree.files[0] if tree.files else None


def _http_probe() -> Probe:
    import httpx   # only a pypi/installed index with a GitHub repository asks

    client = httpx.Client(timeout=TIMEOUT_SECONDS, follow_redirects=True)

    def probe(url: str) -> bool | None:
        try:
            status = client.head(url).status_code
        except httpx.HTTPError:
            return None
        if status == 200:
            return True
        return False if status == 404 else None   # rate limits and server errors say nothing

    return probe


def _read_answer(cache: Path | None) -> tuple[str, str] | None:
    if cache is None:
        return None
    try:
        data = json.loads((cache / ANSWER_FILE).read_text(encoding="utf-8"))
        return str(data["ref"]), str(data["prefix"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_answer(cache: Path | None, answer: dict) -> None:
    if cache is None:
        return
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / f"{ANSWER_FILE}.{os.getpid()}"
        tmp.write_text(json.dumps(answer), encoding="utf-8")
        os.replace(tmp, cache / ANSWER_FILE)
    except OSError:   # a read-only cache: the lookup is simply asked again next time
        pass
