"""Frames are read against the indexed package: another package's copy of an indexed file
(same relative path, same function) is not the indexed site, and a module the indexed
package renamed since is not "outside" it."""


from errdex.match import explain
from errdex.match.patterns import RecordRef
from errdex.match.resolve import RecordIndex

from .conftest import both_engines, make_record

WRAPPER = "acme/comm/lib_wrapper.py"


ctx = both_engines(lambda: [
    make_record("LIB error: {error_str}", file_path=WRAPPER, line=474, function="LIB_CHECK",
                error_class="RuntimeError"),
    make_record("Graph capture failed while building the runner: {e}\n{HINT}", file_path="acme/runner/graph_runner.py",
                line=602, function="capture_all", error_class="Exception"),
    make_record("{n} is odd", file_path="acme/runner/util.py", line=3, function="check"),
])


def _frames(path: str, function: str, line: int, source: str) -> str:
    return (f'  File "/usr/lib/python3.12/site-packages/{path}", line {line}, in {function}\n'
            f"    {source}\n")


def test_another_packages_copy_of_a_file_is_not_the_indexed_site(ctx):
    text = ("Traceback (most recent call last):\n"
            + _frames("othertool/comm/lib_wrapper.py", "LIB_CHECK", 256, 'raise RuntimeError(f"LIB error: {s}")')
            + "RuntimeError: LIB error: unhandled system error (see LIB_DEBUG=INFO for details)\n")
    matches = explain(text, context=ctx)
    assert all(m.via != "frame" and m.confidence == "low" for m in matches)


def test_the_indexed_packages_own_frame_still_resolves(ctx):
    text = ("Traceback (most recent call last):\n"
            + _frames("acme/comm/lib_wrapper.py", "LIB_CHECK", 350, 'raise RuntimeError(f"LIB error: {s}")')
            + "RuntimeError: LIB error: unhandled system error (see LIB_DEBUG=INFO for details)\n")
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.via, m.confidence) == (474, "frame", "high")


def test_a_short_relative_path_cannot_name_its_package_and_still_resolves(ctx):
    text = ('  File "comm/lib_wrapper.py", line 474, in LIB_CHECK\n'
            '    raise RuntimeError(f"LIB error: {s}")\n'
            "RuntimeError: LIB error: internal error\n")
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.via) == (474, "frame")


def test_a_module_renamed_since_does_not_make_the_raise_foreign(ctx):
    # `runner/old_graph_runner.py` is gone from the indexed version; the message still names the site.
    text = ("Traceback (most recent call last):\n"
            + _frames("acme/runner/old_graph_runner.py", "__init__", 239, "raise Exception(")
            + "Exception: Graph capture failed while building the runner: CUDA error: out of memory while capturing\n")
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.via, m.confidence) == (602, "message", "high")


def test_a_frame_in_another_package_still_makes_the_raise_foreign(ctx):
    text = ("Traceback (most recent call last):\n"
            + _frames("othertool/runner/graph_runner.py", "__init__", 239, "raise Exception(")
            + "Exception: Graph capture failed while building the runner: CUDA error: out of memory while capturing\n")
    assert all(m.confidence == "low" for m in explain(text, context=ctx))


def _index(*paths: str, repo: str = "acme/pkg") -> RecordIndex:
    return RecordIndex([RecordRef.from_record(i, make_record("x {v}", file_path=p, repo=repo))
                        for i, p in enumerate(paths)])


def test_the_package_directory_is_the_last_one_all_files_share():
    index = _index("python/acme/a/x.py", "python/acme/b/y.py")
    assert index.roots.root_of["python/acme/a/x.py"] == "acme"
    assert index.in_indexed_package("/site-packages/acme/a/gone.py")
    assert not index.in_indexed_package("/site-packages/acme/zzz/gone.py")   # no such directory
    assert not index.in_indexed_package("/site-packages/other/a/gone.py")


def test_a_repo_without_a_shared_directory_checks_no_package():
    index = _index("x.py", "pkg/y.py")
    assert index.files_for("/anywhere/else/pkg/y.py") == ["pkg/y.py"]
    assert not index.in_indexed_package("/anywhere/pkg/gone.py")
