"""validationCode and exampleFix import the module-level names they read, and then run.

Review 21 found 11 of 25 snippets reading `torch`, `Path` or a module constant they never
imported: pasted into a caller's code they stop at a NameError, not at the check. Here the
generated snippets are run (the test's own code, written by it; the indexer never runs it)
against the functions they stand for: each must fail exactly where the function raises.
"""

from __future__ import annotations

import sys

import pytest

from tests.analyze_dataset.sources import fails_assert, index_sources, records_by_message

FILES = {
    "shapes/__init__.py": "",
    "shapes/limits.py": "MAX_ROWS = 512\n",
    "shapes/ops.py": """
        import math
        import os.path
        from collections import OrderedDict as Ordered
        from pathlib import Path

        from .limits import MAX_ROWS

        LOCAL_CAP = 64


        def rows(m):
            if m > MAX_ROWS:
                raise ValueError(f"m={m} over the row cap")


        def blocks(k):
            bk = math.ceil(k / 8)
            if bk > LOCAL_CAP:
                raise ValueError(f"too many blocks: {bk}")


        def need_file(p):
            if not Path(p).exists():
                raise FileNotFoundError(f"missing file {p}")


        def extension(name):
            if os.path.splitext(name)[1] != ".py":
                raise ValueError(f"not a python file: {name}")


        def labelled(x):
            label = f"{math.floor(x)}"
            if label == "0":
                raise ValueError("zero label")


        def keyed(pairs):
            table = Ordered(pairs)
            if len(table) != len(pairs):
                raise ValueError("duplicate keys")


        class Box:
            pass


        def lookup(box, name):
            return getattr(box, "mapping", {}).get(name)


        def mapped(name):
            box = Box()
            box.mapping = {"proj": "p"}
            layer = lookup(box, name)
            if layer is None:
                raise KeyError(f"no layer named {name}")


        def shadowed(math):
            if math > 3:
                raise ValueError("math above three")
        """,
}


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    root = tmp_path_factory.mktemp("imports")
    return root / "src", records_by_message(index_sources(root, FILES, "acme/shapes"))


@pytest.fixture(scope="module")
def importable(recs):
    src, _ = recs
    sys.path.insert(0, str(src))
    yield
    sys.path.remove(str(src))
    for name in [m for m in sys.modules if m == "shapes" or m.startswith("shapes.")]:
        del sys.modules[name]


def _raises(function, *args) -> bool:
    try:
        function(*args)
    except (ValueError, FileNotFoundError, KeyError):
        return True
    return False


CASES = [
    ("m={m} over the row cap", "rows", "m", [1, 512, 513, 10_000],
     ["from shapes.limits import MAX_ROWS"]),
    ("too many blocks: {bk}", "blocks", "k", [8, 512, 513, 520, 4096], ["import math", "from shapes.ops import LOCAL_CAP"]),
    ("missing file {p}", "need_file", "p", ["/", "/no/such/file/here"], ["from pathlib import Path"]),
    ("not a python file: {name}", "extension", "name", ["a.py", "a.txt", "pkg/b.py"], ["import os.path"]),
    ("zero label", "labelled", "x", [0.5, 1.5, 0, 7], ["import math"]),
    # review 22 #11: `box.mapping = ...` sets what `lookup(box, ...)` reads: a line of the slice
    ("no layer named {name}", "mapped", "name", ["proj", "other"],
     ["from shapes.ops import Box", "from shapes.ops import lookup", 'box.mapping = {"proj": "p"}']),
    ("duplicate keys", "keyed", "pairs", [[(1, 2)], [(1, 2), (1, 3)]],
     ["from collections import OrderedDict as Ordered"]),
]


@pytest.mark.parametrize(("message", "function", "param", "values", "imports"), CASES,
                         ids=[c[1] for c in CASES])
def test_the_snippet_imports_what_it_reads_and_fails_where_the_function_raises(
        recs, importable, message, function, param, values, imports):
    import shapes.ops

    record = recs[1][message]
    code = record["validationCode"]
    for line in imports:
        assert line in code.splitlines(), code
    real = getattr(shapes.ops, function)
    for value in values:
        assert fails_assert(code, **{param: value}) == _raises(real, value), (value, code)


def test_a_parameter_named_like_an_import_is_no_import(recs):
    record = recs[1]["math above three"]
    assert "moduleImports" not in record["errdex"]
    assert "import" not in record["validationCode"]


def test_the_module_imports_are_recorded_absolute(recs):
    imports = recs[1]["m={m} over the row cap"]["errdex"]["moduleImports"]
    assert imports == {"MAX_ROWS": "from shapes.limits import MAX_ROWS"}


def test_the_caller_guard_imports_what_it_reads(recs):
    fix = recs[1]["m={m} over the row cap"]["exampleFix"]
    after = fix.split("# after\n", 1)[1]
    assert "from shapes.limits import MAX_ROWS" in after.splitlines(), fix
    compile(after, "<exampleFix>", "exec")


OPTIONAL = {
    "kit/__init__.py": "",
    "kit/quant.py": """
        import threading
        try:
            from comfy_kitchen import quantize, scaled_mm
        except ImportError:
            quantize = scaled_mm = None


        class Method:
            def __init__(self, n):
                if quantize is None or scaled_mm is None:
                    raise ImportError("comfy_kitchen is required")
                self.n = n


        def run_with_deadline(fn, timeout):
            error: list = []

            def _target():
                try:
                    fn()
                except BaseException as e:
                    error.append(e)

            thread = threading.Thread(target=_target)
            thread.start()
            thread.join(timeout)
            if thread.is_alive():
                raise TimeoutError("deadline passed")
            if error:
                raise RuntimeError(f"deadline task failed: {error[0]}")
        """,
}


def test_an_optional_import_is_read_from_the_module_holding_its_fallback(tmp_path):
    """Review 25: `from comfy_kitchen import quantize` then `quantize is not None` cannot see the
    package missing (the import raises first); the module's own name holds the import or None."""
    recs = records_by_message(index_sources(tmp_path, OPTIONAL, "o/kit"))
    r = recs["comfy_kitchen is required"]
    assert r["errdex"]["moduleImports"] == {"quantize": "from kit.quant import quantize",
                                            "scaled_mm": "from kit.quant import scaled_mm"}
    assert "from comfy_kitchen" not in r["exampleFix"] and "from comfy_kitchen" not in r["validationCode"]


def test_no_guard_is_written_when_the_values_fill_in_as_a_constant(tmp_path):
    """Review 25: `error = []`, filled by a nested function, written into the guard as `if not []:`."""
    r = records_by_message(index_sources(tmp_path, OPTIONAL, "o/kit"))["deadline task failed: {error[0]}"]
    assert r["errdex"]["condition"] == "not thread.is_alive() and error"
    assert r["exampleFix"] is None
