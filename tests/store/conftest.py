"""Fixtures for store tests: a real index file in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from errdex.store import Store


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "index.db"


@pytest.fixture
def store(db_path: Path):
    with Store.open(db_path) as opened:
        yield opened
