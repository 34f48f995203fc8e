"""errdex.install() inside a real IPython shell: cell errors explained after IPython's own traceback."""

from __future__ import annotations

import pytest

IPython = pytest.importorskip("IPython")


@pytest.fixture
def shell(monkeypatch, home_copy):
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setenv("ERRDEX_HOME", str(home_copy))
    monkeypatch.delenv("ERRDEX_DISABLE", raising=False)
    monkeypatch.setenv("ERRDEX_TIMEOUT", "60")
    instance = InteractiveShell.instance()
    yield instance
    import errdex

    errdex.uninstall()
    InteractiveShell.clear_instance()


CELL = "from packaging.version import Version\nVersion('bad in a cell')\n"


def test_cell_error_explained_after_the_traceback(shell, capsys):
    import errdex

    assert errdex.install() is True
    result = shell.run_cell(CELL)
    out, err = capsys.readouterr()
    assert type(result.error_in_exec).__name__ == "InvalidVersion"     # IPython still sees the error
    assert "InvalidVersion" in out and "Traceback" in out                # its own traceback, unchanged
    assert "packaging/version.py:" in err and "'bad in a cell'" in err
    assert shell.run_cell("1 + 1").result == 2                            # the shell keeps working


def test_uninstall_gives_the_shell_back(shell, capsys):
    import errdex

    before = shell.custom_exceptions
    errdex.install()
    assert shell.custom_exceptions != before
    errdex.uninstall()
    assert shell.custom_exceptions == before
    shell.run_cell(CELL)
    out, err = capsys.readouterr()
    assert "InvalidVersion" in out and "errdex" not in err
