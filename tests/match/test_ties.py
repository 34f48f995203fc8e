"""Identical templates at several sites: the text cannot tell them apart, so ties stay ties,
but a copy of a subsystem in a deeper tree (same file name) ranks after its original."""

import pytest

from errdex.match import MatchContext, explain
from errdex.match.events import line_event
from errdex.match.linematch import LineMatcher
from errdex.match.resolve import match_event

from .conftest import make_record

MSG = "Backends {names} are not supported in this build. Supported: {known}"
COPY = "python/acme/gen/runtime/models/registry.py"
ORIGINAL = "python/acme/srv/models/registry.py"


@pytest.fixture(params=["hyperscan", "python"])
def ctx(request, tmp_path):
    records = [   # dataset order puts the copy first (it sorts first by path)
        make_record(MSG, file_path=COPY, line=264, function="resolve"),
        make_record(MSG, file_path=ORIGINAL, line=63, function="resolve"),
        make_record("Graph capture failed: {e}", file_path="python/acme/runner/decode_graphs.py", line=602,
                    error_class="Exception"),
        make_record("Graph capture failed: {e}", file_path="python/acme/spec/draft_graphs.py", line=296,
                    error_class="Exception"),
    ]
    return MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend=request.param)


def test_the_copy_in_a_deeper_tree_ranks_after_the_original(ctx):
    first, second = explain("ValueError: Backends ['x'] are not supported in this build. Supported: a, b",
                            context=ctx)
    assert first.score == second.score
    assert (first.file_path, second.file_path) == (ORIGINAL, COPY)


def test_ties_between_different_files_keep_their_order(ctx):
    first, second = explain("Exception: Graph capture failed: out of memory", context=ctx)
    assert first.score == second.score
    assert [first.line_number, second.line_number] == [602, 296]


def test_a_scans_fast_path_orders_ties_as_explain_does(ctx):
    line = "ERROR ValueError: Backends ['x'] are not supported in this build. Supported: a, b"
    hits = ctx.engine.scan_block(line.encode())
    event = line_event(line, 1)
    fast = LineMatcher(ctx.engine).match(event, hits[0].candidates, line)
    slow = match_event(event, ctx.index, ctx.engine, top_only=True, hint=hits[0].candidates, seen_in=line)
    assert [m.file_path for m in fast] == [m.file_path for m in slow] == [ORIGINAL, COPY]


@pytest.fixture(params=["hyperscan", "python"])
def named_ctx(request, tmp_path):
    records = [
        make_record("Can not alloc slot", file_path="python/acme/cache/slots.py", line=221,
                    function="finish_match", error_class="AssertionError", error_type="assertion"),
        make_record("Can not alloc slot", file_path="python/acme/cache/slots.py", line=552,
                    function="_alloc_slot", error_class="AssertionError", error_type="assertion"),
    ]
    return MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend=request.param)


def test_a_tie_goes_first_to_the_site_whose_function_the_text_names(named_ctx):
    """A traceback retyped by hand (no `File "..."`): its frames are not parsed, yet they name the
    function, and of two sites with one template that names one."""
    text = ("AssertionError: Can not alloc slot\n"
            "  slot_component.py, line 498, in _alloc_slot\n"
            "  slot_component.py, line 589, in prepare\n")
    first, second = explain(text, context=named_ctx)
    assert first.score == second.score
    assert [first.line_number, second.line_number] == [552, 221]
    first, second = explain("AssertionError: Can not alloc slot", context=named_ctx)
    assert [first.line_number, second.line_number] == [221, 552]   # nothing named: as ranked


LOADER = "Ignore import error when loading {name}: {e}"


@pytest.fixture(params=["hyperscan", "python"])
def loader_ctx(request, tmp_path):
    """One logged template in three registries' functions of one name (dataset order: by path)."""
    records = [make_record(LOADER, file_path=path, line=line, function="import_model_classes",
                           error_class="logger.warning", error_type="log")
               for path, line in (("acme/dllm/algorithm/__init__.py", 20),
                                  ("acme/managers/multimodal_processor.py", 24),
                                  ("python/acme/models/registry.py", 132))]   # a checkout's layout folder
    return MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend=request.param)


def test_a_tie_goes_first_to_the_site_whose_package_a_value_names(loader_ctx):
    line = ("[2025-08-24 06:25:37 TP0] Ignore import error when loading acme.models.glm4v_moe: "
            "No module named 'transformers.models.glm4v_moe'")
    ranked = explain(line, context=loader_ctx)
    assert len({m.score for m in ranked}) == 1
    assert [m.line_number for m in ranked] == [132, 20, 24]
    # its words cover half the line up to the error it appends: high, with no class printed
    assert ranked[0].confidence == "high"
    # a module of no site's package (`acme.modelsx`, `xacme.models`): as ranked
    for other in ("acme.modelsx.glm", "xacme.models.glm"):
        ranked = explain(f"Ignore import error when loading {other}: No module named 'x'", context=loader_ctx)
        assert [m.line_number for m in ranked] == [20, 24, 132]


def test_a_short_logged_label_with_an_appended_error_stays_low(tmp_path):
    """`Error in request: {e}` (18 characters) before a long appended error is no witness alone."""
    records = [make_record("Error in request: {e}", file_path="acme/serving.py", line=137,
                           function="handle", error_class="logger.exception", error_type="log")]
    ctx = MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend="python")
    (m,) = explain("Error in request: the upstream connection was reset by the peer", context=ctx)
    assert m.confidence == "low"


LOADING = "Ignore import error when loading {name}: {e}"


@pytest.fixture(params=["hyperscan", "python"])
def loaders(request, tmp_path):
    records = [   # three registries print the same warning; dataset order puts the wrong one first
        make_record(LOADING, file_path="acme/alt/plugins/__init__.py", line=20, function="import_plugins",
                    error_type="log", error_class=None),
        make_record(LOADING, file_path="acme/srv/models/registry.py", line=132, function="import_models",
                    error_type="log", error_class=None),
        make_record(LOADING, file_path="acme/srv/processors.py", line=24, function="import_processors",
                    error_type="log", error_class=None),
    ]
    return MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend=request.param)


def test_a_value_naming_a_module_puts_the_site_of_its_package_first(loaders):
    text = "[2025-03-10 14:17:52 TP6] Ignore import error when loading acme.srv.models.deepseek: No module named 'x'"
    matches = explain(text, context=loaders)
    assert [m.file_path for m in matches][:1] == ["acme/srv/models/registry.py"]
    assert len({m.score for m in matches}) == 1   # still a tie: all three are shown
    import io

    from errdex.match import scan

    report = scan(io.BytesIO((text + "\n").encode()), context=loaders)
    assert report.occurrences[0].file_path == "acme/srv/models/registry.py"


def test_a_value_naming_no_module_leaves_the_order(loaders):
    matches = explain("Ignore import error when loading plugins: boom", context=loaders)
    assert [m.file_path for m in matches][0] == "acme/alt/plugins/__init__.py"


def test_a_value_opening_with_a_module_path_orders_the_tie_too(loaders):
    """An older version printed `{name}. {e}`: the text fits the templates only as a cut, the value
    running on past the module's name."""
    text = "Ignore import error when loading acme.srv.models.deepseek. No module named 'x'"
    matches = explain(text, context=loaders)
    assert matches and matches[0].file_path == "acme/srv/models/registry.py"


CAPTURE = "Capture graph failed: {e}"


@pytest.fixture(params=["hyperscan", "python"])
def runners(request, tmp_path):
    records = [   # dataset order puts the speculative copies first
        make_record(CAPTURE, file_path="acme/spec/draft_runner.py", line=296, function="Draft.__init__",
                    error_class="Exception", bases=["Exception"]),
        make_record(CAPTURE, file_path="acme/spec/extend_runner.py", line=305, function="Extend.__init__",
                    error_class="Exception", bases=["Exception"]),
        make_record(CAPTURE, file_path="acme/exec/runner/decode_runner.py", line=602, function="Decode.__init__",
                    error_class="Exception", bases=["Exception"]),
    ]
    return MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend=request.param)


def test_the_tied_site_in_the_directory_the_frames_name_comes_first(runners):
    """A real report: the frames named a runner module renamed since; of four sites printing the
    message, the one under the frames' directory is the one that ran."""
    text = ("Traceback (most recent call last):\n"
            '  File "/srv/acme/exec/model_runner.py", line 934, in init_graphs\n'
            "    self.graph_runner = GraphRunner(self)\n"
            '  File "/srv/acme/exec/graph_runner.py", line 269, in __init__\n'
            "    raise Exception(\n"
            "Exception: Capture graph failed: CUDA out of memory.\n")
    matches = explain(text, context=runners)
    assert len({m.score for m in matches}) == 1 and len(matches) == 3
    assert matches[0].file_path == "acme/exec/runner/decode_runner.py"
    plain = explain("Exception: Capture graph failed: CUDA out of memory.", context=runners)
    assert plain[0].file_path == "acme/spec/draft_runner.py"   # no frames: the order stays
