"""Which statements are sites, their class resolution, helpers, HTTP errors, warnings, bad files."""

from errdex.extract.files import extract_file


def by_line(sites):
    return {s.line: s for s in sites}


def test_asserts_with_and_without_message(extract):
    _, sites, _ = extract({"m.py": '''
        def f(x, n):
            assert x is not None, f"x missing for {n}"
            assert n > 0
    '''})
    s = by_line(sites)
    assert s[3].error_type == "assertion" and s[3].error_class == "AssertionError"
    assert s[3].message.text() == "x missing for {n}" and s[3].assert_test == "x is not None"
    assert s[4].message.text() == "" and s[4].assert_test == "n > 0"



def test_an_asserts_test_is_kept_as_written(extract):
    """As a traceback quotes it: `ast.unparse` would drop the brackets of `(H & (H - 1)) == 0`
    and add some to `v is not None` after an `and`. A comment in the test is no text to keep."""
    _, sites, _ = extract({"m.py": '''
        def f(H, q, k, v, xs):
            assert H <= 16 or (H & (H - 1)) == 0
            assert q is not None and k is not None and v is not None, "qkv"
            assert all(
                len(x) == H for x in xs
            )
            assert (H > 0  # positive
                    and H < 9)
            assert H in (
                1,
                2,
            )
    '''})
    s = by_line(sites)
    assert s[3].assert_test == "H <= 16 or (H & (H - 1)) == 0"
    assert s[4].assert_test == "q is not None and k is not None and v is not None"
    assert s[5].assert_test == "all( len(x) == H for x in xs )"
    assert s[8].assert_test == "H > 0 and H < 9"          # the comment is gone (unparsed)
    assert s[10].assert_test == "H in ( 1, 2, )"

def test_warnings_with_category_and_imported_warn(extract):
    _, sites, _ = extract({"m.py": '''
        import warnings
        from warnings import warn
        def f(x):
            warnings.warn(f"deprecated {x}", DeprecationWarning, stacklevel=2)
            warn("plain")
            warnings.warn("kw", category=FutureWarning)
    '''})
    got = [(s.line, s.error_type, s.severity, s.error_class, s.message.text()) for s in sites]
    assert got == [(5, "warning", "warning", "DeprecationWarning", "deprecated {x}"),
                   (6, "warning", "warning", "UserWarning", "plain"),
                   (7, "warning", "warning", "FutureWarning", "kw")]


def test_http_errors_and_error_codes(extract):
    _, sites, _ = extract({"api.py": '''
        from fastapi import HTTPException
        from flask import abort
        from http import HTTPStatus
        def get(item):
            if item is None:
                raise HTTPException(status_code=404, detail=f"item {item} not found")
            if item == 1:
                raise HTTPException(HTTPStatus.FORBIDDEN, "nope")
            abort(410, "gone")
            raise ServiceError("quota exceeded", code="E_QUOTA")
    '''})
    s = by_line(sites)
    assert (s[7].error_type, s[7].http_status, s[7].message.text()) == ("http", 404, "item {item} not found")
    assert (s[9].http_status, s[9].message.text()) == (403, "nope")
    assert (s[10].error_type, s[10].http_status, s[10].message.text()) == ("http", 410, "gone")
    assert (s[11].error_type, s[11].error_code) == ("exception", "E_QUOTA")


def test_class_hierarchy_resolves_through_imports_and_reexports(extract):
    _, sites, cb = extract({
        "pkg/__init__.py": "from .errors import KernelLimitError\n",
        "pkg/errors.py": '''
            class BaseError(RuntimeError):
                code = "E100"
            class KernelLimitError(ValueError):
                pass
            class Deep(BaseError):
                pass
        ''',
        "pkg/ops/__init__.py": "",
        "pkg/ops/run.py": '''
            import pkg
            from pkg import errors
            from ..errors import Deep
            def a(m):
                raise pkg.KernelLimitError(f"M={m}")
            def b():
                raise errors.KernelLimitError("x")
            def c():
                raise Deep("deep")
        ''',
    })
    s = {x.function: x for x in sites}
    info = cb.class_info(s["a"].class_ref)
    assert s["a"].error_class == "pkg.KernelLimitError"
    assert info.qualname == "pkg.errors.KernelLimitError"
    assert info.bases == ["ValueError"] and info.ancestors == ["ValueError", "Exception", "BaseException"]
    assert cb.class_info(s["b"].class_ref).qualname == "pkg.errors.KernelLimitError"
    deep = cb.class_info(s["c"].class_ref)
    assert deep.bases == ["pkg.errors.BaseError"]
    assert deep.ancestors[:2] == ["pkg.errors.BaseError", "RuntimeError"]
    assert deep.error_code == "E100"


def test_helper_calls_are_sites_of_their_own(extract):
    _, sites, _ = extract({
        "pkg/__init__.py": "",
        "pkg/util.py": '''
            def fail(msg):
                raise ValueError(msg)
            def check(cond, message):
                if not cond:
                    raise RuntimeError(f"[check] {message}")
            def validate(x):
                raise TypeError(f"bad {x}")
        ''',
        "pkg/user.py": '''
            from pkg.util import fail, check, validate
            from pkg import util
            class Model:
                def _err(self, what):
                    raise KeyError(what)
                def run(self, n):
                    if n < 0:
                        fail(f"negative n={n}")
                    check(n < 10, "n too large")
                    util.fail("via module")
                    self._err(f"missing {n}")
                    validate("not a message")
                    fail(some_var)
        ''',
    })
    helper_made = sorted((s.line, s.error_class, s.message.text(), s.helper) for s in sites if s.helper)
    assert helper_made == [
        (9, "ValueError", "negative n={n}", "pkg.util.fail"),
        (10, "RuntimeError", "[check] n too large", "pkg.util.check"),
        (11, "ValueError", "via module", "pkg.util.fail"),
        (12, "KeyError", "missing {n}", "pkg.user.Model._err"),
    ]
    assert all(s.file_path == "pkg/user.py" for s in sites if s.helper)


def test_a_helper_whose_message_comes_late_in_its_parameters(extract):
    """`raise_error_or_warn(obj, strict, counter, message)`: the message is the fourth argument, and a
    caller may build it in a local variable first."""
    _, sites, _ = extract({"m.py": '''
        def raise_error_or_warn(obj, strict, counter_name, message, log_interval=1000):
            if strict:
                raise ValueError(message)

        def report(pool, detail, strict):
            msg = f"{pool} leaked! {detail}"
            raise_error_or_warn(None, strict, "leaks", msg)
            raise_error_or_warn(None, strict, "leaks", message=f"{pool} again")
            raise_error_or_warn(None, strict, "leaks", "a", "b", "c", "d", "e", "f", "g")
    '''})
    helper_made = sorted((s.line, s.message.text(), s.helper) for s in sites if s.helper)
    assert helper_made == [
        (8, "{pool} leaked! {detail}", "m.raise_error_or_warn"),
        (9, "{pool} again", "m.raise_error_or_warn"),
        (10, "a", "m.raise_error_or_warn"),
    ]


def test_functions_are_qualified_and_nested_code_found(extract):
    _, sites, _ = extract({"m.py": '''
        class A:
            class B:
                def m(self):
                    with ctx():
                        for i in range(3):
                            while True:
                                try:
                                    pass
                                finally:
                                    raise ValueError("deep")
        def outer():
            def inner():
                match x:
                    case 1:
                        raise KeyError("matched")
            async def co():
                async with y:
                    raise OSError("async")
        raise SystemExit("module level")
    '''})
    assert {(s.function, s.message.text()) for s in sites} == {
        ("A.B.m", "deep"), ("outer.inner", "matched"), ("outer.co", "async"), ("<module>", "module level")}


def test_bad_files_become_diagnostics(tmp_path):
    cases = {
        "syntax.py": b"def f(:\n  pass\n",
        "py2.py": b'print "hello"\n',
        "latin.py": b"# -*- coding: latin-1 -*-\nraise ValueError('caf\xe9')\n",
        "undecodable.py": b"raise ValueError('\xff\xfe\xfa')\n",
        "binary.py": b"\x00\x01\x02garbage",
        "big.py": b"x = 1\n" * 200,
        "deep.py": ("x = " + "(" * 300 + "1" + ")" * 300 + "\n").encode(),
        "bom.py": "\ufeffraise ValueError('bom')\r\n".encode("utf-8"),
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    got = {}
    for name in cases:
        f = extract_file(str(tmp_path), name, name[:-3], max_bytes=1000)
        got[name] = (f.diagnostic.reason if f.diagnostic else None, [s.message.text() for s in f.sites])
    assert got["syntax.py"][0] == "syntax"
    assert got["py2.py"][0] == "python2"
    assert got["latin.py"] == (None, ["café"])
    assert got["undecodable.py"][0] == "decode"
    assert got["binary.py"][0] == "binary"
    assert got["big.py"][0] == "oversized"
    assert got["deep.py"][0] in ("recursion", "syntax")
    assert got["bom.py"] == (None, ["bom"])
    missing = extract_file(str(tmp_path), "nope.py", "nope")
    assert missing.diagnostic.reason == "io"


def test_namespace_packages_and_import_roots_name_modules(extract):
    facts, _, _ = extract({
        "python/pkg/__init__.py": "",
        "python/pkg/ns/deep.py": "def f():\n    raise ValueError('x')\n",
        "python/pkg/sub/__init__.py": "",
        "tests/test_x.py": "def test():\n    assert 1\n",
    })
    names = {f.file_path: f.module for f in facts}
    assert names == {"python/pkg/__init__.py": "pkg", "python/pkg/ns/deep.py": "pkg.ns.deep",
                     "python/pkg/sub/__init__.py": "pkg.sub", "tests/test_x.py": "test_x"}


def test_alias_cycles_end(extract):
    _, sites, cb = extract({
        "a/__init__.py": "from b import X\n",
        "b/__init__.py": "from a import X\n",
        "c.py": "import a\ndef f():\n    raise a.X.Y('cycle')\n",
    })
    assert cb.class_info(sites[0].class_ref).qualname.endswith("X.Y")


def test_a_package_below_a_folder_without_init_stays_in_its_top_package(extract):
    facts, _, _ = extract({
        "sglang/__init__.py": "",
        "sglang/srt/layers/attention/linear/__init__.py": "",
        "sglang/srt/layers/attention/linear/kernels/gdn.py": "def f():\n    raise ValueError('x')\n",
    })
    names = {f.file_path: f.module for f in facts}
    assert names["sglang/srt/layers/attention/linear/kernels/gdn.py"] == "sglang.srt.layers.attention.linear.kernels.gdn"


def test_line_endings_and_encodings_give_the_same_sites(tmp_path):
    """Files are parsed from their bytes unless a lone CR needs the decoded text: every form of one
    module gives the same sites, with placeholders cut at the right columns after non-ASCII text."""
    source = ("def f(naïve, x):\n"
              "    if naïve > 1:\n"
              "        raise ValueError(f\"é {naïve!r} à {x:>3}\")\n"
              "    assert x, 'ü ' + str(x)\n")
    forms = {
        "lf.py": source.encode("utf-8"),
        "crlf.py": source.replace("\n", "\r\n").encode("utf-8"),
        "cr.py": source.replace("\n", "\r").encode("utf-8"),
        "latin.py": ("# -*- coding: latin-1 -*-\n" + source).encode("latin-1"),
    }
    seen = {}
    for name, data in forms.items():
        (tmp_path / name).write_bytes(data)
        facts = extract_file(str(tmp_path), name, name[:-3])
        assert facts.diagnostic is None, name
        shift = 1 if name == "latin.py" else 0
        seen[name] = [(s.function, s.line - shift, s.message.text(), s.message.placeholders()) for s in facts.sites]
    assert seen["lf.py"] == [
        ("f", 3, "é {naïve!r} à {x:>3}", {"naïve!r": "naïve", "x:>3": "x"}),
        ("f", 4, "ü {x}", {"x": "x"}),
    ]
    assert all(got == seen["lf.py"] for got in seen.values()), seen


def test_a_helper_line_walk_analyzes_those_calls_only(tmp_path):
    """Helper calls are analyzed after linking, by walking their file again: that walk analyzes the
    calls asked for and leaves the file's own sites alone (the first walk analyzed them)."""
    from errdex.analyze.site import analyze_site

    (tmp_path / "m.py").write_text(
        "def f(qty, ok):\n"
        "    if qty < 0:\n"
        "        fail(f'negative {qty}')\n"
        "    if not ok:\n"
        "        raise ValueError('not ok')\n"
        "    if qty > 9:\n"
        "        fail(f'too many {qty}')\n", encoding="utf-8")
    first = extract_file(str(tmp_path), "m.py", "m", analyze=analyze_site)
    assert [(s.line, s.condition) for s in first.sites] == [(5, "not ok")]
    assert all(c.site.condition is None for c in first.helper_calls)   # not known as helpers yet

    again = extract_file(str(tmp_path), "m.py", "m", analyze=analyze_site, helper_lines=frozenset({3}),
                         calls=False)
    assert [s.condition for s in again.sites] == [None]
    assert [(c.site.line, c.site.condition) for c in again.helper_calls] == [(3, "qty < 0"), (7, None)]
    assert again.functions == []


def test_messages_naming_imported_string_constants_hold_their_text(extract):
    _, sites, _ = extract({
        "pkg/__init__.py": "from pkg.errors import REEXPORTED\n",
        "pkg/errors.py": '''
            NO_LORA = "LoRA weights cannot be captured in a graph"
            PREFIX = "[pkg] "
            REEXPORTED = "through the package"
            NOT_TEXT = 42
        ''',
        "pkg/use.py": '''
            from pkg.errors import NO_LORA, PREFIX, NOT_TEXT
            from pkg import REEXPORTED
            from elsewhere import UNKNOWN
            def f(x):
                if x == 1:
                    raise RuntimeError(NO_LORA)
                if x == 2:
                    raise ValueError(f"{PREFIX}bad {x}")
                if x == 3:
                    raise ValueError(REEXPORTED)
                if x == 4:
                    raise ValueError(UNKNOWN)
                if x == 5:
                    raise ValueError(NOT_TEXT)
                raise ValueError(f"{PREFIX!r} kept as a value")
        ''',
    })
    got = {s.line: (s.message.text(), s.message.form) for s in sites if s.file_path == "pkg/use.py"}
    assert got == {
        7: ("LoRA weights cannot be captured in a graph", "constant"),
        9: ("[pkg] bad {x}", "fstring"),
        11: ("through the package", "constant"),
        13: ("{UNKNOWN}", "dynamic"),        # not the codebase's: stays a value
        15: ("{NOT_TEXT}", "dynamic"),       # not a string
        16: ("{PREFIX!r} kept as a value", "fstring"),
    }


def test_raising_what_a_factory_returns(extract):
    """`raise self._exhausted(ratio, "KV", need)`: the class and message are those the factory returns,
    with the call's arguments in place of its parameters; a call to a non-factory stays as written."""
    _, sites, _ = extract({
        "pkg/__init__.py": "",
        "pkg/errors.py": '''
            class ContractError(ValueError):
                pass

            def _describe(v):
                return type(v).__name__

            def invalid_type(v, expected):
                return ContractError(f"invalid type: {_describe(v)}, expected {expected}")
        ''',
        "pkg/pool.py": '''
            from pkg.errors import invalid_type

            class _Private(ValueError):
                pass

            class Pool:
                @staticmethod
                def _exhausted(ratio: int, kind: str, need: int) -> RuntimeError:
                    return RuntimeError(f"c{ratio} {kind} pool exhausted: need {need}, ratio {ratio:>3}")

                def _maybe(self, flag):
                    if flag:
                        return KeyError("one")
                    return IndexError("two")

                def alloc(self, ratio, extend, v):
                    if ratio is None:
                        raise _Private("private class")
                    if extend is None:
                        raise self._exhausted(ratio, "KV", len(extend) + 1)
                    if v is None:
                        raise invalid_type(v, expected="a bool")
                    raise self._maybe(True)
        ''',
    })
    got = {s.line: (s.error_class, s.class_ref, s.message.text(), s.message.placeholders(), s.factory)
           for s in sites if s.file_path == "pkg/pool.py"}
    assert got == {
        19: ("_Private", "pkg.pool._Private", "private class", {}, False),   # a class, though private
        21: ("RuntimeError", "builtins.RuntimeError", "c{ratio} KV pool exhausted: need {(len(extend) + 1)}, ratio {ratio:>3}",
             {"ratio": "ratio", "(len(extend) + 1)": "(len(extend) + 1)", "ratio:>3": "ratio"}, True),
        23: ("ContractError", "pkg.errors.ContractError", "invalid type: {_describe(v)}, expected a bool",
             {"_describe(v)": "_describe(v)"}, True),
        24: ("self._maybe", "pkg.pool.Pool._maybe", "{True}", {"True": "True"}, True),   # two returned: as written
    }


def test_error_response_helpers_make_each_call_a_site(extract):
    """A server answering with an HTTP error body never raises: each call of the function that
    builds the body from a message parameter is a site (status and kind as the call gives them)."""
    _, sites, _ = extract({
        "srv/__init__.py": "",
        "srv/base.py": '''
            import json
            from http import HTTPStatus
            from fastapi.responses import ORJSONResponse
            from srv.protocol import ErrorResponse

            class Serving:
                def create_error_response(self, message: str, err_type: str = "BadRequestError",
                                          status_code: int = 400):
                    error = ErrorResponse(object="error", message=message, type=err_type)
                    return ORJSONResponse(content=error.model_dump(), status_code=status_code)

                def stream_error(self, message, status_code=HTTPStatus.BAD_REQUEST):
                    return json.dumps({"error": ErrorResponse(message=message, code=status_code).model_dump()})

                def ok_response(self, text, status_code=200):
                    return ORJSONResponse(content={"text": text}, status_code=status_code)
        ''',
        "srv/chat.py": '''
            from http import HTTPStatus
            from srv.base import Serving

            class Chat(Serving):
                def handle(self, request):
                    if not request.messages:
                        return self.create_error_response("Messages cannot be empty.")
                    if request.n > 8:
                        return self.create_error_response(
                            f"n={request.n} is too large", err_type="NotFoundError", status_code=HTTPStatus.NOT_FOUND)
                    if request.stream:
                        return self.stream_error(f"streaming {request.model} failed", 503)
                    self.create_error_response(str(request))
                    return self.ok_response("Messages are fine.")
        ''',
    })
    chat = {s.line: s for s in sites if s.file_path == "srv/chat.py"}
    assert sorted(chat) == [8, 10, 13]   # not the dynamic message, not the 200 answer
    assert (chat[8].error_type, chat[8].http_status, chat[8].error_class, chat[8].message.text()) == (
        "http", 400, "BadRequestError", "Messages cannot be empty.")
    assert (chat[10].http_status, chat[10].error_class, chat[10].message.text()) == (
        404, "NotFoundError", "n={request.n} is too large")
    assert (chat[13].http_status, chat[13].error_class) == (503, "ErrorResponse")
    assert chat[8].helper == "srv.base.Serving.create_error_response"
    assert not [s for s in sites if s.file_path == "srv/base.py"]   # the helpers' own calls are no sites


def test_a_validator_returning_its_error_message_makes_each_message_a_site(extract):
    """`validate_*`/`check_*` annotated `-> Optional[str]` returns its error message for its caller
    to fail the request with (set 2, set 3: users report these texts as they do raised ones)."""
    _, sites, _ = extract({"srv.py": '''
        from typing import Optional

        def validate_input_length(req, max_len: int) -> Optional[str]:
            if req is None:
                return None
            if len(req.ids) >= max_len:
                error_msg = (
                    f"Input length ({len(req.ids)} tokens) exceeds "
                    f"the maximum allowed length ({max_len} tokens)."
                )
                return error_msg
            if req.mode not in ("a", "b"):
                return str(req.mode)
            return None

        class Serving:
            def _validate_request(self, request) -> "str | None":
                if not request.messages:
                    return "Messages cannot be empty."

        def describe(x) -> Optional[str]:
            return f"a value of {x} that is described"

        def check_short(x) -> Optional[str]:
            return "too short"
    '''})
    got = {s.line: (s.error_type, s.error_class, s.message.text()) for s in sites}
    assert got == {
        12: ("returned", None, "Input length ({len(req.ids)} tokens) exceeds the maximum allowed length ({max_len} tokens)."),
        20: ("returned", None, "Messages cannot be empty."),
    }
