"""Intent + machine -> Plan (or PlanRefused with alternatives)."""
from __future__ import annotations

from .plan import FROM_PYPI, FROM_TORCH_INDEX, Plan, PlannedPackage

__all__ = ["FROM_PYPI", "FROM_TORCH_INDEX", "Plan", "PlannedPackage"]
