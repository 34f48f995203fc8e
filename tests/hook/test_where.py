"""Reading a condition's variables from a frame without running any code."""

from __future__ import annotations

import sys

from errdex.hook.where import frame_values, plain_chains, safe_repr


def test_chains_skip_called_names_and_inner_parts():
    assert plain_chains("n > self.limit and not ok") == ["n", "self.limit", "ok"]
    assert plain_chains("len(items) > cfg.max and raised(int(x), ValueError)") == \
        ["items", "cfg.max", "x", "ValueError"]
    assert plain_chains("this is not python(") == []


class Guarded:
    limit = 8

    def __init__(self):
        self.size = 3

    @property
    def exploding(self):
        raise AssertionError("a property was run")

    def __getattr__(self, name):
        raise AssertionError("__getattr__ was run")

    def __repr__(self):
        raise AssertionError("__repr__ was run")


def test_frame_values_never_call_user_code():
    self = Guarded()  # noqa: F841 - read through the frame
    n = 12  # noqa: F841
    values = frame_values(["n > self.limit and self.size and self.exploding and self.missing and self"],
                          sys._getframe())
    assert values == {"n": "12", "self.limit": "8", "self.size": "3",
                      "self": f"<{__name__}.Guarded object>"}


def test_safe_repr_shortens_and_refuses_foreign_items():
    assert "..." in safe_repr("x" * 500) and len(safe_repr("x" * 500)) < 100
    assert safe_repr([1, Guarded()]) == "<list object>"
