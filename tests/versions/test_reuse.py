"""A later version reuses the local analysis of the sites whose function it did not change up to
the statement holding them."""

import textwrap

import pytest

import errdex.analyze.site as site_module
from errdex.analyze.reuse import RESULT_FIELDS, ReusingAnalyzer
from errdex.analyze.site import analyze_site
from errdex.extract.files import extract_file
from errdex.pipeline import index_source
from errdex.store import Store

from .conftest import write_files

REPO = "o/pkg"

LOADER_V1 = textwrap.dedent('''
    import json


    def load(path, strict=True):
        check_path(path)
        try:
            with open(path) as fh:
                data = json.load(fh)
            if strict and "version" not in data:
                raise KeyError(f"{path} has no version")
        except OSError as exc:
            raise RuntimeError(f"cannot read {path}") from exc
        return data


    def scale(x, factor):
        if factor <= 0:
            raise ValueError(f"factor {factor} must be positive")
        assert x is not None, "x is None"
        return x * factor
''')

# Two lines added above `load` (its lines move down by 2, and the line its sites' reasons name,
# `check_path(...)`'s, with them); `scale` gets a new check between its first raise and its assert.
LOADER_V2 = "# loaders\n# (reformatted)\n" + LOADER_V1.replace(
    '    assert x is not None, "x is None"\n',
    '    if factor > 64:\n        raise ValueError(f"factor {factor} over 64")\n'
    '    assert x is not None, "x is None"\n')


def _extract(root, analyze):
    return extract_file(str(root), "pkg/loader.py", "pkg.loader", analyze=analyze)


def _line(text, code):
    return text.split("\n").index(code) + 1


def test_unchanged_function_keeps_its_analysis_and_moves_its_handler_lines(tmp_path):
    src = write_files(tmp_path / "src", {"pkg/__init__.py": "", "pkg/loader.py": LOADER_V1})
    before = _extract(src, ReusingAnalyzer(analyze_site))
    assert all(s.analysis_key for s in before.sites)
    write_files(src, {"pkg/__init__.py": "", "pkg/loader.py": LOADER_V2})
    analyzed = []

    def spy(scope, path, site, lines=None):
        analyzed.append(site.line)
        analyze_site(scope, path, site, lines)

    reusing = ReusingAnalyzer(spy, before.sites)
    after = _extract(src, reusing)
    fresh = _extract(src, analyze_site)
    by_line = {s.line: s for s in after.sites}
    assert sorted(by_line) == sorted(s.line for s in fresh.sites)
    scale_lines = sorted(s.line for s in after.sites if s.function == "scale")
    assert len(scale_lines) == 3 and len(after.sites) == 5
    # Only the sites at or after the edit are analyzed again: `scale`'s first raise comes before it.
    assert sorted(analyzed) == scale_lines[1:]
    assert reusing.reused == 3
    for site in fresh.sites:
        for name in RESULT_FIELDS:
            assert getattr(by_line[site.line], name) == getattr(site, name), (site.line, name)
    # The reasons name `check_path(...)`'s line, which moved down with the function.
    moved = _line(LOADER_V2, "    check_path(path)")
    assert moved == _line(LOADER_V1, "    check_path(path)") + 2
    assert all(f"(line {moved})" in by_line[s.line].condition_reason for s in after.sites if s.function == "load")
    # The KeyError is raised in the try body: its handler's line moved down with the function.
    key_error = by_line[_line(LOADER_V2, '            raise KeyError(f"{path} has no version")')]
    assert [h[0] for h in key_error.handlers] == [_line(LOADER_V2, "    except OSError as exc:")]
    assert _line(LOADER_V2, "    except OSError as exc:") == _line(LOADER_V1, "    except OSError as exc:") + 2


@pytest.fixture
def counted(monkeypatch):
    """How many sites the full analysis ran for (jobs=1: in this process)."""
    calls = []

    def counting(scope, path, site, lines=None):
        calls.append((site.file_path, site.line))
        analyze_site(scope, path, site, lines)

    monkeypatch.setattr(site_module, "analyze_site", counting)
    return calls


def test_second_version_in_one_file_analyzes_only_changed_functions_and_matches_a_fresh_index(tmp_path, counted):
    src = write_files(tmp_path / "src", {"pkg/__init__.py": "", "pkg/loader.py": LOADER_V1})
    shared = tmp_path / "shared.db"
    index_source(str(src), shared, repo=REPO, version="1", jobs=1)
    assert len(counted) == 4
    counted.clear()
    write_files(src, {"pkg/__init__.py": "", "pkg/loader.py": LOADER_V2})
    index_source(str(src), shared, repo=REPO, version="2", jobs=1)
    scale = [_line(LOADER_V2, code) for code in ('        raise ValueError(f"factor {factor} must be positive")',
                                                 '        raise ValueError(f"factor {factor} over 64")',
                                                 '    assert x is not None, "x is None"')]
    assert sorted(line for _, line in counted) == scale[1:]   # `load`'s two sites and the edit's first are reused
    counted.clear()
    alone = tmp_path / "alone.db"
    index_source(str(src), alone, repo=REPO, version="2", jobs=1)
    assert len(counted) == 5

    def records(db):
        with Store.open(db, readonly=True) as store:
            return {r["lineNumber"]: r for r in store.iter_records(f"{REPO}@2")}

    got, want = records(shared), records(alone)
    assert got.keys() == want.keys()
    for line, record in want.items():
        for key in ("errorMessage", "validationCode", "solutions", "triggerScenarios", "tryCatchPattern"):
            assert got[line].get(key) == record.get(key), (line, key)
        mine, theirs = got[line]["errdex"], record["errdex"]
        for key in ("condition", "conditionExact", "feeding", "callers", "entryPoints", "provenance"):
            assert mine.get(key) == theirs.get(key), (line, key)


def test_an_edit_after_a_site_keeps_its_analysis_but_not_a_change_to_what_the_function_binds(tmp_path):
    """What follows the statement holding a site does not decide its analysis, except through the
    function's summaries: a name bound below (here `limit`) makes the site's test read a local."""
    v1 = textwrap.dedent('''
        def admit(n, limit):
            if n > limit:
                raise ValueError(f"{n} over {limit}")
            return n
    ''')
    below = v1.replace("    return n\n", "    print(n)\n    return n\n")
    rebinds = v1.replace("    return n\n", "    limit = 0\n    return n\n")
    src = write_files(tmp_path / "src", {"pkg/__init__.py": "", "pkg/loader.py": v1})
    before = _extract(src, ReusingAnalyzer(analyze_site))
    for text, reused in ((below, 1), (rebinds, 0)):
        write_files(src, {"pkg/loader.py": text})
        reusing = ReusingAnalyzer(analyze_site, before.sites)
        (site,) = _extract(src, reusing).sites
        (fresh,) = _extract(src, analyze_site).sites
        assert reusing.reused == reused
        assert [getattr(site, name) for name in RESULT_FIELDS] == [getattr(fresh, name) for name in RESULT_FIELDS]
