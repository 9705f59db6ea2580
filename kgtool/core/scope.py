"""Which knowledge is in force for one answer."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

from kgtool.errors import ConfigError


@dataclass(frozen=True)
class Scope:
    """Which edits are in force: every edit (the default), or those of some cases or batches.

    Base (pre-edit) facts are always in force unless an in-scope edit supersedes
    them, so 1-edited, k-edited and all-edited stores need no re-ingestion.
    `perturbation` names a stored perturbation (facts hidden, distractors
    added) that the answer sees on top of the scope; None sees the graph as is.
    """

    cases: tuple[str, ...] | None = None
    batches: tuple[str, ...] | None = None
    perturbation: str | None = None

    @classmethod
    def parse(cls, value: Any) -> "Scope":
        if value is None or value == "all":
            return cls()
        if isinstance(value, Scope):
            return value
        if isinstance(value, dict):
            unknown = set(value) - {"cases", "batches", "perturbation"}
            if unknown:
                raise ConfigError(f"scope keys must be 'cases', 'batches' and/or 'perturbation', got {sorted(unknown)}")
            return cls(_strs(value.get("cases")), _strs(value.get("batches")), value.get("perturbation"))
        if isinstance(value, (list, tuple, set)):
            return cls(cases=_strs(value))
        raise ConfigError(f"scope must be 'all', a list of case ids or {{'cases': [...], 'batches': [...]}}; got {value!r}")

    def with_perturbation(self, perturbation: str | None) -> "Scope":
        return replace(self, perturbation=perturbation)

    def params(self) -> dict:
        return {"cases": list(self.cases) if self.cases is not None else None,
                "batches": list(self.batches) if self.batches is not None else None,
                "perturbation": self.perturbation}

    def label(self) -> str:
        parts = []
        if self.cases is not None:
            parts.append(f"cases={','.join(self.cases[:5])}{'...' if len(self.cases) > 5 else ''}")
        if self.batches is not None:
            parts.append(f"batches={','.join(self.batches)}")
        if self.perturbation is not None:
            parts.append(f"perturbation={self.perturbation}")
        return ";".join(parts) or "all"


def _strs(values: Iterable | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(str(v) for v in values)
