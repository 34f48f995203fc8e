"""Helpers that write small codebases to disk and extract them, as the indexer does."""

import textwrap
from pathlib import Path

import pytest

from errdex.extract.files import extract_file
from errdex.extract.link import Codebase, helper_sites, inline_imported_constants, link_factories
from errdex.extract.scope import module_name


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, body in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            p.write_bytes(body)
        else:
            p.write_text(textwrap.dedent(body), encoding="utf-8")


def extract_tree(root: Path):
    files = sorted(str(p.relative_to(root)).replace("\\", "/") for p in root.rglob("*.py"))
    pkgs = frozenset(f.rsplit("/", 1)[0] if "/" in f else "" for f in files if f.endswith("__init__.py"))
    facts = [extract_file(str(root), f, module_name(f, pkgs)) for f in files]
    cb = Codebase.from_facts(facts)
    inline_imported_constants(cb, facts)
    link_factories(cb, facts)
    sites = [s for f in facts for s in f.sites]
    sites += helper_sites(cb, [c for f in facts for c in f.helper_calls])
    return facts, sites, cb


@pytest.fixture
def extract(tmp_path):
    """extract({"pkg/mod.py": "..."}) -> (facts, sites, codebase)."""
    def run(files):
        write_tree(tmp_path, files)
        return extract_tree(tmp_path)
    return run
