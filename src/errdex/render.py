"""The sections of an error page as plain text, shared by `errdex show` and other text views.

Each section says whether it rests on a heuristic (per the record's
`errdex.provenance`) so every view can mark it.
"""

from __future__ import annotations


def _heuristic(record: dict, field: str) -> bool:
    prov = (record.get("errdex") or {}).get("provenance") or {}
    return str(prov.get(field, "fact")).startswith(("heuristic", "model"))


def text_sections(r: dict) -> list[tuple[str, str, bool]]:
    """(title, body, rests-on-a-heuristic) for each section the record can fill."""
    ex = r.get("errdex") or {}
    out: list[tuple[str, str, bool]] = [("Error message", r["errorMessage"] or "(no message)", False)]
    if ex.get("assertTest") and not r["errorMessage"]:
        out.append(("Failing assertion", f"assert {ex['assertTest']}", False))
    if r.get("documentation"):
        out.append(("What it means", r["documentation"], _heuristic(r, "documentation")))
    if ex.get("condition"):
        exact = "" if ex.get("conditionExact") else f"  (approximate: {ex.get('conditionReason') or 'not every path followed'})"
        guard = ex.get("guard") or ex["condition"]
        out.append(("Raised when", guard + exact, not ex.get("conditionExact")))
        if guard != ex["condition"]:
            out.append(("Whole path condition (with the earlier checks that must pass)", ex["condition"],
                        not ex.get("conditionExact")))
    if ex.get("raisedFirstBy"):
        out.append(("Reached only where these calls did not raise first",
                    "\n".join(f"{c['call']}(...) on line {c['line']}: {c['function']} raises itself for some inputs"
                              for c in ex["raisedFirstBy"]), False))
    if ex.get("feeding"):
        out.append(("Values it depends on", "\n".join(ex["feeding"]), False))
    if ex.get("placeholders"):
        out.append(("Placeholders", "\n".join(f"{k} = {v}" for k, v in ex["placeholders"].items() if k != v) or
                    ", ".join(ex["placeholders"]), False))
    if r.get("triggerScenarios"):
        out.append(("When it happens", r["triggerScenarios"], _heuristic(r, "triggerScenarios")))
    if r.get("commonSituations"):
        out.append(("Common situations", r["commonSituations"], _heuristic(r, "commonSituations")))
    if r.get("solutions"):
        out.append(("Solutions", "\n".join(f"{i}. {s}" for i, s in enumerate(r["solutions"], 1)),
                    _heuristic(r, "solutions")))
    if r.get("exampleFix"):
        out.append(("Example fix", r["exampleFix"], _heuristic(r, "exampleFix")))
    if r.get("validationCode"):
        out.append(("Validation code", r["validationCode"], _heuristic(r, "validationCode")))
    if ex.get("callers"):
        out.append(("Called from", "\n".join(ex["callers"][:10]), False))
    if ex.get("entryPoints"):
        out.append(("Public entry points", "\n".join(ex["entryPoints"][:10]), False))
    if ex.get("helper"):
        out.append(("Raised through helper", ex["helper"], False))
    bases = ex.get("classAncestors") or ex.get("classBases")
    if bases:
        out.append(("Class", f"{ex.get('classQualname') or r['errorClass']} ({' -> '.join(bases)})", False))
    return out
