"""Uncaught exceptions in real subprocesses: original output and exit status kept, explanation added."""

from __future__ import annotations

import sqlite3

from .conftest import extra_lines, run, with_hook

BAD_VERSION = """
from packaging.version import Version
def parse(text):
    return Version(text)
parse('not a version')
"""


def test_first_error_indexes_then_explains(tmp_path):
    home = tmp_path / "fresh-home"
    plain = run(BAD_VERSION, tmp_path, home=None)
    hooked = run(with_hook(BAD_VERSION), tmp_path, home=home)
    assert plain.returncode == hooked.returncode == 1
    # with_hook adds two lines at the top of the script: line numbers shift by two.
    assert "InvalidVersion: Invalid version: 'not a version'" in hooked.stderr
    original, _, added = hooked.stderr.partition("errdex: indexing packaging")
    assert original == plain.stderr.replace('script.py", line 5', 'script.py", line 7') \
        .replace('script.py", line 4', 'script.py", line 6')
    assert "packaging/version.py:" in added
    assert "'not a version'" in added
    assert (home / "errdex.db").is_file()
    again = run(with_hook(BAD_VERSION), tmp_path, home=home)
    assert again.returncode == 1
    assert "indexing" not in again.stderr and "packaging/version.py:" in again.stderr


def test_command_from_the_issue(tmp_path):
    code = ("import errdex; errdex.install(); from packaging.version import Version; "
            "Version('not a version')")
    import subprocess
    import sys
    import os
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRDEX_")}
    env["ERRDEX_HOME"] = str(tmp_path / "h")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1
    head = done.stderr.split("errdex:")[0]
    assert head.startswith("Traceback (most recent call last):")
    assert "packaging.version.InvalidVersion: Invalid version: 'not a version'" in head
    assert "packaging/version.py" in done.stderr.split("errdex:", 1)[1]


def _pair(code: str, tmp_path, home, env=None):
    """The same script without errdex and with the hook installed at its top (same line numbers)."""
    prelude = "import errdex; errdex.install()\n"
    plain = run("import errdex\n" + code, tmp_path, home=None)
    hooked = run(prelude + code, tmp_path, home=home, env=env)
    return plain, hooked


def test_thread_exception(tmp_path, home_copy):
    code = "import threading\nfrom packaging.version import Version\n" \
           "t = threading.Thread(target=Version, args=('bad thread',))\nt.start(); t.join()\nprint('done')\n"
    plain, hooked = _pair(code, tmp_path, home_copy)
    assert plain.returncode == hooked.returncode == 0
    assert plain.stdout == hooked.stdout == "done\n"
    added = extra_lines(hooked.stderr, plain.stderr)
    assert any("packaging/version.py:" in line for line in added)


def test_unraisable_in_del(tmp_path, home_copy):
    code = ("from packaging.version import Version\nclass Holder:\n"
            "    def __del__(self):\n        Version('bad in del')\nh = Holder()\ndel h\nprint('after')\n")
    plain, hooked = _pair(code, tmp_path, home_copy)
    assert plain.returncode == hooked.returncode == 0
    assert "Exception ignored in" in plain.stderr
    added = extra_lines(hooked.stderr, plain.stderr)
    assert any("'bad in del'" in line for line in added)


def test_chained_exception_explains_the_cause(tmp_path, home_copy):
    code = ("from packaging.version import Version, InvalidVersion\ntry:\n    Version('1.0 beta')\n"
            "except InvalidVersion as exc:\n    raise RuntimeError('config is broken') from exc\n")
    plain, hooked = _pair(code, tmp_path, home_copy)
    assert plain.returncode == hooked.returncode == 1
    added = "\n".join(extra_lines(hooked.stderr, plain.stderr))
    assert "InvalidVersion" in added and "'1.0 beta'" in added


def test_disabled_changes_nothing(tmp_path):
    home = tmp_path / "never"
    plain, hooked = _pair(BAD_VERSION, tmp_path, home, env={"ERRDEX_DISABLE": "1"})
    assert (hooked.returncode, hooked.stderr, hooked.stdout) == (plain.returncode, plain.stderr, plain.stdout)
    assert not home.exists()


def test_unwritable_home_is_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    plain, hooked = _pair(BAD_VERSION, tmp_path, blocker / "home")
    assert plain.returncode == hooked.returncode == 1
    added = extra_lines(hooked.stderr, plain.stderr)
    assert len(added) == 1 and added[0].startswith("errdex: could not explain"), added


def test_corrupt_database_is_one_line(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "errdex.db").write_bytes(b"this is not sqlite" * 100)
    plain, hooked = _pair(BAD_VERSION, tmp_path, home)
    assert plain.returncode == hooked.returncode == 1
    added = extra_lines(hooked.stderr, plain.stderr)
    assert len(added) == 1 and added[0].startswith("errdex: "), added


def test_keyboard_interrupt_and_system_exit_untouched(tmp_path, home_copy):
    for code in ("raise KeyboardInterrupt\n", "import sys\nsys.exit('bye')\n", "raise SystemExit(3)\n"):
        plain, hooked = _pair(code, tmp_path, home_copy)
        assert (hooked.returncode, hooked.stderr) == (plain.returncode, plain.stderr), code


def test_unindexed_user_code_gets_one_line(tmp_path, home_copy):
    plain, hooked = _pair("def f(n):\n    return 1 / n\nf(0)\n", tmp_path, home_copy)
    assert plain.returncode == hooked.returncode == 1
    added = extra_lines(hooked.stderr, plain.stderr)
    assert len(added) == 1 and "no indexed error site" in added[0]


def test_indexed_script_folder_is_explained(tmp_path, home_copy):
    import subprocess
    import sys
    project = tmp_path / "proj"
    project.mkdir()
    code = ("def resize(n):\n    if n > 64:\n        raise ValueError(f'size {n} over the limit')\n"
            "    return n\nresize(100)\n")
    (project / "script.py").write_text("import errdex; errdex.install()\n" + code)
    done = subprocess.run([sys.executable, "-m", "errdex", "index", str(project), "-q", "-j", "1",
                           "--db", str(home_copy / "errdex.db")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    plain, hooked = _pair(code, project, home_copy)
    assert plain.returncode == hooked.returncode == 1
    added = "\n".join(extra_lines(hooked.stderr, plain.stderr))
    assert "script.py:4" in added and "n = 100" in added and "n > 64" in added


def test_database_left_readable(tmp_path, home_copy):
    run(with_hook(BAD_VERSION), tmp_path, home=home_copy)
    with sqlite3.connect(home_copy / "errdex.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
