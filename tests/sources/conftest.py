"""Fixtures for source tests (builders live in source_helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from .source_helpers import LocalIndex


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder = tmp_path / "index-files"
    folder.mkdir()
    index = LocalIndex(folder)
    index.thread.start()
    monkeypatch.setenv("PIP_INDEX_URL", index.url)
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    yield index
    index.server.shutdown()
    index.server.server_close()
