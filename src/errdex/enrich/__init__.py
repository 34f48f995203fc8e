"""Optional model-written prose, grounded in the static facts and checked against them.

`enrich_dataset(store, EnrichConfig(ClientConfig(endpoint, model)))` asks any
OpenAI-compatible chat endpoint to rewrite a dataset's prose fields, verifies
every field against the record's facts (`verify`), and stores the result
beside the record bodies, keyed by (facts hash, model, prompt version).
"""

from errdex.enrich.client import ClientConfig, EndpointError
from errdex.enrich.prompt import PROMPT_VERSION
from errdex.enrich.run import EnrichConfig, EnrichReport, enrich_dataset, enrich_dataset_async
from errdex.enrich.verify import FieldVerdict, verify_fields

__all__ = [
    "PROMPT_VERSION", "ClientConfig", "EndpointError", "EnrichConfig", "EnrichReport",
    "FieldVerdict", "enrich_dataset", "enrich_dataset_async", "verify_fields",
]
