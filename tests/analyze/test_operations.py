"""Special methods are written as the operation that runs them, in code that parses."""

from __future__ import annotations

import ast

import pytest

from errdex.analyze.codegen import call_text, try_catch
from errdex.analyze.operations import OPERATIONS, operation


@pytest.mark.parametrize("method", sorted(OPERATIONS))
def test_every_operation_is_code_that_parses_inside_a_try(method):
    call = call_text(f"pkg.mod.Box.{method}", "pkg.mod.Box")
    assert f".{method}(" not in call
    ast.parse(try_catch(call, "ValueError", "exception", "fallback"))
    ast.parse(f"if ok:\n    {call.split('  #')[0]}\n")


@pytest.mark.parametrize("method, code", [
    ("__init__", "Box(...)"),
    ("__post_init__", "Box(...)"),
    ("__setattr__", "setattr(obj, name, value)  # obj: Box"),
    ("__getitem__", "obj[key]  # obj: Box"),
    ("__radd__", "other + obj  # obj: Box"),
    ("__len__", "len(obj)  # obj: Box"),
    ("__enter__", "with obj: ...  # obj: Box"),
    ("forward", "obj.forward(...)  # obj: Box"),
    ("_private", "obj._private(...)  # obj: Box"),
])
def test_call_text(method, code):
    assert call_text(f"pkg.mod.Box.{method}", "pkg.mod.Box") == code


def test_a_function_named_like_a_special_method_is_called():
    assert call_text("pkg.mod.__getitem__", None) == "__getitem__(...)"
    assert operation("forward", "Box") is None
    assert operation("__eq__", "Box").words == "Comparing a `Box` with `==`"


def test_a_static_or_class_method_is_called_on_its_class():
    assert call_text("pkg.mod.Box.from_config", "pkg.mod.Box", "class") == "Box.from_config(...)"
    assert call_text("pkg.mod.Box.merge", "pkg.mod.Box", "static") == "Box.merge(...)"
    assert call_text("pkg.mod.Box.merge", "pkg.mod.Box", None) == "obj.merge(...)  # obj: Box"


def test_a_modules_getattr_is_run_by_reading_a_name_it_lacks():
    assert call_text("pkg.platforms.__getattr__", None) == "getattr(pkg.platforms, name)"
    ast.parse(try_catch(call_text("pkg.platforms.__getattr__", None), "AttributeError", "exception", "fallback"))
