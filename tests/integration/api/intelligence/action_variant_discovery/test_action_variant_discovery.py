"""actionVariantDiscovery.discover over the wire, on SQLite and PostgreSQL.

Cases and submitted packets are written through the ORM inside the tenant (submitting needs an approved
action; covered in tests/integration/api/denials/appeal_assembly); decisions go through the services:
appealAssembly's `event` ('decided', linking the packet to its outcome) or outcomes.record directly (the
packet found by level and day).
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

from api.denials.appeal_assembly import service as assembly
from api.denials.appeal_assembly.models import AppealPacket
from api.denials.cases.models import DenialCase
from api.denials.outcomes import service as outcomes
from api.infra.db.tenant_filter import TenantScope, set_scope

KEY = "authorization.first_level"
DAY = date(2025, 3, 3)


def plant(services, member, payer, version, wins, *, through_packet=True, source="template", submitted=True):
    """One decided appeal per entry of `wins` (True won, False lost, None withdrawn), in order, each on
    its own case with one packet of template version `version`."""
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        for won in wins:
            case = DenialCase(
                denial_key=f"variant-{uuid.uuid4().hex}",
                origin="manual",
                event_kind="denial",
                claim_key=f"PCN-{uuid.uuid4().hex[:8]}",
                payer=payer,
                denial_category="authorization",
                carc="197",
                amount_at_stake=Decimal("100.00"),
                state="awaiting_payer" if submitted else "in_appeal",
                state_changed_at=datetime.now(UTC),
            )
            db.add(case)
            db.flush()
            packet = AppealPacket(
                case_id=case.id,
                level="first_level",
                state="submitted" if submitted else "assembled",
                state_changed_at=datetime.now(UTC),
                template_key=KEY,
                template_version=version,
                letter_source=source,
                letter_text="letter",
                content_hash="0" * 64,
                created_by_user_id=member.user_id,
                submitted_at=datetime(2025, 3, 1, 12, tzinfo=UTC) if submitted else None,
            )
            db.add(packet)
            db.flush()
            decision = "withdrawn" if won is None else "won" if won else "lost"
            amount = Decimal("100.00") if won else Decimal("0")
            if through_packet:
                kind = "withdrawn" if won is None else "decided"
                data = (
                    assembly.EventData(occurred_on=DAY)
                    if won is None
                    else assembly.EventData(occurred_on=DAY, decision=decision, amount_recovered=amount)
                )
                assembly.event(db, packet.id, kind, data, user_id=member.user_id)
            else:
                outcomes.record(
                    db, outcomes.NewOutcome(case.id, decision, DAY, amount_recovered=amount), user_id=member.user_id
                )


def test_a_planted_better_letter_is_found_and_equal_letters_are_not(services, make_member):
    member = make_member()
    # ACME: version 1 (incumbent, 35 appeals) wins 12 of its first 30, then 5 more (not read: beyond look 2);
    # version 2 wins 24 of 30; one version-2 appeal withdrawn (never decided: left out).
    plant(services, member, "ACME", "1", [True] * 12 + [False] * 18 + [True] * 5)
    plant(services, member, "ACME", "2", [True] * 24 + [False] * 6 + [None])
    # BOLT, decisions recorded directly (packet found by level and day): 15 each, 7 won each.
    plant(services, member, "BOLT", "1", [True] * 7 + [False] * 8, through_packet=False)
    plant(services, member, "BOLT", "2", [False] * 8 + [True] * 7, through_packet=False)
    # CEDAR: version 2 has 3 appeals, fewer than minPerArm: waiting. Custom letters and a packet never sent
    # identify no template variant.
    plant(services, member, "CEDAR", "1", [True] * 15)
    plant(services, member, "CEDAR", "2", [False] * 3)
    plant(services, member, "CEDAR", "3", [True] * 20, source="custom")
    plant(services, member, "CEDAR", "4", [True] * 2, through_packet=False, submitted=False)

    out = member.rpc.query("actionVariantDiscovery.discover", {"minPerArm": 15, "maxLooks": 2, "alpha": 0.05}).data
    # read: ACME 35 + 30 (withdrawn left out), BOLT 30, CEDAR 15 + 3 + 20 custom (the unsent packet: no letter)
    assert out["appealsRead"] == 35 + 30 + 30 + 15 + 3 + 20 and out["truncated"] is False
    # family: ACME 1 vs 2, BOLT 1 vs 2, CEDAR 1 vs 2 (waiting) = 3 comparisons
    assert (out["comparisonsInFamily"], out["waiting"], out["totalItems"]) == (3, 1, 2)
    acme, bolt = out["items"]

    # ACME: smaller arm 30 -> 30 // 15 = 2 looks; each arm uses its first 2 x 15 = 30.
    # incumbent 12/30 = 0.4, challenger 24/30 = 0.8; pooled 36/60 = 0.6;
    # SE = sqrt(0.6 x 0.4 x (1/30 + 1/30)) = sqrt(0.016) = 0.126491; z = 0.4 / 0.126491 = 3.16228.
    # alpha per comparison 0.05 / 3 = 0.016667; per look / 2 = 0.0083333; two-sided boundary
    # Phi^-1(1 - 0.0041667) = Phi^-1(0.9958333) = 2.63826. 3.16228 >= 2.63826: the challenger is better.
    assert (acme["payerKey"], acme["category"], acme["look"], acme["maxLooks"]) == ("ACME", None, 2, 2)
    assert acme["incumbent"]["templateVersion"] == "1" and acme["challenger"]["templateVersion"] == "2"
    assert (acme["incumbent"]["decided"], acme["incumbent"]["n"], acme["incumbent"]["successes"]) == (35, 30, 12)
    assert (acme["challenger"]["decided"], acme["challenger"]["n"], acme["challenger"]["successes"]) == (30, 30, 24)
    assert round(acme["incumbent"]["rate"], 6) == 0.4 and round(acme["challenger"]["rate"], 6) == 0.8
    assert round(acme["difference"], 6) == 0.4
    assert round(acme["z"], 4) == 3.1623 and round(acme["boundary"], 4) == 2.6383
    assert round(acme["alphaForComparison"], 6) == round(0.05 / 3, 6)
    assert acme["decision"] == "challenger better"
    assert acme["differenceLow"] > 0 and acme["adjustedDifferenceLow"] > 0
    assert acme["incumbent"]["ciLow"] < 0.4 < acme["incumbent"]["ciHigh"]

    # BOLT: 15 each -> look 15 // 15 = 1; 7/15 against 7/15: z = 0 -> keep collecting (look 1 of 2).
    # Tie in use (15 = 15): the incumbent is the smaller version, "1".
    assert (bolt["payerKey"], bolt["look"], bolt["incumbent"]["templateVersion"]) == ("BOLT", 1, "1")
    assert (bolt["incumbent"]["successes"], bolt["challenger"]["successes"], bolt["z"]) == (7, 7, 0.0)
    assert bolt["decision"] == "keep collecting"

    # Asking for one payer narrows the answer, not the family: the boundary stays 2.63826.
    only = member.rpc.query(
        "actionVariantDiscovery.discover", {"payerKey": "ACME", "minPerArm": 15, "maxLooks": 2}
    ).data
    assert [i["payerKey"] for i in only["items"]] == ["ACME"] and only["comparisonsInFamily"] == 3
    assert round(only["items"][0]["boundary"], 4) == 2.6383

    # A category with no appeals: nothing to compare.
    none = member.rpc.query("actionVariantDiscovery.discover", {"category": "coding"}).data
    assert (none["items"], none["appealsRead"], none["comparisonsInFamily"]) == ([], 0, 0)

    # Defaults (minPerArm 30): ACME's smaller arm 30 -> look 1 of 10, BOLT waits (15 < 30).
    default = member.rpc.query("actionVariantDiscovery.discover", {}).data
    assert [(i["payerKey"], i["look"], i["maxLooks"]) for i in default["items"]] == [("ACME", 1, 10)]
    assert default["waiting"] == 2

    # Another client sees none of it.
    other = make_member()
    seen = other.rpc.query("actionVariantDiscovery.discover", {"minPerArm": 15, "maxLooks": 2}).data
    assert (seen["items"], seen["appealsRead"], seen["comparisonsInFamily"]) == ([], 0, 0)


def test_bad_input_is_refused(make_member):
    rpc = make_member().rpc
    for bad in (
        {"minPerArm": 4},
        {"minPerArm": 1001},
        {"maxLooks": 0},
        {"maxLooks": 101},
        {"alpha": 0},
        {"alpha": 0.5},
        {"limit": 201},
        {"payerKey": ""},
        {"payerKey": "x" * 201},
        {"category": "x" * 41},
        {"other": 1},
    ):
        assert rpc.query("actionVariantDiscovery.discover", bad).code == "BAD_REQUEST", bad
