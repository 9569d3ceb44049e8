"""Benchmark: entity resolution's precision and recall on generated records with known truth.

Generates (with this file's own generator: its own name lists, nicknames, typo model and random seed;
nothing shared with the matcher's normalization) people with 1-3 records each, corrupted as files
corrupt them: typos, first and last name swapped, a nickname, two birth-date digits transposed, the
member id missing, case and spacing noise; and payer spellings of known payers with suffixes, typos
and abbreviations, plus payers absent from the known list.

Then runs the matcher as the platform does (keyed digests and name Bloom filters from
`extract.patient_code`, block keys, Fellegi-Sunter scores at the review threshold; payers by
`payers.best_payers`) and, in the same run, a naive exact-match baseline (records equal on first name,
last name and birth date as typed; a payer spelling equal to a known payer upper-cased and trimmed).
Prints precision, recall and F1 of both, and the number of pairs scored against all pairs.

Usage:
    .venv/bin/python bench/entity_resolution.py                 # 4,000 people, 300 payer spellings
    .venv/bin/python bench/entity_resolution.py --people 20000 --seed 7
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from datetime import date, timedelta
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIRST = {  # name -> its nicknames
    "WILLIAM": ["BILL", "WILL"],
    "ROBERT": ["BOB", "ROB"],
    "ELIZABETH": ["LIZ", "BETH"],
    "MARGARET": ["PEGGY", "MAGGIE"],
    "RICHARD": ["RICK"],
    "JAMES": ["JIM"],
    "KATHERINE": ["KATE", "KATHY"],
    "JOSEPH": ["JOE"],
    "CHRISTOPHER": ["CHRIS"],
    "ANTHONY": ["TONY"],
    "JENNIFER": ["JEN"],
    "PATRICIA": ["PAT", "TRISH"],
    "MICHAEL": ["MIKE"],
    "SUSAN": ["SUE"],
    "DANIEL": ["DAN"],
    "DOROTHY": ["DOT"],
    "THOMAS": ["TOM"],
    "ALEXANDRA": ["ALEX"],
    "SAMUEL": ["SAM"],
    "VICTORIA": ["VICKY"],
    "AISHA": [],
    "WEI": [],
    "SANTIAGO": [],
    "OLUWASEUN": ["SEUN"],
    "PRIYA": [],
    "MATEO": [],
    "YUKI": [],
    "FATIMA": [],
    "DMITRI": ["DIMA"],
    "INGRID": [],
}
LAST = [
    "SMITH",
    "JOHNSON",
    "WILLIAMS",
    "BROWN",
    "JONES",
    "GARCIA",
    "MILLER",
    "DAVIS",
    "RODRIGUEZ",
    "MARTINEZ",
    "HERNANDEZ",
    "LOPEZ",
    "GONZALEZ",
    "WILSON",
    "ANDERSON",
    "THOMAS",
    "TAYLOR",
    "MOORE",
    "JACKSON",
    "MARTIN",
    "LEE",
    "PEREZ",
    "THOMPSON",
    "WHITE",
    "HARRIS",
    "SANCHEZ",
    "CLARK",
    "RAMIREZ",
    "LEWIS",
    "ROBINSON",
    "NGUYEN",
    "OKAFOR",
    "KOWALSKI",
    "ABERNATHY",
    "FITZGERALD",
    "MUELLER",
    "SCHMIDT",
    "YAMAMOTO",
    "CHEN",
    "PATEL",
    "OKONJO",
    "LINDQVIST",
    "DELACROIX",
    "VANDERBERG",
    "MCALLISTER",
    "OYELARAN",
    "BJORNSSON",
]
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def typo(word: str, rng: random.Random) -> str:
    """One keyboard slip: a letter replaced, dropped, doubled, or two neighbours swapped."""
    if len(word) < 3:
        return word
    i = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + rng.choice(LETTERS) + word[i + 1 :]
    if kind == 1:
        return word[:i] + word[i + 1 :]
    if kind == 2:
        return word[:i] + word[i] + word[i:]
    return word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :]


def transpose_dob(born: date, rng: random.Random) -> str:
    """The birth date typed with two neighbouring digits of month-day swapped (still a valid date)."""
    text = born.strftime("%Y%m%d")
    for _ in range(10):
        i = rng.randrange(4, 7)
        swapped = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        if swapped != text:
            try:
                return date(int(swapped[:4]), int(swapped[4:6]), int(swapped[6:])).isoformat()
            except ValueError:
                continue
    return born.isoformat()


def people_records(n: int, rng: random.Random) -> list[tuple[int, dict[str, str]]]:
    """(person number, record) for n people with 1-3 records each, the first as registered."""
    out = []
    firsts = list(FIRST)
    for person in range(n):
        first, last = rng.choice(firsts), rng.choice(LAST)
        if rng.random() < 0.3:  # a double-barrelled or rarer surname, so names are not all common
            last = last + rng.choice(LAST)[:4]
        born = date(1930, 1, 1) + timedelta(days=rng.randrange(365 * 75))
        member = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(10))
        sex = rng.choice("FM")
        for copy in range(rng.choice((1, 2, 2, 3))):
            f, la, dob, mid = first, last, born.isoformat(), member
            if copy:
                if rng.random() < 0.3:
                    f = typo(f, rng) if rng.random() < 0.5 else f
                    la = typo(la, rng) if rng.random() < 0.7 else la
                if rng.random() < 0.15 and FIRST[first]:
                    f = rng.choice(FIRST[first])
                if rng.random() < 0.1:
                    dob = transpose_dob(born, rng)
                if rng.random() < 0.4:
                    mid = ""
                if rng.random() < 0.15:
                    f, la = la, f
            if rng.random() < 0.5:
                f, la = f.title(), " " + la.lower() + " "
            record = {
                "patient_first_name": f,
                "patient_last_name": la,
                "patient_birth_date": dob,
                "patient_gender": sex,
            }
            if mid:
                record["member_id"] = mid
            out.append((person, record))
    return out


PAYERS = [
    "AETNA",
    "CIGNA HEALTHCARE",
    "HUMANA",
    "KAISER PERMANENTE",
    "MOLINA HEALTHCARE",
    "CENTENE",
    "WELLCARE HEALTH PLANS",
    "HIGHMARK",
    "TRICARE EAST",
    "NOVITAS SOLUTIONS",
    "PALMETTO GBA",
    "NORIDIAN HEALTHCARE SOLUTIONS",
    "OSCAR HEALTH",
    "AMBETTER",
    "CAREFIRST",
    "GEISINGER HEALTH PLAN",
    "BLUE CROSS BLUE SHIELD OF TEXAS",
    "UNITEDHEALTHCARE",
    "EMPIRE BLUE CROSS",
    "TUFTS HEALTH PLAN",
    "HARVARD PILGRIM",
    "PRESBYTERIAN HEALTH PLAN",
    "WPS HEALTH SOLUTIONS",
]
ABSENT = [
    "MEDICAL MUTUAL",
    "PRIORITY HEALTH",
    "EMBLEMHEALTH",
    "SELECTHEALTH",
    "AETNA BETTER HEALTH OF OHIO",
    "HEALTH NET",
]


def payer_spellings(n: int, rng: random.Random) -> list[tuple[str, str | None]]:
    """(spelling, the payer it is or None) for n spellings of known payers and of absent ones."""
    out: list[tuple[str, str | None]] = []
    for _ in range(n):
        absent = rng.random() < 0.15
        name = rng.choice(ABSENT if absent else PAYERS)
        text = name.title() if rng.random() < 0.5 else name
        roll = rng.random()
        if roll < 0.2:
            text += rng.choice([", Inc.", " INC", " Corp", " Company", " LLC"])
        elif roll < 0.45:
            words = text.split(" ")
            j = rng.randrange(len(words))
            words[j] = typo(words[j], rng)
            text = " ".join(words)
        elif roll < 0.55:
            text = text.replace("BLUE CROSS BLUE SHIELD", "BCBS").replace("Blue Cross Blue Shield", "BCBS")
        elif roll < 0.65:
            text = text.replace(" ", "  ") + "."
        out.append((text, None if absent else name))
    return out


def prf(tp: int, predicted: int, truth: int) -> tuple[float, float, float]:
    precision = tp / predicted if predicted else 1.0
    recall = tp / truth if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def bench_patients(n: int, rng: random.Random) -> None:
    from api.money.entity_resolution.blocking import Bands, pairs_from_blocks, patient_block_keys
    from api.money.entity_resolution.encoding import LinkageKey
    from api.money.entity_resolution.extract import patient_code
    from api.money.entity_resolution.scoring import PATIENT_REVIEW, patient_score

    records = people_records(n, rng)
    truth = _truth_by_person(records)
    started = time.perf_counter()
    key = LinkageKey.derive(rng.randbytes(32))
    bands = Bands(key)
    codes = [patient_code(r, key) for _, r in records]
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, code in enumerate(codes):
        assert code is not None
        for k in patient_block_keys(code, bands):
            blocks[k].append(i)
    pairs = pairs_from_blocks(blocks, set(range(len(records))))
    predicted = {p for p in pairs if patient_score(codes[p[0]], codes[p[1]]) >= PATIENT_REVIEW}  # type: ignore[arg-type]
    elapsed = time.perf_counter() - started

    exact: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for i, (_, r) in enumerate(records):
        exact[
            (r["patient_first_name"].strip().upper(), r["patient_last_name"].strip().upper(), r["patient_birth_date"])
        ].append(i)
    baseline = {p for ids in exact.values() for p in combinations(ids, 2)}

    all_pairs = len(records) * (len(records) - 1) // 2
    print(f"patients: {n} people, {len(records)} records, {len(truth)} true pairs")
    print(f"  pairs scored {len(pairs)} of {all_pairs} ({len(pairs) / max(all_pairs, 1):.4%}), {elapsed:.2f} s")
    for label, found in (("matcher (review threshold)", predicted), ("exact first+last+DOB", baseline)):
        precision, recall, f1 = prf(len(found & truth), len(found), len(truth))
        print(f"  {label:28s} precision {precision:.3f}  recall {recall:.3f}  F1 {f1:.3f}")


def _truth_by_person(records: list[tuple[int, dict[str, str]]]) -> set[tuple[int, int]]:
    by_person: dict[int, list[int]] = defaultdict(list)
    for i, (person, _) in enumerate(records):
        by_person[person].append(i)
    return {p for ids in by_person.values() for p in combinations(ids, 2)}


def bench_payers(n: int, rng: random.Random) -> None:
    from api.money.entity_resolution.normalize import payer_name
    from api.money.entity_resolution.payers import best_payers

    spellings = payer_spellings(n, rng)
    distinct = sorted({s for s, _ in spellings})
    truth = dict(spellings)
    known = {payer_name(p): p for p in PAYERS}
    found = {c.spelling: c.suggested_payer for c in best_payers(distinct, known)}
    exact = {s: s.strip().upper() for s in distinct if s.strip().upper() in PAYERS}
    positives = sum(1 for s in distinct if truth[s] is not None)
    print(f"payers: {len(distinct)} distinct spellings of {len(PAYERS)} known payers and {len(ABSENT)} absent ones")
    for label, guess in (("matcher (review threshold)", found), ("exact upper-cased spelling", exact)):
        tp = sum(1 for s, p in guess.items() if truth[s] == p)
        precision, recall, f1 = prf(tp, len(guess), positives)
        print(f"  {label:28s} precision {precision:.3f}  recall {recall:.3f}  F1 {f1:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--people", type=int, default=4000)
    parser.add_argument("--payer-spellings", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1128)
    args = parser.parse_args()
    rng = random.Random(args.seed)  # the generator's own stream; the matcher's key is drawn from it too
    bench_patients(args.people, rng)
    bench_payers(args.payer_spellings, rng)


if __name__ == "__main__":
    main()
