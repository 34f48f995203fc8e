"""Suite-wide: no test reaches GitHub by accident (the permalink lookup is tested against 127.0.0.1)."""

from __future__ import annotations

import pytest

from errdex.sources.permalink import OFFLINE_ENV


@pytest.fixture(autouse=True)
def _no_github_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OFFLINE_ENV, "1")
