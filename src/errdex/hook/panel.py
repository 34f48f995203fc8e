"""The explanation printed after a traceback: a rich panel on a terminal, plain text elsewhere.

Sections, in order: where it was raised, the message template with the values
bound from the live message, the values of the condition's variables in the
raising frame, the trigger condition, the solutions, and the record's link.
rich is imported only when the stream is a terminal (a person reads it):
importing it costs a new process ~50 ms, and a log, a pipe or a CI capture
gains nothing from box drawing.
"""

from __future__ import annotations

from typing import TextIO

from errdex.hook.explainer import Explanation

MAX_SOLUTIONS = 5


def render_text(explanation: Explanation) -> list[tuple[str, str]]:
    """(section title, body) pairs; shared by the panel and the pytest report section."""
    r = explanation.record
    ex = r.get("errdex") or {}
    where = f"{r['filePath']}:{r['lineNumber']}"
    if ex.get("function") and ex["function"] != "<module>":
        where += f" in {ex['function']}"
    found = "frame of the traceback" if explanation.via == "frame" else "message text"
    sections = [("Raised at", f"{where}   ({explanation.dataset}, found by {found})")]
    template = r.get("errorMessage") or (f"assert {ex['assertTest']}" if ex.get("assertTest") else "(no message)")
    sections.append(("Message", template))
    if explanation.bindings:
        sections.append(("Values in the message", _pairs(explanation.bindings)))
    if explanation.frame_values:
        sections.append(("Values in the raising frame", _pairs(explanation.frame_values)))
    if ex.get("condition"):
        note = "" if ex.get("conditionExact") else f"   (approximate: {ex.get('conditionReason') or 'not every path followed'})"
        sections.append(("Raised when", (ex.get("guard") or ex["condition"]) + note))
    if r.get("documentation"):
        sections.append(("What it means", r["documentation"]))
    solutions = r.get("solutions") or []
    if solutions:
        sections.append(("Solutions", "\n".join(f"{i}. {s}" for i, s in enumerate(solutions[:MAX_SOLUTIONS], 1))))
    link = r.get("githubUrl") or (f"{explanation.frame_file}:{explanation.frame_line}" if explanation.frame_file else "")
    if link:
        sections.append(("Link", link))
    sections.append(("Record", f"errdex show {r['id']}"))
    return sections


def _pairs(values: dict[str, str]) -> str:
    return "\n".join(f"{k} = {v}" for k, v in values.items())


def plain_text(explanations: list[Explanation]) -> str:
    """The explanations as plain text (pytest report sections, logs)."""
    blocks = []
    for e in explanations:
        head = f"errdex: {e.record.get('repo')} · {e.record.get('errorClass') or e.exc_type}"
        body = "\n".join(f"{title}:\n" + _indent(text) for title, text in render_text(e))
        blocks.append(head + "\n" + body)
    return "\n\n".join(blocks)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def print_explanations(explanations: list[Explanation], stream: TextIO) -> None:
    """Panels when `stream` is a terminal, else the plain text (same sections, same order)."""
    if is_terminal(stream):
        print_panels(explanations, stream)
    else:
        stream.write(plain_text(explanations) + "\n")
        stream.flush()


def is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):   # no isatty, or a closed stream
        return False


def print_panels(explanations: list[Explanation], stream: TextIO) -> None:
    """One rich panel per explanation on `stream` (colour only when it is a terminal)."""
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.text import Text

    console = Console(file=stream, soft_wrap=False, highlight=False)
    for e in explanations:
        parts, link = [], ""
        for title, body in render_text(e):
            if title == "Link":   # printed below the panel, unwrapped, so it stays clickable
                link = body
                continue
            parts.append(Text(title, style="bold cyan"))
            parts.append(Text(_indent(body)))
        title = f"errdex · {e.record.get('repo')} · {e.record.get('errorClass') or e.exc_type}"
        console.print(Panel(Group(*parts), title=title, title_align="left", border_style="yellow", expand=False))
        if link:
            console.print(Text(f"errdex: {link}", style="blue"), soft_wrap=True)
