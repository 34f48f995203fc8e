"""The public facade: every name in `errdex.__all__` exists, is callable and documented."""

import inspect

import errdex


def test_every_public_name_resolves_and_is_documented():
    for name in errdex.__all__:
        obj = getattr(errdex, name)
        assert callable(obj), name
        doc = inspect.getdoc(obj)
        assert doc and len(doc) > 20, f"errdex.{name} has no docstring"
        assert f"errdex.{name}(" in errdex.__doc__, f"errdex.{name} missing from the module docstring"


def test_unknown_name_is_an_attribute_error():
    try:
        errdex.nope
    except AttributeError as exc:
        assert "nope" in str(exc)
    else:
        raise AssertionError("errdex.nope should not exist")
