"""Static analysis of error sites: trigger conditions and feeding values.

The names below load on first use: a catalog index (no analysis) imports
`errdex.analyze.related` and should not pay for the condition analyser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from errdex.analyze.condition import TriggerCondition, trigger_condition
    from errdex.analyze.feeding import feeding_values

__all__ = ["TriggerCondition", "feeding_values", "trigger_condition"]


def __getattr__(name: str) -> Any:
    if name in ("TriggerCondition", "trigger_condition"):
        from errdex.analyze import condition

        return getattr(condition, name)
    if name == "feeding_values":
        from errdex.analyze.feeding import feeding_values

        return feeding_values
    raise AttributeError(f"module 'errdex.analyze' has no attribute {name!r}")
