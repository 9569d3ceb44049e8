"""What differs between two runs of a task (pure, no I/O): the stored execution and its replay.

Outputs are compared leaf by leaf: nested objects by key, with dotted paths (`payerPolicy`,
`knowledge`); a list or any other value is one leaf compared whole. A refused run has no output
(None), which differs from any output at the root path `""`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_MISSING: Any = object()


@dataclass(frozen=True)
class Run:
    label: str
    confidence: float
    decision: str
    reasons: tuple[str, ...]
    policy_version: int | None
    output: Mapping[str, Any] | None


@dataclass(frozen=True)
class Change:
    path: str
    before: Any  # None when the path is new
    after: Any  # None when the path is gone


@dataclass(frozen=True)
class Differences:
    label_changed: bool
    confidence_delta: float
    decision_changed: bool
    reasons_changed: bool
    policy_version_changed: bool
    output: tuple[Change, ...]

    @property
    def any(self) -> bool:
        return (
            self.label_changed
            or self.decision_changed
            or self.reasons_changed
            or self.policy_version_changed
            or self.confidence_delta != 0.0
            or bool(self.output)
        )


def _leaves(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping) and value:
        for key in value:
            _leaves(value[key], f"{prefix}.{key}" if prefix else str(key), out)
    else:
        out[prefix] = value


def output_changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> tuple[Change, ...]:
    """Every leaf path whose value differs, added or removed, sorted by path."""
    if before is None or after is None:
        return () if before is after else (Change("", before, after),)
    old: dict[str, Any] = {}
    new: dict[str, Any] = {}
    _leaves(before, "", old)
    _leaves(after, "", new)
    changes = []
    for path in sorted(set(old) | set(new)):
        a, b = old.get(path, _MISSING), new.get(path, _MISSING)
        if a is _MISSING or b is _MISSING or a != b:
            changes.append(Change(path, None if a is _MISSING else a, None if b is _MISSING else b))
    return tuple(changes)


def compare(before: Run, after: Run) -> Differences:
    return Differences(
        label_changed=before.label != after.label,
        confidence_delta=round(after.confidence - before.confidence, 6),
        decision_changed=before.decision != after.decision,
        reasons_changed=before.reasons != after.reasons,
        policy_version_changed=before.policy_version != after.policy_version,
        output=output_changes(before.output, after.output),
    )
