"""The walker leaves no reference cycles: a file's syntax tree is freed as soon as its facts are built."""

import gc

from errdex.extract.files import extract_file, extract_file_lines

from .conftest import write_tree

SOURCE = '''
import warnings

class Broken(Exception):
    pass

def check(n, kind):
    if n < 0:
        raise Broken(f"negative {n} for {kind}")
    warnings.warn("slow path", RuntimeWarning)
    assert kind, "kind is required"
'''


def test_extracting_a_file_leaves_nothing_for_the_cyclic_collector(tmp_path):
    write_tree(tmp_path, {"mod.py": SOURCE})
    gc.collect()
    gc.disable()
    try:
        facts = extract_file(str(tmp_path), "mod.py", "mod")
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert len(facts.sites) == 3
    assert unreachable == 0


def test_extract_file_lines_gives_the_decoded_lines_or_none_for_a_bad_file(tmp_path):
    write_tree(tmp_path, {"mod.py": SOURCE, "bad.py": "def (:\n"})
    facts, lines = extract_file_lines(str(tmp_path), "mod.py", "mod")
    assert lines == (tmp_path / "mod.py").read_text().split("\n") and facts.line_count == len(lines)
    bad, none = extract_file_lines(str(tmp_path), "bad.py", "bad")
    assert bad.diagnostic is not None and none == []
