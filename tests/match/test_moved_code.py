"""Tracebacks printed by another version of the indexed code, whose raising statement
moved: to another module of the package, or further within its own file."""

import pytest

from errdex.match import explain
from errdex.match.events import parse_events
from errdex.match.text import split_clean_lines

from .conftest import both_engines, make_record

CACHE = "python/acme/cache/components/ring.py"
CHECKS = "python/acme/cache/checks.py"
ENGINE = "python/acme/dist/comm/pool_engine.py"
BACKUP = "python/acme/elastic/backup.py"
SERVER = "python/acme/serve/http_server.py"


ctx = both_engines(lambda: [
    make_record("", file_path=CACHE, line=1181, function="Ring.build_transfers",
                error_class="AssertionError", assert_test="node.host is not None or node.dev is not None"),
    make_record("", file_path=CACHE, line=1190, function="Ring.build_transfers",
                error_class="AssertionError", assert_test="node.lock_ref > 0"),
    make_record("", file_path=CHECKS, line=70, function="check_pages", error_class="AssertionError",
                assert_test="pages.size > 0"),
    make_record("", file_path=CHECKS, line=74, function="check_pages", error_class="AssertionError",
                assert_test="pages.dtype == torch.int64"),
    make_record("Unknown backend {name}", file_path="python/acme/api.py", line=12, function="pick"),
    make_record("Pool memory registration failed", file_path=ENGINE, line=150,
                function="TransferEngine.register", error_class="RuntimeError"),
    make_record("Pool memory registration failed (ret={ret})", file_path=ENGINE, line=153,
                function="TransferEngine.register", error_class="RuntimeError"),
    make_record("Pool memory registration failed.", file_path=BACKUP, line=161,
                function="BackupManager.start", error_class="RuntimeError"),
    make_record("Peer {peer} is gone", file_path="python/acme/disagg/pool/conn.py", line=90,
                function="Conn.poll", error_class="RuntimeError"),
    make_record("HTTP service did not become live at {url}", file_path=SERVER, line=101,
                function="wait_until_live", error_class="RuntimeError"),
    make_record("HTTP service failed its warmup: {err}", file_path=SERVER, line=160,
                function="warmup", error_class="RuntimeError"),
    make_record("Shard {name} is missing", file_path="python/acme/models/a.py", line=5, function="load"),
    make_record("Shard {name} is missing", file_path="python/acme/models/b.py", line=5, function="load"),
])


def _bare_assert(path: str, line: int, function: str, statement: str) -> str:
    return ("Traceback (most recent call last):\n"
            '  File "/venv/site-packages/acme/cache/radix.py", line 1240, in load_back\n'
            "    t = comp.build_transfers(\n"
            f'  File "/venv/site-packages/{path}", line {line}, in {function}\n'
            f"    {statement}\n"
            f"           {'^' * 20}\n"
            "AssertionError\n")


def test_a_bare_assert_keeps_the_statement_printed_under_its_frame():
    text = _bare_assert("acme/cache/ring_component.py", 448, "build_transfers", "assert node.lock_ref > 0")
    (event,) = parse_events(split_clean_lines(text))
    assert (event.error_class, event.message, event.failing_expr) == ("AssertionError", "", "node.lock_ref > 0")


@pytest.mark.parametrize("statement", ["assert (", "result = check(node)", "assert x, 'with a message'"])
def test_no_test_is_read_from_other_statements(statement):
    text = _bare_assert("acme/cache/ring_component.py", 448, "build_transfers", statement)
    (event,) = parse_events(split_clean_lines(text))
    assert event.failing_expr == ("x" if statement.endswith("message'") else None)


def test_a_bare_assert_in_a_renamed_module_is_found_by_its_test(ctx):
    """The module was renamed since (ring_component.py → components/ring.py): no frame
    resolves, and the printed test is the only one of its kind in the index."""
    text = _bare_assert("acme/cache/ring_component.py", 448, "build_transfers",
                        "assert node.host is not None or node.dev is not None")
    (m, *_) = explain(text, context=ctx)
    assert (m.file_path, m.line_number, m.confidence) == (CACHE, 1181, "high")


def test_the_printed_test_picks_the_assert_among_its_neighbours(ctx):
    """Two bare asserts near the printed line in the printed function: the frame alone
    cannot tell them apart, the test it prints can."""
    text = _bare_assert("acme/cache/checks.py", 72, "check_pages", "assert pages.dtype == torch.int64")
    matches = explain(text, context=ctx)
    assert [(m.line_number, m.via, m.confidence) for m in matches] == [(74, "frame", "high")]


def _moved(module: str, function: str, message: str) -> str:
    return ("Traceback (most recent call last):\n"
            '  File "/venv/site-packages/acme/disagg/pool/conn.py", line 173, in register_buffers\n'
            "    self.engine.register(ptr, size)\n"
            f'  File "/venv/site-packages/acme/{module}", line 36, in {function}\n'
            "    raise RuntimeError(msg)\n"
            f"RuntimeError: {message}\n")


def test_a_function_whose_module_was_merged_away_is_found_by_its_name(ctx):
    """transfer_engine.py is gone: its `register` lives on in another module, whose template
    the message fits; the same text raised by another function elsewhere is not the site."""
    (m, *_) = explain(_moved("disagg/pool/transfer_engine.py", "register", "Pool memory registration failed."),
                      context=ctx)
    assert (m.file_path, m.line_number, m.via, m.confidence) == (ENGINE, 150, "frame", "high")


def test_a_function_name_shared_by_two_modules_leaves_the_message_to_decide(ctx):
    matches = explain(_moved("models/c.py", "load", "ValueError: x"), context=ctx)
    assert all(m.via != "frame" for m in matches)
    matches = explain(_moved("models/c.py", "load", "Shard w1 is missing").replace("RuntimeError", "ValueError"),
                      context=ctx)
    assert {m.file_path for m in matches} == {"python/acme/models/a.py", "python/acme/models/b.py"}
    assert all(m.via == "message" for m in matches)


def _in_server(line: int, message: str) -> str:
    return ("Traceback (most recent call last):\n"
            '  File "/venv/site-packages/acme/serve/http_server.py", line 105, in run_warmup\n'
            "    await wait_until_ready(args)\n"
            f'  File "/venv/site-packages/acme/serve/http_server.py", line {line}, in wait_until_ready\n'
            '    raise RuntimeError(f"...")\n'
            f"RuntimeError: {message}\n")


def test_a_reworded_message_near_its_frame_names_the_site(ctx):
    """The function was renamed and its message reworded ('ready' is 'live' now): the frame
    pins the file and the neighbourhood, the message's opening words the statement."""
    (m, *_) = explain(_in_server(73, "HTTP service did not become ready at http://[::1]:10762/health"), context=ctx)
    assert (m.file_path, m.line_number, m.via, m.match_kind, m.confidence) == (SERVER, 101, "frame", "drift", "high")


@pytest.mark.parametrize("line, message", [
    (73, "HTTP error 503 from the router"),                        # shares too little of any opening
    (10, "HTTP service did not become ready at http://h:1/health"),  # too far from the statement
])
def test_no_reworded_match_without_the_opening_or_near_the_line(ctx, line, message):
    assert all(m.via != "frame" for m in explain(_in_server(line, message), context=ctx))



def test_an_indexed_asserts_test_is_matched_as_written(tmp_path):
    """The index keeps an assert's test as written, brackets and all (`ast.unparse` would
    write `H & H - 1 == 0` and `... and (page.size() == H)`), so the statement a traceback
    prints under a frame of a since renamed module finds it."""
    from errdex.pipeline import index_source

    pkg = tmp_path / "src" / "bitlib" / "kernels"
    pkg.mkdir(parents=True)
    (pkg.parent / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "pages.py").write_text(
        "def check(H, page):\n"
        "    assert H <= 16 or (H & (H - 1)) == 0\n"
        "    assert page is not None and H > 0 and page.size() == H\n")
    (pkg.parent / "io.py").write_text("def read(p):\n    raise OSError(f'cannot read {p}')\n")
    db = tmp_path / "errdex.db"
    index_source(str(tmp_path / "src"), db)
    for line, statement in ((2, "assert H <= 16 or (H & (H - 1)) == 0"),
                            (3, "assert page is not None and H > 0 and page.size() == H")):
        text = _bare_assert("bitlib/kernels/old_pages.py", 40, "check", statement)
        (m, *_) = explain(text, db=db)
        assert (m.file_path, m.line_number, m.confidence) == ("bitlib/kernels/pages.py", line, "high"), statement


def test_an_assert_at_the_printed_line_that_tests_something_else_is_not_the_site(ctx):
    """The frame's file and line exist here, but the assert on that line tests another thing:
    the printed one moved to another module in this version, where its test finds it."""
    text = _bare_assert("acme/cache/checks.py", 74, "check_pages", "assert node.lock_ref > 0")
    (m, *_) = explain(text, context=ctx)
    assert (m.file_path, m.line_number, m.confidence) == (CACHE, 1190, "high")
    same = _bare_assert("acme/cache/checks.py", 74, "check_pages", "assert pages.dtype == torch.int64")
    (m, *_) = explain(same, context=ctx)
    assert (m.file_path, m.line_number, m.via) == (CHECKS, 74, "frame")
