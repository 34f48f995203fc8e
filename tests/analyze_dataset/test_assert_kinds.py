"""An assert on what the caller passed is input validation, not an internal invariant (review 17 P3:
every assert was told as "a state the function assumes cannot occur: a bug upstream")."""

import pytest

from .sources import index_sources, records_by_message

FILES = {
    "ops/__init__.py": "",
    "ops/mm.py": """
        import torch

        MODES = ("tn", "nn")


        def matmul(a, b, *, kind="nn", alpha=1.0):
            assert kind in MODES, f"kind {kind} is neither tn nor nn"
            assert 0 < alpha <= 1, "alpha out of range"
            assert a.shape[1] == b.shape[0], "inner sizes differ"
            n = a.shape[0]
            assert n % 16 == 0, "rows not a multiple of 16"
            return a @ b


        def send(blocks, chunk):
            start, end = chunk

            def set_blocks(i):
                assert start <= i < end, "block outside the chunk"
                return blocks[i]

            return [set_blocks(i) for i in range(start, end)]


        def get_tensor_model_parallel_world_size():
            return 1


        class Attention:
            def __init__(self, config):
                self.total_num_heads = config.num_attention_heads
                tp_size = get_tensor_model_parallel_world_size()
                assert self.total_num_heads % tp_size == 0, "heads not divisible"
                self.heads = self.total_num_heads // tp_size
                assert self.heads > 0, "no heads left"


        class Cache:
            def __init__(self):
                self.ready = False

            def get(self, key):
                assert self.ready, "cache used before it is ready"
                assert len([k for k in key if k]) > 0, "empty key"
                return key
        """,
}


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    return records_by_message(index_sources(tmp_path_factory.mktemp("asserts"), FILES, "o/ops"))


@pytest.mark.parametrize("message", ["kind {kind} is neither tn nor nn", "alpha out of range", "empty key"])
def test_an_assert_on_parameters_checks_an_input(recs, message):
    rec = recs[message]
    assert rec["errdex"]["checksArguments"] is True
    assert rec["backgroundTag"] == "input-validation"
    assert rec["errdex"]["provenance"]["backgroundTag"] == "heuristic:taxonomy:assert-on-arguments"
    assert rec["handlingStrategy"] == "validate"
    assert "assumes cannot occur" not in rec["commonSituations"]


@pytest.mark.parametrize("message", ["cache used before it is ready", "rows not a multiple of 16",
                                     "block outside the chunk"])
def test_an_assert_on_state_or_a_local_stays_an_invariant(recs, message):
    rec = recs[message]
    assert "checksArguments" not in rec["errdex"]
    assert rec["backgroundTag"] == "internal-invariant"


def test_a_shape_check_keeps_its_own_rule(recs):
    assert recs["inner sizes differ"]["backgroundTag"] == "shape-dtype-mismatch"


def test_an_assert_on_the_parallel_sizes_is_a_configuration(recs):
    """Review 20 #27831: `num_heads % tp_size == 0` was "a state the function assumes cannot occur: a
    bug upstream"; the model and the parallel size chosen do not fit together, a setting to change."""
    rec = recs["heads not divisible"]
    assert rec["backgroundTag"] == "unsupported-configuration"
    assert rec["errdex"]["provenance"]["backgroundTag"] == "heuristic:taxonomy:parallel-sizes"
    assert rec["handlingStrategy"] == "fix-configuration"
    assert "bug" not in rec["commonSituations"]
    assert recs["no heads left"]["backgroundTag"] == "internal-invariant"   # no parallel size in its test
