"""How the code fields call a record's first entry point: the call text `codegen.call_text`
writes from the record's stored facts (what a try/except or a guard around it wraps)."""

from errdex.analyze.codegen import call_text
from errdex.analyze.fields import site_qualname


def entry_call(record: dict) -> str:
    ex = record["errdex"]
    entry = ex["entryPoints"][0] if ex.get("entryPoints") else site_qualname(record)
    return call_text(entry, ex.get("entryClass"), ex.get("entryBinding"), ex.get("entryRuns"))
