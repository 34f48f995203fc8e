"""Review 15 P10: the option or environment variable behind a check is named, so whoever runs the
program finds the setting; a check on one is not told as a bug upstream."""

from __future__ import annotations

import pytest

from errdex.analyze.knobs import Knob, knob_words, knobs


def test_options_the_message_names_come_first_and_are_said_together():
    found = knobs("--max-ep-size must be positive (see --tp and --dp); not a/--path, x--y or ---z", "", [])
    assert [k.name for k in found] == ["--max-ep-size", "--tp", "--dp"]
    assert knob_words(found) == "the command-line options `--max-ep-size`, `--tp` and `--dp` (the message names them)"


@pytest.mark.parametrize("condition, feeding, expected", [
    ("server_args.tp_size > 8", [], Knob("option", "--tp-size", "read as `server_args.tp_size`, by argparse's naming")),
    ("self.server_args.enable_foo and x", [], Knob("option", "--enable-foo", "read as `self.server_args.enable_foo`, by argparse's naming")),
    ("get_global_server_args().dp_size == 2", [], Knob("option", "--dp-size", "read as `get_global_server_args().dp_size`, by argparse's naming")),
    ('os.environ.get("ACME_MODE") == "x"', [], Knob("env", "ACME_MODE", "read by the check")),
    ("mode not in table", ['mode = os.getenv("ACME_MODE", "a")'], Knob("env", "ACME_MODE", "read before it")),
    ("flag", ['flag = get_bool_env_var("ACME_FLAG")'], Knob("env", "ACME_FLAG", "read before it")),
    ("dtype not in dtypes", ["dtype = envs.ACME_DTYPE.get()"], Knob("env", "ACME_DTYPE", "read as `envs.ACME_DTYPE`")),
])
def test_settings_read_by_the_check_or_before_it(condition, feeding, expected):
    assert knobs("", condition, feeding) == [expected]


@pytest.mark.parametrize("condition", ["args.count() > 1", "kwargs.size > 2", "myargs_list.n", "x.args.n"])
def test_what_is_no_setting(condition):
    """A method call on the namespace, `kwargs`, a name merely ending in `args_…`, a nested `.args`."""
    assert knobs("", condition, []) == []
