"""A malformed 271 raises the X12 layer's error, naming the segment and never a value, and nothing is
returned; the reader stays linear and capped on an attacker's sizes."""

from __future__ import annotations

import re

import pytest

from pipelines.ingest.x12.eligibility import response_271
from pipelines.ingest.x12.eligibility.response_271 import MAX_BENEFITS, parse_271
from pipelines.ingest.x12.errors import X12ParseError
from tests.support.paths import X12_FIXTURES

ACTIVE = (X12_FIXTURES / "eligibility" / "hand_active_share.271").read_text()


def _with_body(lines: list[str], *, se: int | None = None, st: str = "271") -> bytes:
    """The hand fixture's envelope around other transaction content; SE01 counted here unless given."""
    head = ACTIVE.split("ST*")[0]
    body = [f"ST*{st}*0101*005010X279A1", *lines]
    count = len(body) + 1 if se is None else se
    return (head + "~\n".join(body) + f"~\nSE*{count}*0101~\nGE*1*101~\nIEA*1*000000101~\n").encode()


def _segments() -> list[str]:
    return re.findall(r"^(?!ISA|GS|ST|SE|GE|IEA)([A-Z0-9]{2,3}\*.*)~$", ACTIVE, flags=re.M)


def _refused(data: bytes) -> X12ParseError:
    with pytest.raises(X12ParseError) as err:
        parse_271(data)
    return err.value


def test_the_helper_rebuilds_the_fixture_exactly():
    assert _with_body(_segments()) == ACTIVE.encode()


@pytest.mark.parametrize(
    ("mutate", "segment_id", "phrase"),
    [
        (lambda t: t.replace("SE*22*0101", "SE*21*0101"), "SE", "expected SE01=22"),
        (lambda t: t.replace("SE*22*0101", "SE*22*0999"), "SE", "does not match ST02"),
        (lambda t: t.replace("GE*1*101", "GE*2*101"), "GE", "expected GE01=1"),
        (lambda t: t.replace("IEA*1*000000101", "IEA*1*000000999"), "IEA", "does not match ISA13"),
        (lambda t: t.replace("ST*271*", "ST*835*"), "ST", "unsupported transaction set '835'"),
        (lambda t: t.replace("*X*005010X279A1~", "*X*005010X221A1~"), "GS", "is not the eligibility TR3"),
        (lambda t: t.split("SE*22")[0], None, "truncated"),
    ],
)
def test_bad_envelopes_are_refused(mutate, segment_id, phrase):
    err = _refused(mutate(ACTIVE).encode())
    assert phrase in str(err)
    if segment_id:
        assert err.segment_id == segment_id


def test_a_270_is_not_a_271():
    err = _refused(_with_body(_segments(), st="270"))
    assert "unsupported transaction set '270'" in str(err) and err.expected == "ST01 of 271"


def _without(prefix: str) -> list[str]:
    return [s for s in _segments() if not s.startswith(prefix)]


@pytest.mark.parametrize(
    ("lines", "phrase"),
    [
        (_without("BHT"), "does not start with BHT*0022"),
        (_without("NM1*PR"), "the source level has no NM1"),
        (_without("NM1*1P"), "the receiver level has no NM1"),
        (_without("NM1*IL"), "the subscriber level has no NM1"),
        (
            [s for s in _segments() if not s.startswith(("HL*3", "TRN", "NM1*IL", "REF", "DMG", "DTP", "EB"))],
            "HL04 says a child level follows",
        ),
        (_without("EB"), "neither an EB loop (2110) nor an AAA"),
        ([s.replace("HL*2*1*21*1", "HL*2*1*22*1") for s in _segments()], "must be under an HL of level 21"),
        ([s.replace("HL*3*2*22*0", "HL*4*2*22*0") for s in _segments()], "HL01 is not 3"),
        ([s.replace("HL*1**20*1", "HL*1**19*1") for s in _segments()], "not an eligibility level"),
        ([s.replace("NM1*IL", "NM1*QC") for s in _segments()], "does not belong to the subscriber level"),
        ([*_segments(), "NM1*PRP*2*X"], "NM1 after an EB outside an LS/LE"),
        ([*_segments(), "LS*2120"], "not closed by LE"),
        ([*_segments(), "LE*2120"], "LE without its LS"),
        ([s.replace("DMG*D8*19750704", "DMG*D8*19751304") for s in _segments()], "DMG02 is not a valid CCYYMMDD"),
        ([s.replace("DTP*346*D8*20260101", "DTP*346*D8*2026-01") for s in _segments()], "DTP03 is not a valid"),
        ([s.replace("RD8*20260101-20261231", "RD8*20261231-20260101") for s in _segments()], "ends before it starts"),
        ([s.replace("DTP*346*D8", "DTP*346*DT") for s in _segments()], "DTP02 format 'DT'"),
        ([s.replace("2000.00", "20O0.00") for s in _segments()], "EB07 is not a decimal number"),
        ([s.replace("*.2*", "*20%*") for s in _segments()], "EB08 is not a decimal number"),
        ([s.replace("EB*1*IND", "EB**IND") for s in _segments()], "EB01"),
        ([s.replace("AAA", "AAA") for s in _segments()] + ["AAA*Q**72*C"], "AAA needs AAA01 Y or N"),
        (["BHT*0022*11*R*20260315*0930", "NM1*PR*2*X*****PI*1"], "segment before the first HL"),
        ([_segments()[0]], "no information source"),
    ],
)
def test_missing_or_misplaced_structure_is_refused(lines, phrase):
    assert phrase in str(_refused(_with_body(lines)))


def test_errors_never_quote_phi():
    lines = [s.replace("DMG*D8*19750704", "DMG*D8*19751399") for s in _segments()]
    err = _refused(_with_body(lines))
    assert "19751399" not in str(err) and "HM100200300" not in str(err) and "ROE" not in str(err)
    lines = [s.replace("MI*HM100200300", "MI*HM100200300") for s in _segments() if not s.startswith("EB")]
    err = _refused(_with_body(lines))
    assert "HM100200300" not in str(err) and err.segment_id == "HL"


def test_a_second_transaction_set_is_refused():
    head, rest = ACTIVE.split("ST*", 1)
    transaction = "ST*" + rest.split("GE*")[0]
    doubled = head + transaction + transaction.replace("0101", "0102") + "GE*2*101~\nIEA*1*000000101~\n"
    assert "a second transaction set" in str(_refused(doubled.encode()))


def test_thousands_of_eb_loops_are_capped():
    eb = "EB*B*IND*98***27*35*****Y"
    ok = [s for s in _segments() if not s.startswith("EB")] + [eb] * MAX_BENEFITS
    assert len(parse_271(_with_body(ok)).members[0].benefits) == MAX_BENEFITS
    err = _refused(_with_body([*ok, eb]))
    assert f"more than {MAX_BENEFITS} EB loops" in str(err)


def test_members_are_capped(monkeypatch):
    monkeypatch.setattr(response_271, "MAX_MEMBERS", 3)
    base = [s for s in _segments() if not s.startswith(("HL*3", "TRN", "NM1*IL", "REF", "DMG", "DTP", "EB"))]
    members = []
    for n in range(4):
        members += [f"HL*{3 + n}*2*22*0", "NM1*IL*1******MI*M1", "AAA*Y**75*C"]
    assert "more than 3 members" in str(_refused(_with_body(base + members)))


def test_huge_input_is_refused_before_reading():
    huge = ACTIVE.encode() + b" " * (4 * 1_048_576)
    err = _refused(huge)
    assert "at most 4194304 are read" in str(err)
    assert "at most 500 are read" in str(_refused_with_cap(ACTIVE.encode(), 500))  # the file is 786 bytes


def _refused_with_cap(data: bytes, cap: int) -> X12ParseError:
    with pytest.raises(X12ParseError) as err:
        parse_271(data, max_bytes=cap)
    return err.value


@pytest.mark.parametrize("data", [b"", b"not x12 at all", b"ISA*00*", ACTIVE.encode().replace(b"HL*1", b"hl*1")])
def test_garbage_is_refused(data):
    _refused(data)


def test_deep_repetition_stays_linear_in_work():
    # 20,000 DTPs on one benefit: read once each, no quadratic re-scan (the count bounds the work).
    lines = _segments() + ["DTP*291*D8*20260101"] * 20_000
    r = parse_271(_with_body(lines))
    assert len(r.members[0].benefits[-1].periods) == 20_001
