"""Playing a delegated call against the simulated payer line (pure, no I/O): the agent answers each
prompt, the line answers each action, the clock advances by what was said, keyed or held. Gives the
transcript (speaker, text, at seconds), the timeline (events, in the same shape a telephony provider
reports them: dialing, connected, ..., outcome | failed) and the outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.automation.voice_agent import agent as agent_side
from api.automation.voice_agent import ivr
from api.automation.voice_agent.call_data import CallData

#: A bound no call reaches (the line hangs up after ivr.MAX_REPEATS repeats, holds are finite).
MAX_STEPS = 100


@dataclass(frozen=True)
class Turn:
    speaker: str  # agent | ivr | representative
    text: str
    at: float

    def stored(self) -> dict[str, Any]:
        return {"speaker": self.speaker, "text": self.text, "at": self.at}


@dataclass(frozen=True)
class Outcome:
    state: str  # completed | failed
    failure_mode: str | None = None
    status: str | None = None
    interaction_outcome: str | None = None  # the payerInteractions outcome vocabulary
    reference_number: str | None = None
    next_step: str | None = None


@dataclass(frozen=True)
class Result:
    final_state: str  # one of ivr.FINAL_STATES
    outcome: Outcome
    turns: tuple[Turn, ...]
    timeline: tuple[dict[str, Any], ...]
    duration_seconds: float
    steps: int
    representative: str | None = None
    facts: dict[str, str] = field(default_factory=dict)


def _agent_text(action: ivr.Action) -> str:
    return f"<DTMF {action.text}>" if action.kind == "dtmf" else action.text


def simulate(data: CallData, opening: str, *, seed: int, failure_mode: str) -> Result:
    """One call from dialing to hang-up. The same inputs give the same result."""
    scn = ivr.scenario(seed, failure_mode, data.goal, data.payer)
    agent = agent_side.Agent(data=data, opening=opening)
    line = ivr.Line()
    clock = 0.0
    turns: list[Turn] = []
    timeline: list[dict[str, Any]] = [{"kind": "dialing", "at": 0.0}]
    facts: dict[str, str] = {}
    action = ivr.Action("dial", seconds=float(scn.ring_seconds))
    steps = 0
    joined = False
    while line.final is None and steps < MAX_STEPS:
        steps += 1
        clock = round(clock + action.seconds, 1)
        outcome = ivr.step(scn, line, action)
        line = outcome.line
        for event in outcome.events:
            joined = joined or event.kind == "representative_joined"
            timeline.append({"kind": event.kind, "at": clock, **dict(event.detail)})
        for prompt in outcome.prompts:
            turns.append(Turn(prompt.speaker, prompt.text, clock))
            facts.update(prompt.facts)
            clock = round(clock + prompt.seconds, 1)
        if line.final is not None or not outcome.prompts:
            break
        agent, action = agent_side.respond(agent, outcome.prompts[-1])
        if action.kind in ("dtmf", "say"):
            turns.append(Turn("agent", _agent_text(action), clock))
        if action.kind == "hangup":
            timeline.append({"kind": "hangup_decided", "at": clock, "reason": action.reason or ""})
    final = line.final or "ivr_loop"
    if final == "completed":
        result = Outcome(
            "completed",
            status=facts.get("status"),
            interaction_outcome=facts.get("outcome"),
            reference_number=facts.get("reference_number"),
            next_step=facts.get("next_step"),
        )
        timeline.append({"kind": "outcome", "at": clock, "status": result.status or ""})
    else:
        result = Outcome("failed", failure_mode=final)
        timeline.append({"kind": "failed", "at": clock, "mode": final})
    return Result(
        final_state=final,
        outcome=result,
        turns=tuple(turns),
        timeline=tuple(timeline),
        duration_seconds=clock,
        steps=steps,
        representative=scn.rep_name if joined else None,
        facts=facts,
    )
