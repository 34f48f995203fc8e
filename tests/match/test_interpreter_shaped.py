"""A template that renders like the interpreter's own messages is never high confidence on its text alone."""

import pytest

from errdex.match import explain
from errdex.match.builtin_messages import interpreter_shaped

from .conftest import both_engines, make_record

CONFIG = "python/sglang/configs/base.py"


ctx = both_engines(lambda: [
    make_record("'{type(self).__name__}' object has no attribute '{name}'", file_path=CONFIG, line=34,
                function="BaseConfig.__getattr__", error_class="AttributeError",
                bases=["Exception", "BaseException"]),
    make_record("{fn}() got an unexpected keyword argument '{key}'", file_path="python/sglang/api.py", line=9,
                function="call", error_class="TypeError", bases=["Exception", "BaseException"]),
    make_record("Unsupported dtype {dtype} for the fused MoE kernel; use bfloat16 or float16",
                file_path="python/sglang/dtypes.py", line=5, function="check"),
])


@pytest.mark.parametrize("text", [
    "AttributeError: 'NoneType' object has no attribute 'shape'",
    "'NoneType' object has no attribute 'shape'",
    "TypeError: forward() got an unexpected keyword argument 'positions'",
])
def test_interpreter_shaped_lines_match_but_not_with_high_confidence(ctx, text):
    matches = explain(text, context=ctx)
    assert matches and all(m.confidence == "low" for m in matches)


def test_an_interpreter_message_behind_a_servers_label_is_still_low(ctx):
    """`Error in request: <message>` grades the part behind the label as a whole message:
    when that part is the interpreter's own wording, it proves nothing either."""
    matches = explain("[2025-01-02 10:00:00] Error in request: 'NoneType' object has no attribute 'spec_'",
                      context=ctx)
    assert matches and matches[0].file_path == CONFIG and all(m.confidence == "low" for m in matches)


def test_a_frame_in_the_record_file_still_makes_it_high(ctx):
    text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/venv/site-packages/sglang/configs/base.py", line 34, in __getattr__\n'
        "    raise AttributeError(\n"
        "AttributeError: 'ModelConfig' object has no attribute 'rope'\n"
    )
    (m, *_) = explain(text, context=ctx)
    assert (m.file_path, m.via, m.confidence, m.bindings["name"]) == (CONFIG, "frame", "high", "rope")


def test_a_distinctive_template_keeps_high_confidence(ctx):
    (m, *_) = explain("ValueError: Unsupported dtype fp8 for the fused MoE kernel; use bfloat16 or float16", context=ctx)
    assert m.confidence == "high"


@pytest.mark.parametrize("cls, message, shaped", [
    ("AttributeError", "'NoneType' object has no attribute 'shape'", True),
    ("builtins.AttributeError", "module 'torch' has no attribute 'float8'", True),
    ("RuntimeError", "'x' object has no attribute 'y'", False),          # not how Python raises it
    ("ValueError", "too many values to unpack (expected 2)", True),
    ("ValueError", "Unsupported dtype: x", False),
    ("KeyError", "'Unknown model foo'", False),                            # a KeyError's text is the codebase's own
    ("OSError", "[Errno 98] Address already in use", True),
    ("IndexError", "list index out of range", True),
    (None, "list index out of range", True),
    (None, "Packed decode kernel only supports NK=1", False),
    ("AttributeError", "module 'torch' has no attribute 'float8_e4", True),   # cut inside the last name
    ("AttributeError", "module 'torch' has no attribute", False),
    ("SystemExit", "error: unrecognized arguments: --tp 2", True),            # argparse's own words
    (None, "error: the following arguments are required: --model-path", True),
])
def test_shapes(cls, message, shaped):
    assert interpreter_shaped(cls, message) is shaped


def test_the_answer_kept_for_the_last_text_is_only_reused_for_the_same_class_and_text():
    message = "'NoneType' object has no attribute 'shape'"
    assert interpreter_shaped("AttributeError", message)
    assert interpreter_shaped("AttributeError", message)            # asked again, as for a tied record
    assert not interpreter_shaped("ValueError", message)            # the same text under another class
    other = "".join(["Expected 8 experts", " per rank"])
    assert not interpreter_shaped("AttributeError", other)
    assert interpreter_shaped(None, message)                         # no class printed: any shape
    assert interpreter_shaped("AttributeError", "'int' object has no attribute 'x'")
