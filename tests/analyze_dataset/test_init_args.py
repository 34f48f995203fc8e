"""A check on `self.x`, where `x` is what the class was made with, names that constructor argument
(review 17 P1: the solutions restated the test and named nothing a user sets)."""

import pytest

from .sources import index_sources, records_by_message

FILES = {
    "cfg/__init__.py": "",
    "cfg/params.py": """
        from dataclasses import dataclass, field
        from typing import ClassVar


        @dataclass
        class Sampling:
            min_p: float = 0.0
            top_k: int = -1
            seen: int = field(default=0, init=False)
            LIMIT: ClassVar[int] = 8

            def __post_init__(self):
                self.min_p = self.min_p if self.min_p is not None else 0.0

            def verify(self):
                if self.top_k.bit_length() > 30:
                    raise OverflowError("top_k too large")
                if not 0.0 <= self.min_p <= 1.0:
                    raise ValueError(f"min_p must be in [0, 1], got {self.min_p}.")
                if self.seen > self.LIMIT:
                    raise RuntimeError("seen too often")


        @dataclass
        class Beam(Sampling):
            width: int = 1

            def check(self):
                if self.width < 1 or self.top_k == 0:
                    raise ValueError("bad beam")


        class Pool:
            def __init__(self, size, name):
                self.size = size
                self.name = name.strip()

            def grow(self, n):
                if self.size + n > 64:
                    raise OverflowError("pool over 64")
                if not self.name:
                    raise ValueError("pool needs a name")


        class BigPool(Pool):
            def fill(self):
                if self.size < 8:
                    raise ValueError("big pool needs 8")
        """,
}


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    return records_by_message(index_sources(tmp_path_factory.mktemp("init"), FILES, "o/cfg"))


def test_a_dataclass_field_is_named_with_the_test_on_it(recs):
    rec = recs["min_p must be in [0, 1], got {self.min_p}."]
    assert rec["errdex"]["initArgs"] == {"self.min_p": "min_p"}
    assert rec["errdex"]["provenance"]["initArgs"] == "fact"
    first = rec["solutions"][0]
    assert first.startswith("`self.min_p` is the `min_p` argument `Sampling` is made with (`Sampling(min_p=...)`)")
    assert "`Sampling.__post_init__` assigns it too" in first
    assert "pass one for which `min_p >= 0.0 and min_p <= 1.0` holds." in first
    # the test is kept whole for NaN, and said so
    assert "`self.min_p` is less than `0.0` (or `self.min_p` is NaN)" in rec["documentation"]


def test_attribute_names_are_not_taken_for_other_values(recs):
    first = recs["top_k too large"]["solutions"][0]
    assert first.endswith("pass one for which `top_k.bit_length() <= 30` holds.")   # no "`bit_length` as ..."


def test_fields_not_taken_by_the_constructor_are_not_named(recs):
    assert "initArgs" not in recs["seen too often"]["errdex"]   # `init=False`; LIMIT a ClassVar


def test_inherited_dataclass_fields_add_up(recs):
    ex = recs["bad beam"]["errdex"]
    assert ex["initArgs"] == {"self.width": "width", "self.top_k": "top_k"}
    assert recs["bad beam"]["solutions"][0].startswith(
        "`self.width` and `self.top_k` are the `width` and `top_k` arguments `Beam` is made with"
        " (`Beam(width=..., top_k=...)`): pass values for which `width >= 1 and top_k != 0` holds.")


def test_an_explicit_init_names_only_what_it_stores_as_given(recs):
    assert recs["pool over 64"]["errdex"]["initArgs"] == {"self.size": "size"}
    first = recs["pool over 64"]["solutions"][0]
    assert "`Pool(size=...)`" in first and "`size + n <= 64` holds, with `n` as `grow` has it" in first
    assert "initArgs" not in recs["pool needs a name"]["errdex"]   # `name.strip()` is not what was passed
    assert recs["big pool needs 8"]["errdex"]["initArgs"] == {"self.size": "size"}   # the inherited `__init__`
    assert "`BigPool(size=...)`" in recs["big pool needs 8"]["solutions"][0]
