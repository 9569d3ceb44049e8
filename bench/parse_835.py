"""Benchmark: our X12 835 parser vs pyx12's X12ContextReader.

Generates a deterministic, balanced 5010 835 of the requested size with a
small template writer (independent of the project's synthetic generator),
then measures:

- our ``parse_x12_file`` throughput (file -> Polars tables) on the big file;
- pyx12 ``X12ContextReader`` throughput on a small slice of the same shape
  (pyx12 is too slow to run on the big file in a bench), iterating the 2100
  claim loops and pulling CLP values out, as a pyx12 user would;
- our parser on the same small slice (like-for-like ratio);
- peak RSS of our parser, each in a fresh subprocess, at two file sizes.

Usage: .venv/bin/python bench/parse_835.py --mb 50 [--pyx12-mb 1.5] [--workdir /tmp/x12bench]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_CODES = ["99213", "99214", "99203", "85025", "80053", "36415", "71046", "93000", "97110", "J1885"]
_MODS = ["", "", "", "25", "59", "26", "TC"]
_RARCS = ["N130", "M15", "N381", "MA130", "N14", "M80"]
_LAST = ["SMITH", "JONES", "GARCIA", "NGUYEN", "BROWN", "MILLER", "DAVIS", "LOPEZ"]
_FIRST = ["ANNA", "JOHN", "MARIA", "WEI", "OMAR", "LUCY", "PAUL", "ZOE"]


def _money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    whole, frac = divmod(cents, 100)
    return f"{sign}{whole}" if frac == 0 else f"{sign}{whole}.{frac:02d}"


def _claim(rng: random.Random, n: int, day: str) -> tuple[list[str], int]:
    """Segments of one balanced claim (2100 + 2-6 SVC loops) and its paid cents."""
    lines = []
    charge_total = paid_total = 0
    denied = rng.random() < 0.12
    for i in range(rng.randint(2, 6)):
        charge = rng.randint(2_000, 90_000)
        paid = 0 if denied else rng.randint(0, charge)
        contractual = charge - paid
        code = rng.choice(_CODES)
        mod = rng.choice(_MODS)
        proc = f"HC:{code}" + (f":{mod}" if mod else "")
        seg = [f"SVC*{proc}*{_money(charge)}*{_money(paid)}**{rng.randint(1, 4)}", f"DTM*472*{day}"]
        if denied:
            seg.append(f"CAS*CO*50*{_money(charge)}")
        elif contractual:
            patient = rng.randint(0, contractual) if rng.random() < 0.4 else 0
            if patient:
                seg.append(f"CAS*CO*45*{_money(contractual - patient)}")
                seg.append(f"CAS*PR*1*{_money(patient // 2)}**2*{_money(patient - patient // 2)}")
            else:
                seg.append(f"CAS*CO*45*{_money(contractual)}")
        seg.append(f"REF*6R*{n:09d}{i:02d}")
        seg.append(f"AMT*B6*{_money(paid)}")
        if denied or rng.random() < 0.2:
            seg.append(f"LQ*HE*{rng.choice(_RARCS)}")
        lines.append(seg)
        charge_total += charge
        paid_total += paid
    status = "4" if denied else "1"
    head = [
        f"CLP*PCN{n:010d}*{status}*{_money(charge_total)}*{_money(paid_total)}**12*ICN{n:012d}*11*1",
        f"NM1*QC*1*{rng.choice(_LAST)}*{rng.choice(_FIRST)}****MI*M{rng.randint(10**8, 10**9 - 1)}",
        f"NM1*82*1*{rng.choice(_LAST)}*{rng.choice(_FIRST)}****XX*1{rng.randint(10**8, 10**9 - 1)}",
        f"DTM*232*{day}",
        f"DTM*233*{day}",
    ]
    if not denied:
        head.append(f"AMT*AU*{_money(paid_total)}")
    return head + [s for seg in lines for s in seg], paid_total


def write_835(path: Path, target_bytes: int, seed: int = 835, claims_per_check: int = 800) -> int:
    """Write a balanced multi-transaction 835 of at least ``target_bytes``; return the claim count."""
    rng = random.Random(seed)
    out = []
    size = 0
    n = 0
    st = 0
    isa = "ISA*00*          *00*          *ZZ*PAYERSENDER    *ZZ*HOSPITALRECV   *240101*1200*^*00501*000000001*0*P*:"
    out.append(isa + "~\n")
    out.append("GS*HP*PAYERSENDER*HOSPITALRECV*20240101*1200*1*X*005010X221A1~\n")
    while size < target_bytes:
        st += 1
        body: list[str] = []
        paid = 0
        for _ in range(claims_per_check):
            day = f"2024{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
            segs, p = _claim(rng, n, day)
            body.append(f"LX*{n % 9999 + 1}")
            body.extend(segs)
            paid += p
            n += 1
        header = [
            f"ST*835*{st:04d}",
            f"BPR*I*{_money(paid)}*C*ACH*CCP*01*999999992*DA*123456*1512345678**01*999988880*DA*98765*20240105",
            f"TRN*1*TRACE{st:08d}*1512345678",
            "DTM*405*20240104",
            "N1*PR*BENCH HEALTH PLAN",
            "N3*1 MAIN ST",
            "N4*ANYTOWN*CA*90001",
            "REF*2U*BHP01",
            "N1*PE*GENERAL HOSPITAL*XX*1234567893",
        ]
        segs = header + body
        segs.append(f"SE*{len(segs) + 1}*{st:04d}")
        text = "~\n".join(segs) + "~\n"
        out.append(text)
        size += len(text)
    out.append(f"GE*{st}*1~\nIEA*1*000000001~\n")
    path.write_text("".join(out), encoding="ascii")
    return n


def _ours(path: Path, repeat: int = 3) -> tuple[float, float, dict[str, int]]:
    """Best-of-``repeat`` wall and CPU seconds of parse_x12_file (CPU time is less
    disturbed by other processes on a shared machine)."""
    from pipelines.ingest.x12 import parse_x12_file

    best_wall = best_cpu = float("inf")
    counts: dict[str, int] = {}
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = parse_x12_file(path)
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
        counts = {k: v.height for k, v in result.tables.items()}
    return best_wall, best_cpu, counts


def _one_core_child(path: str, repeat: int) -> None:
    """Run in a fresh interpreter pinned to one CPU with one Polars thread."""
    wall, cpu, _ = _ours(Path(path), repeat)
    print(f"{wall} {cpu}")


def _one_core(path: Path, repeat: int) -> tuple[float, float]:
    env = dict(os.environ, POLARS_MAX_THREADS="1")
    cpu = sorted(os.sched_getaffinity(0))[-1]
    out = subprocess.run(
        ["taskset", "-c", str(cpu), sys.executable, __file__, "--one-core-child", str(path), "--repeat", str(repeat)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.split()
    return float(out[0]), float(out[1])


def _pyx12(path: Path) -> tuple[float, float, int]:
    import pyx12.error_handler
    import pyx12.params
    import pyx12.x12context

    t0, c0 = time.perf_counter(), time.process_time()
    claims = []
    param = pyx12.params.params()
    errh = pyx12.error_handler.errh_null()
    with path.open(encoding="ascii") as fh:
        reader = pyx12.x12context.X12ContextReader(param, errh, fh)
        for node in reader.iter_segments("2100"):
            if node.id == "2100":
                claims.append(
                    (node.get_value("CLP01"), node.get_value("CLP02"), node.get_value("CLP03"), node.get_value("CLP04"))
                )
    return time.perf_counter() - t0, time.process_time() - c0, len(claims)


def _peak_rss_mib() -> float:
    # VmHWM is this process's own high-water mark; ru_maxrss would include the
    # parent's RSS inherited across fork+exec.
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss_child(path: str) -> None:
    """Run in a fresh interpreter: print baseline and peak RSS (MiB) around one parse."""
    import polars  # noqa: F401  (import cost is not the parser's memory)

    from pipelines.ingest.x12 import parse_x12_file

    base = _peak_rss_mib()
    result = parse_x12_file(path)
    peak = _peak_rss_mib()
    held = sum(f.estimated_size() for f in result.tables.values()) / 2**20
    print(f"{base:.0f} {peak:.0f} {held:.0f}")


def _rss(path: Path) -> tuple[float, float, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--rss-child", str(path)], check=True, capture_output=True, text=True
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=50.0, help="size of the big generated 835 (MB)")
    parser.add_argument("--pyx12-mb", type=float, default=1.5, help="size of the slice pyx12 parses (MB)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/x12bench"))
    parser.add_argument("--repeat", type=int, default=3, help="best-of-N timing runs for our parser")
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    parser.add_argument("--one-core-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        _rss_child(args.rss_child)
        return
    if args.one_core_child:
        _one_core_child(args.one_core_child, args.repeat)
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    mb = 1_000_000
    big = args.workdir / f"bench_{args.mb:g}mb.835"
    small = args.workdir / f"bench_{args.pyx12_mb:g}mb.835"
    mid = args.workdir / f"bench_{args.mb / 5:g}mb.835"
    for path, size, cpc in ((big, args.mb, 800), (small, args.pyx12_mb, 100), (mid, args.mb / 5, 800)):
        if not path.exists():
            t0 = time.perf_counter()
            claims = write_835(path, int(size * mb), claims_per_check=cpc)
            print(
                f"generated {path} ({path.stat().st_size / mb:.1f} MB, {claims} claims) in {time.perf_counter() - t0:.1f}s"
            )

    big_mb = big.stat().st_size / mb
    small_mb = small.stat().st_size / mb
    print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    _ours(small, 1)  # warm-up: imports and Polars thread pool
    w_big, c_big, counts = _ours(big, args.repeat)
    w_one, c_one = _one_core(big, args.repeat)
    w_small, c_small, _ = _ours(small, args.repeat)
    w_pyx, c_pyx, pyx_claims = _pyx12(small)
    print(f"\nfile -> Polars tables, best of {args.repeat}; MB/s by wall clock (and by CPU time)")
    print(
        f"ours  parse_x12_file  {big_mb:6.1f} MB  all cores  {w_big:6.2f} s  {big_mb / w_big:7.1f} MB/s  (cpu {big_mb / c_big:6.1f})"
    )
    print(
        f"ours  parse_x12_file  {big_mb:6.1f} MB  one core   {w_one:6.2f} s  {big_mb / w_one:7.1f} MB/s  (cpu {big_mb / c_one:6.1f})  [taskset 1 CPU, POLARS_MAX_THREADS=1]"
    )
    print(f"      tables: {counts}")
    print(
        f"ours  parse_x12_file  {small_mb:6.1f} MB  all cores  {w_small:6.2f} s  {small_mb / w_small:7.1f} MB/s  (cpu {small_mb / c_small:6.1f})  [pyx12-sized slice]"
    )
    print(
        f"pyx12 X12ContextReader {small_mb:5.1f} MB  one core   {w_pyx:6.2f} s  {small_mb / w_pyx:7.3f} MB/s  (cpu {small_mb / c_pyx:6.3f})  claims={pyx_claims}"
    )
    print("      pyx12 runs on the small slice only (same generator, same shape); its MB/s is computed from it")
    print(
        f"ratio ours(one core, {big_mb:.0f} MB) / pyx12 = {(big_mb / w_one) / (small_mb / w_pyx):.0f}x wall, "
        f"{(big_mb / c_one) / (small_mb / c_pyx):.0f}x cpu; like-for-like on the slice = {(small_mb / w_small) / (small_mb / w_pyx):.0f}x wall"
    )
    for path in (mid, big):
        base, peak, held = _rss(path)
        print(
            f"peak RSS ours {path.stat().st_size / mb:6.1f} MB file: {peak:6.0f} MiB "
            f"(after imports {base:.0f} MiB; the returned tables hold {held:.0f} MiB)"
        )


if __name__ == "__main__":
    main()
