"""The JSON the model must answer with, as pydantic models, and its lenient parsing.

Models often wrap JSON in Markdown fences or add a sentence before it; the
first JSON object in the text is taken. Anything that still fails to
validate is `MalformedAnswer`.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator


class MalformedAnswer(ValueError):
    """The model's text is not a JSON object of the expected shape."""


class RecordProse(BaseModel):
    """The prose for one record; None means "keep the static text"."""

    model_config = ConfigDict(extra="ignore")

    id: str
    documentation: str | None = None
    triggerScenarios: str | None = None
    commonSituations: str | None = None
    solutions: list[str] | None = None
    exampleFix: str | None = None
    validationCode: str | None = None
    preventionTips: list[str] | None = None

    @field_validator("solutions", "preventionTips", mode="before")
    @classmethod
    def _one_item_list(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


class BatchAnswer(BaseModel):
    """One answer to one request: an entry per record asked about."""

    model_config = ConfigDict(extra="ignore")

    records: list[RecordProse]


def json_schema() -> dict:
    """The schema sent as `response_format` to servers that enforce it."""
    return BatchAnswer.model_json_schema()


_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?|\n?```\s*$")


def parse_answer(text: str) -> BatchAnswer:
    """Validate the model's text; a bare list of entries is accepted too."""
    text = _FENCE.sub("", text.strip())
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = _first_object(text)
    if isinstance(data, list):
        data = {"records": data}
    elif isinstance(data, dict) and "records" not in data and "id" in data:
        data = {"records": [data]}
    try:
        return BatchAnswer.model_validate(data)
    except ValidationError as exc:
        raise MalformedAnswer(f"answer does not fit the schema: {exc.errors()[0]['msg']}") from exc


def _first_object(text: str) -> object:
    start = text.find("{")
    while start != -1:
        try:
            return json.JSONDecoder().raw_decode(text, start)[0]
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
    raise MalformedAnswer("answer holds no JSON object")
