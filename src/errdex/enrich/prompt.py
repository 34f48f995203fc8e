"""Versioned prompts shipped in `enrich/prompts/*.txt`, turned into chat messages.

A prompt file holds a `### system` and a `### user` section; the user part
has `{count}` and `{records_json}` slots (plain replacement, since JSON is
full of braces). The file's stem is the prompt version that keys the cache:
change the wording, add a new file and point `PROMPT_VERSION` at it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

PROMPT_VERSION = "enrich-v1"


@dataclass(frozen=True, slots=True)
class Prompt:
    """One prompt version's two message templates."""

    version: str
    system: str
    user: str

    def messages(self, records: list[tuple[str, dict[str, Any]]]) -> list[dict[str, str]]:
        """Chat messages asking about `records`, given as (record id, facts) pairs."""
        payload = [{"id": rid, **facts} for rid, facts in records]
        body = json.dumps(payload, indent=1, ensure_ascii=False)
        user = self.user.replace("{count}", str(len(records))).replace("{records_json}", body)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


@cache
def load_prompt(version: str = PROMPT_VERSION) -> Prompt:
    """The prompt file `prompts/<version>.txt` from the installed package."""
    text = resources.files("errdex.enrich").joinpath("prompts", f"{version}.txt").read_text("utf-8")
    system, _, user = text.partition("### user\n")
    system = system.removeprefix("### system\n").strip()
    if not user.strip():
        raise ValueError(f"prompt {version} has no '### user' section")
    return Prompt(version, system, user.strip())
