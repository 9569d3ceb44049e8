"""The denial case lifecycle: one declared table of moves (pure, no I/O).

open -> triaged -> in_appeal -> awaiting_payer -> won / partially_won / lost / written_off -> closed.
A case can be written off from any working state (the money is judged not worth pursuing), and a
decided or closed case can be reopened (with a reason, recorded by the service): it goes back to
``triaged`` so its owner looks at it again before anything else happens.
"""

from __future__ import annotations

from api.core.lifecycle import machine

WORKING_STATES = frozenset({"open", "triaged", "in_appeal", "awaiting_payer"})
DECIDED_STATES = frozenset({"won", "partially_won", "lost", "written_off"})
#: States a case can no longer be worked in (assignments and supervisory changes are refused).
FINAL_STATES = frozenset({"closed"})
LOST_STATES = frozenset({"lost", "written_off"})

CASE = machine(
    "case",
    {
        # open/triaged -> partially_won/lost: the payer's own later decision ended the denial episode
        # (a claim paid in part, or re-adjudicated with nothing recovered) before anyone appealed
        "open": {"triaged", "in_appeal", "written_off", "won", "partially_won", "lost"},
        "triaged": {"in_appeal", "written_off", "won", "partially_won", "lost"},
        "in_appeal": {"awaiting_payer", "won", "partially_won", "lost", "written_off"},
        "awaiting_payer": {"in_appeal", "won", "partially_won", "lost", "written_off"},
        "won": {"closed", "triaged"},
        "partially_won": {"closed", "triaged", "in_appeal"},
        "lost": {"closed", "triaged", "in_appeal"},
        "written_off": {"closed", "triaged"},
        "closed": {"triaged"},
    },
)

#: Where the case intake moves a working case the hospital's worklist opened when the payer's own 835
#: denies nothing of it (api/denials/cases/intake.py): closed with no decision, so no KPI counts it won,
#: lost or written off. Outside the people's table of moves (CASE): a person decides a case before closing it.
CONTRADICTED_BY_THE_PAYER = "closed"

# Moves back out of a decision or a closed case are reopenings: the service demands a reason.
REOPEN_MOVES = frozenset(
    (state, target)
    for state, targets in CASE.moves.items()
    if state in DECIDED_STATES | {"closed"}
    for target in targets
    if target in WORKING_STATES
)
