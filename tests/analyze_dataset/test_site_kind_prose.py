"""Prose that follows what errdex proved about the site, not only its category (review 14, P8): a
line nothing reaches gets no tips and nothing to catch; a deprecation is no unsupported configuration."""

from __future__ import annotations

import textwrap
from pathlib import Path

from errdex.pipeline import index_source
from errdex.store import Store

CODE = '''
import warnings


def should_skip(batch) -> bool:
    if not batch.enabled:
        return False
    raise NotImplementedError("skipping is not supported yet")

    params = batch.params
    assert params is not None, "params is not initialized"
    return params.threshold > 0


def old_entry():
    warnings.warn("`old_entry` is deprecated; use `new_entry` instead.", FutureWarning, stacklevel=2)
'''


def _records(tmp_path: Path) -> dict[str, dict]:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "skip.py").write_text(textwrap.dedent(CODE))
    index_source(str(tmp_path / "src"), tmp_path / "e.db", jobs=1, repo="o/skip", version="1")
    with Store.open(tmp_path / "e.db", readonly=True) as store:
        return {r["errorMessage"]: r for r in store.iter_records(limit=10)}


def test_an_unreachable_line_and_a_deprecation_are_told_as_such(tmp_path):
    recs = _records(tmp_path)
    dead = recs["params is not initialized"]
    assert dead["errdex"]["condition"] == "False" and dead["errdex"]["conditionExact"] is True
    assert dead["preventionTips"] == []
    assert dead["tryCatchPattern"] is None
    assert dead["commonSituations"].startswith("None in this version: no path into")
    deprecated = recs["`old_entry` is deprecated; use `new_entry` instead."]
    assert "deprecated: switch to what the message names" in deprecated["tryCatchPattern"]
    assert "configuration is not supported" not in deprecated["tryCatchPattern"]
