"""Patients generated with known truth (this file's own generator and seed, sharing nothing with the
matcher's normalization): blocking plus scoring at the review threshold keep precision and recall above
stated floors, beat exact matching on recall, and score far fewer pairs than all of them."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import date, timedelta
from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from api.money.entity_resolution.blocking import Bands, pairs_from_blocks, patient_block_keys
from api.money.entity_resolution.encoding import LinkageKey
from api.money.entity_resolution.extract import patient_code
from api.money.entity_resolution.scoring import PATIENT_REVIEW, patient_score

FLOOR_PRECISION = 0.95
FLOOR_RECALL = 0.9
FIRST = {"ROBERT": "BOB", "MARGARET": "PEGGY", "WILLIAM": "BILL", "ELENA": "", "KWAME": "", "HIROSHI": "", "ANNA": ""}
LAST = ["FERREIRA", "NAKAMURA", "OYELOWO", "SCHULTZ", "MACINTYRE", "DUBOIS", "KAPOOR", "LINDGREN", "ABARA", "ROSSI"]


def _slip(word: str, draw: random.Random) -> str:
    i = draw.randrange(1, len(word) - 1)
    return word[:i] + word[i + 1 :] if draw.random() < 0.5 else word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :]


def _records(draw: random.Random, people: int) -> list[tuple[int, dict[str, str]]]:
    out = []
    for person in range(people):
        first, last = draw.choice(list(FIRST)), draw.choice(LAST) + draw.choice(["", "SON", "ER", "AN"])
        born = date(1940, 1, 1) + timedelta(days=draw.randrange(365 * 60))
        member = f"Q{draw.randrange(10**8):08d}"
        for copy in range(draw.choice((1, 2, 3))):
            f, la, dob, mid = first, last, born.isoformat(), member
            if copy:
                roll = draw.random()
                if roll < 0.25:
                    la = _slip(la, draw)
                elif roll < 0.4 and FIRST[first]:
                    f = FIRST[first]
                elif roll < 0.55:
                    f, la = la, f
                elif roll < 0.65:
                    d = born.strftime("%m%d")
                    swapped = f"{born.year}-{d[1]}{d[0]}-{d[2:]}"
                    dob = swapped if _valid(swapped) else dob  # month digits swapped, when still a date
                mid = "" if draw.random() < 0.5 else mid
            out.append(
                (
                    person,
                    {"patient_first_name": f, "patient_last_name": la, "patient_birth_date": dob, "member_id": mid},
                )
            )
    return out


def test_generated_patients_meet_the_floors():
    draw = random.Random(4242)
    records = _records(draw, 400)
    key = LinkageKey.derive(b"patient truth test")
    bands = Bands(key)
    codes = [patient_code(r, key) for _, r in records]
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, code in enumerate(codes):
        assert code is not None
        for k in patient_block_keys(code, bands):
            blocks[k].append(i)
    pairs = pairs_from_blocks(blocks, set(range(len(records))))
    found = {(a, b) for a, b in pairs if patient_score(codes[a], codes[b]) >= PATIENT_REVIEW}  # type: ignore[arg-type]
    truth = {(a, b) for a, b in combinations(range(len(records)), 2) if records[a][0] == records[b][0]}
    hits = len(found & truth)
    precision, recall = hits / max(len(found), 1), hits / len(truth)
    exact = {(a, b) for a, b in combinations(range(len(records)), 2) if _same_typed(records[a][1], records[b][1])}
    assert precision >= FLOOR_PRECISION, precision
    assert recall >= FLOOR_RECALL, recall
    assert recall > len(exact & truth) / len(truth)
    assert len(pairs) < len(records) * (len(records) - 1) // 2 / 20  # blocking: far fewer than all pairs


def _valid(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _same_typed(a: dict[str, str], b: dict[str, str]) -> bool:
    fields = ("patient_first_name", "patient_last_name", "patient_birth_date")
    return all(a[f] == b[f] for f in fields)


@given(
    st.dictionaries(st.text(max_size=3), st.lists(st.integers(0, 30), max_size=12), max_size=6),
    st.sets(st.integers(0, 30)),
)
def test_pairs_are_ordered_within_one_block_and_touch_a_new_member(blocks, new):
    pairs = pairs_from_blocks(blocks, new)
    for a, b in pairs:
        assert a < b and (a in new or b in new)
        assert any(a in members and b in members for members in blocks.values())
