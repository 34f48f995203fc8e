"""Static analysis of error sites: trigger conditions and feeding values."""

from errdex.analyze.condition import TriggerCondition, trigger_condition
from errdex.analyze.feeding import feeding_values

__all__ = ["TriggerCondition", "feeding_values", "trigger_condition"]
