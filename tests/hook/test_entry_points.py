"""`errdex run`, the pytest plugin, the lazy facade and uninstall()."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from .conftest import PY, extra_lines, run

HEAVY = ("sqlite3", "rich", "click", "ast", "errdex.hook.install", "errdex.hook.explainer", "errdex.match", "errdex.store", "platformdirs")


def _env(home=None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRDEX_")}
    if home is not None:
        env["ERRDEX_HOME"] = str(home)
    return env


def test_import_errdex_pulls_in_nothing_heavy():
    probe = f"import sys, errdex; print([m for m in {HEAVY!r} if m in sys.modules])"
    done = subprocess.run([PY, "-c", probe], capture_output=True, text=True, env=_env(), timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_pytest_plugin_import_is_light():
    probe = ("import sys, errdex.hook.pytest_plugin; "
             f"print([m for m in {HEAVY!r} if m in sys.modules and m not in ('ast',)])")
    done = subprocess.run([PY, "-c", probe], capture_output=True, text=True, env=_env(), timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_run_keeps_args_output_and_status(tmp_path, home_copy):
    code = ("import sys\nfrom packaging.version import Version\nprint('args', sys.argv[1:])\n"
            "Version(sys.argv[1])\n")
    plain = run(code, tmp_path, home=None, args=[])
    (tmp_path / "script.py").write_text(code)
    args = ["not valid", "--flag", "-x"]
    plain = subprocess.run([PY, str(tmp_path / "script.py"), *args], capture_output=True, text=True,
                           env=_env(), timeout=60)
    hooked = subprocess.run([PY, "-m", "errdex", "run", str(tmp_path / "script.py"), *args],
                            capture_output=True, text=True, env=_env(home_copy), timeout=60)
    assert plain.returncode == hooked.returncode == 1
    assert plain.stdout == hooked.stdout == "args ['not valid', '--flag', '-x']\n"
    added = "\n".join(extra_lines(hooked.stderr, plain.stderr))
    assert "packaging/version.py:" in added


def test_run_passes_system_exit_code(tmp_path, home_copy):
    (tmp_path / "script.py").write_text("import sys\nsys.exit(7)\n")
    done = subprocess.run([PY, "-m", "errdex", "run", str(tmp_path / "script.py")],
                          capture_output=True, text=True, env=_env(home_copy), timeout=60)
    assert (done.returncode, done.stderr) == (7, "")


TEST_FILE = """
from packaging.version import Version

def test_bad_version():
    Version("nope nope")

def test_plain_assert():
    assert 1 == 2
"""


def _pytest(tmp_path, home, *flags):
    (tmp_path / "test_sample.py").write_text(TEST_FILE)
    # The plugin comes in through its pytest11 entry point, as for any user who installs errdex.
    return subprocess.run([PY, "-m", "pytest", "-p", "no:cacheprovider",
                           "-q", *flags, str(tmp_path / "test_sample.py")],
                          capture_output=True, text=True, env=_env(home), cwd=tmp_path, timeout=120)


def test_pytest_plugin_explains_library_failures(tmp_path, home_copy):
    done = _pytest(tmp_path, home_copy, "--errdex")
    assert done.returncode == 1
    sections = done.stdout.split("errdex explanation")
    assert len(sections) == 2, done.stdout       # only the failure raised inside packaging
    assert "packaging/version.py:" in sections[1] and "'nope nope'" in sections[1]


def test_pytest_plugin_is_silent_without_flag(tmp_path, home_copy):
    done = _pytest(tmp_path, home_copy)
    assert done.returncode == 1
    assert "errdex" not in done.stdout


def test_uninstall_restores_previous_hooks(monkeypatch):
    import errdex

    monkeypatch.delenv("ERRDEX_DISABLE", raising=False)
    before = (sys.excepthook, threading.excepthook, sys.unraisablehook)
    assert errdex.install() is True
    assert sys.excepthook is not before[0] and threading.excepthook is not before[1]
    errdex.uninstall()
    assert (sys.excepthook, threading.excepthook, sys.unraisablehook) == before


def test_install_is_a_no_op_when_disabled(monkeypatch):
    import errdex

    monkeypatch.setenv("ERRDEX_DISABLE", "1")
    before = sys.excepthook
    assert errdex.install() is False
    assert sys.excepthook is before
