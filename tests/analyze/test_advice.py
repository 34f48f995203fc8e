"""The fix a message states itself is quoted as written; statements that are not instructions are not."""

from __future__ import annotations

import pytest

from errdex.analyze.advice import message_advice


@pytest.mark.parametrize("template, expected", [
    ("Wan-Animate-2 does not support --use-fsdp-inference; use --dit-layerwise-offload or --tp-size instead.",
     ["use --dit-layerwise-offload or --tp-size instead."]),
    ("Please install timm", ["Please install timm"]),
    ("Rank {rank} namespace '{namespace}' not initialized. Please call /{rank}/initialize first.",
     ["Please call /{rank}/initialize first."]),
    ("scipy is required to mux audio into mp4 (pip install scipy)", ["pip install scipy"]),
    ("Capture failed: {e}\nPossible solutions:\n1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)\n"
     "2. set --cuda-graph-max-bs-decode to a smaller value (e.g., 16)\n3. disable CUDA graph.",
     ["set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)",
      "set --cuda-graph-max-bs-decode to a smaller value (e.g., 16)"]),
    ("Use a backend that does not use this interface (e.g. file or mooncake).",
     ["Use a backend that does not use this interface (e.g. file or mooncake)."]),
    ("Pinned memory is off. Use pinned memory for the host pool.", ["Use pinned memory for the host pool."]),
    ("Out-of-tree platform {name} provides no {subsystem}. Override {hook} on your SRTPlatform subclass",
     ["Override {hook} on your SRTPlatform subclass"]),
    # A clause after a spaced dash is a sentence of its own; "declare", "convert", "see" instruct too.
    ("server_args.{name} assigned during resolution; the record is the operator's input -- declare the decision "
     "with declare_resolution(server_args, source, **fields).",
     ["declare the decision with declare_resolution(server_args, source, **fields)."]),
    ("no forward context active \u2014 call set_forward_context(...) before reading it.",
     ["call set_forward_context(...) before reading it."]),
    ("MLX 0.32 does not support complex128; convert the tensor to complex64 explicitly",
     ["convert the tensor to complex64 explicitly"]),
    ("Server exited during startup (exit code {code}); see the traceback above for the cause.",
     ["see the traceback above for the cause."]),
])
def test_instructions_in_the_message_are_quoted_as_written(template, expected):
    assert message_advice(template) == expected


@pytest.mark.parametrize("template", [
    "launch failed",
    "Check failed for {name}",
    "Run timed out after {t} s",
    "register memory failed for weight {name}, error: {ret}",
    "override: unknown config field {name!r}",
    "retry() exceed maximum number of retries.",
    "Running the workflow would drop the reference images instead of editing them.",
    "x must be positive, got {x}",
    "don't support use qformer and conv downsample together",
    "we do not support {mode} -- only a and b",
    "",
    None,
])
def test_statements_are_not_advice(template):
    assert message_advice(template) == []


@pytest.mark.parametrize("message", [
    "Disable --enable-fusion because deterministic inference is enabled.",
    "Set DSA backends for FP8 KV Cache on SM120: prefill=flashinfer_sparse_mla, decode=flashinfer_sparse_mla.",
    "Use {backend} as attention backend on {platform} for this model",
    "Disable hybrid SWA memory for {arch} as it is not yet supported.",
])
def test_a_log_telling_what_the_code_did_gives_no_advice(message):
    """Review 29 #16: a log line reporting a choice the code made reads like an order; quoted as the
    fix, it stops nothing. Raised, the same words are an instruction."""
    assert message_advice(message, report=True) == []
    assert message_advice(message) != []


def test_a_log_that_asks_keeps_its_advice():
    assert message_advice("Please set `--max-total-tokens` because memory is low.", report=True) == [
        "Please set `--max-total-tokens` because memory is low."]
