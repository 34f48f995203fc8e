"""Every command is registered, lazily imported, and has help text."""

import subprocess
import sys

from click.testing import CliRunner

from errdex.cli import main

COMMANDS = {"index", "list", "show", "stats", "export", "explain", "scan", "diff", "history", "serve", "enrich", "run"}


def test_every_command_is_listed_with_help():
    out = CliRunner().invoke(main, ["--help"]).output
    for name in COMMANDS:
        assert f"  {name} " in out, name
        sub = CliRunner().invoke(main, [name, "--help"])
        assert sub.exit_code == 0 and "Usage:" in sub.output, name


def test_running_one_command_imports_only_its_module():
    code = ("import sys; from errdex.cli import main; main(['scan', '--help'], standalone_mode=False); "
            "print(sorted(m for m in sys.modules if m.startswith('errdex.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = out.strip().splitlines()[-1]
    assert "errdex.cli.explain" in loaded
    for other in ("errdex.cli.enrich", "errdex.cli.serve", "errdex.cli.versions", "errdex.cli.index"):
        assert other not in loaded
