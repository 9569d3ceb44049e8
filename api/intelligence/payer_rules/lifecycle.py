"""The lifecycle of a proposed payer-rule change: a person proposes, another decides (or the proposer
withdraws); every end is final."""

from __future__ import annotations

from api.core.lifecycle import machine

CHANGE = machine(
    "payer_rule_change",
    {"proposed": {"approved", "rejected", "withdrawn"}, "approved": set(), "rejected": set(), "withdrawn": set()},
)
