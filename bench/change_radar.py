"""Benchmark: the change radar's false alerts and recall on generated corpora.

Generates corpora with the project's synthetic generator, each posted for its own tenant
(drop/client_<n>) of one fresh data directory, and runs the whole pipeline once
(raw parse -> extract -> dbt build with tests -> publish). Then, per tenant:

- null corpora (no planted scenario): every alert is a false alert. Reported per 100 eligible
  payer-months (a payer-month with at least 3 earlier months of that payer and at least 20 claims
  adjudicated: the months in which any cell can be tested). Goal: <= 1.
- planted corpora (CarcSpike scenarios from month 7 of 12): a spike is found when an alert names its
  payer and CARC in a month on or after the spike's first month. Goal: recall 100 %. Alerts on any
  other payer or CARC of these corpora are counted as false alerts too.

Both the current radar (payerChangeRadar's decision: exact conditional test per cell, minimum
denial count, Benjamini-Hochberg across the tenant's cells of each metric) and the previous rule (primary CARC only,
value > baseline mean + 3 x max(stddev, 1 point), re-run here as SQL on the same snapshot) are
evaluated on the same build, so the two columns are measured back to back.

Usage:
    .venv/bin/python bench/change_radar.py                          # 4 null + 4 planted corpora of 24k claims
    .venv/bin/python bench/change_radar.py --claims 6000 --corpora 2
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "true")
os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")

MONTHS = 12
START = date(2026, 1, 1)
SPIKE_MONTH = 7


def planted_spikes():  # -> tuple[CarcSpike, ...]
    """A strong spike on a large payer, a moderate one on a CARC that is not the payer's usual, and
    one on a mid-size commercial payer's office visits."""
    from pipelines.synthetic.spec import CarcSpike

    return (
        CarcSpike(payer="medicare", carc="50", cpt="80053", from_month=SPIKE_MONTH, rate=0.6),
        CarcSpike(payer="northwind", carc="197", cpt="71046", from_month=SPIKE_MONTH, rate=0.4),
        CarcSpike(payer="bluepeak", carc="16", cpt="99214", from_month=SPIKE_MONTH, rate=0.3),
    )


@dataclass(frozen=True)
class Corpus:
    client_id: int
    seed: int
    planted: bool


def month_label(index: int) -> str:
    """ "YYYY-MM" of month `index` (1 = START's month)."""
    total = START.year * 12 + START.month - 1 + index - 1
    return f"{total // 12:04d}-{total % 12 + 1:02d}"


def prepare(corpora: list[Corpus], claims: int, workdir: Path) -> tuple[Path, str]:
    """Generate (or reuse) each corpus and lay out one data dir with a tenant per corpus."""
    from sqlalchemy import create_engine, text

    from api.infra.db import migrate
    from pipelines.synthetic import CorpusSpec, generate_corpus

    data_dir = workdir / "data"
    shutil.rmtree(data_dir, ignore_errors=True)
    for corpus in corpora:
        scenarios = planted_spikes() if corpus.planted else ()
        kind = "planted" if corpus.planted else "null"
        folder = workdir / f"corpus_{kind}_{corpus.seed}_{claims}"
        if not (folder / "manifest.json").exists():
            spec = CorpusSpec(
                seed=corpus.seed,
                claims=claims,
                months=MONTHS,
                start=START,
                scenarios=scenarios,
                write_csv=False,
                write_deposits=False,
            )
            generate_corpus(spec, folder)
        drop = data_dir / "drop" / f"client_{corpus.client_id}"
        drop.mkdir(parents=True)
        for path in folder.iterdir():
            if path.suffix in (".835", ".837"):
                os.link(path, drop / path.name)
    url = f"sqlite:///{data_dir / 'platform.db'}"
    migrate.upgrade(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        now = datetime.now(UTC)
        conn.execute(
            text(
                "insert into organizations (id, name, slug, status, created_at) values (1, 'Bench', 'bench', 'active', :n)"
            ),
            {"n": now},
        )
        for corpus in corpora:
            conn.execute(
                text(
                    "insert into clients (id, organization_id, name, status, created_at) values (:id, 1, :name, 'active', :n)"
                ),
                {"id": corpus.client_id, "name": f"Bench {corpus.client_id}", "n": now},
            )
    engine.dispose()
    return data_dir, url


ELIGIBLE_SQL = """
    select count(*) from (
        select claims_adjudicated, row_number() over (partition by payer_sk order by adjudication_month) as nth
        from fct_payer_monthly where client_id = ?
    ) where nth > 3 and claims_adjudicated >= 20
"""

# The rule this change replaced (fct_payer_change_alerts before it), verbatim apart from the Jinja
# defaults being spelled out: primary CARC only, mean + 3 sigma with a 1-point (1-day) floor.
PREVIOUS_RULE_SQL = """
with payer_months as (select * from fct_payer_monthly where client_id = $client),
carc_months as (
    select payer_sk, adjudication_month, primary_denial_carc as carc, count(*) as denied_claims
    from fct_claim_reconciliation
    where client_id = $client and initially_denied and adjudication_month is not null
      and primary_denial_carc is not null
    group by payer_sk, adjudication_month, primary_denial_carc
),
payer_carcs as (select distinct payer_sk, carc from carc_months),
series as (
    select pm.payer_key, pm.adjudication_month, 'carc_denial_rate' as metric, pc.carc, pm.claims_adjudicated,
        cast(coalesce(cm.denied_claims, 0) as double) / nullif(pm.claims_adjudicated, 0) as metric_value,
        0.01 as stddev_floor, pm.payer_sk
    from payer_months pm
    join payer_carcs pc on pc.payer_sk = pm.payer_sk
    left join carc_months cm
        on cm.payer_sk = pm.payer_sk and cm.adjudication_month = pm.adjudication_month and cm.carc = pc.carc
    union all
    select payer_key, adjudication_month, 'days_to_pay', '', claims_adjudicated, avg_days_to_pay, 1.0, payer_sk
    from payer_months
),
with_baseline as (
    select *, avg(metric_value) over prior as baseline_mean, stddev_samp(metric_value) over prior as baseline_stddev,
        count(*) over prior as baseline_months
    from series
    window prior as (partition by payer_sk, metric, carc order by adjudication_month
                     rows between unbounded preceding and 1 preceding)
)
select payer_key, strftime(adjudication_month, '%Y-%m') as month, metric, nullif(carc, '') as carc
from with_baseline
where baseline_months >= 3 and claims_adjudicated >= 20
  and metric_value > baseline_mean + 3 * greatest(coalesce(baseline_stddev, 0), stddev_floor)
"""


def current_alerts(
    con, client_id: int, *, min_denials: int | None = None, fdr: float | None = None
) -> list[tuple[str, str, str, str | None]]:
    """(payer, month, metric, carc) of the alerts payerChangeRadar reports for the tenant.

    `min_denials` (at least the mart's own minimum) and `fdr` re-run the decision with a stricter
    minimum denial count or false discovery rate, to show what they would change.
    """
    from api.intelligence.payer_change_radar.queries import ALERT_FDR, judge

    cur = con.execute("select * from fct_payer_change_alerts where client_id = ?", [client_id])
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    if min_denials is not None:
        rows = [r for r in rows if r["metric"] != "carc_denial_rate" or r["denied_claims"] >= min_denials]
    judged = judge(rows)
    limit = ALERT_FDR if fdr is None else fdr
    return [
        (r["payer_key"], r["adjudication_month"].strftime("%Y-%m"), r["metric"], r["carc"])
        for r in rows
        if r["alert_key"] in judged and judged[r["alert_key"]].q_value <= limit
    ]


def previous_alerts(con, client_id: int) -> list[tuple[str, str, str, str | None]]:
    return [tuple(r) for r in con.execute(PREVIOUS_RULE_SQL, {"client": client_id}).fetchall()]


def score(alerts, spikes) -> tuple[int, int, int]:
    """(spikes found, spikes planted, alerts that are not about a planted spike)."""
    from pipelines.synthetic.catalog import PAYERS

    names = {p.key: p.name for p in PAYERS}
    planted = {(names[s.payer], s.carc): month_label(s.from_month) for s in spikes}
    found = {
        (payer, carc)
        for payer, month, metric, carc in alerts
        if metric == "carc_denial_rate" and (payer, carc) in planted and month >= planted[(payer, carc)]
    }
    false = [
        a
        for a in alerts
        if not (a[2] == "carc_denial_rate" and (a[0], a[3]) in planted and a[1] >= planted[(a[0], a[3])])
    ]
    return len(found), len(planted), len(false)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=24000, help="claims per corpus")
    parser.add_argument("--corpora", type=int, default=4, help="null corpora, and as many planted ones")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/radar_bench"))
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    corpora = [Corpus(i + 1, 7001 + i, False) for i in range(args.corpora)]
    corpora += [Corpus(args.corpora + i + 1, 8001 + i, True) for i in range(args.corpora)]

    from pipelines.defs.dbt.project import ensure_manifest
    from pipelines.runner import run_pipeline
    from pipelines.warehouse.snapshot import open_published

    started = time.perf_counter()
    data_dir, url = prepare(corpora, args.claims, args.workdir)
    print(
        f"{len(corpora)} corpora of {args.claims:,} claims, {MONTHS} months, ready in {time.perf_counter() - started:.0f}s"
    )
    ensure_manifest()
    started = time.perf_counter()
    summary = run_pipeline(data_dir, url)
    if not summary.success:
        print(f"pipeline FAILED: {summary.errors}")
        return 1
    print(f"pipeline: {time.perf_counter() - started:.0f}s")

    # per rule: null false alerts, eligible payer-months, spikes found, spikes planted, other alerts on
    # the planted corpora. "min8" and "fdr01": the current decision with a minimum of 8 denials, or an
    # FDR of 0.01, to show what a stricter setting would change.
    totals = {rule: [0, 0, 0, 0, 0] for rule in ("current", "previous", "min8", "fdr01")}
    print("\n| corpus | seed | eligible payer-months | rule | alerts | false alerts | spikes found |")
    print("|---|---|---|---|---|---|---|")
    with open_published(data_dir) as snap:
        con = snap.connection
        for corpus in corpora:
            eligible = con.execute(ELIGIBLE_SQL, [corpus.client_id]).fetchone()[0]
            spikes = planted_spikes() if corpus.planted else ()
            for rule, alerts in (
                ("current", current_alerts(con, corpus.client_id)),
                ("previous", previous_alerts(con, corpus.client_id)),
                ("min8", current_alerts(con, corpus.client_id, min_denials=8)),
                ("fdr01", current_alerts(con, corpus.client_id, fdr=0.01)),
            ):
                found, planted, false = score(alerts, spikes)
                t = totals[rule]
                if corpus.planted:
                    t[2] += found
                    t[3] += planted
                    t[4] += false
                else:
                    t[0] += false
                    t[1] += eligible
                kind = "planted" if corpus.planted else "null"
                spikes_found = f"{found}/{planted}" if corpus.planted else "-"
                print(f"| {kind} | {corpus.seed} | {eligible} | {rule} | {len(alerts)} | {false} | {spikes_found} |")
    print()
    for rule, (false, eligible, found, planted, planted_false) in totals.items():
        rate = 100.0 * false / eligible if eligible else float("nan")
        recall = 100.0 * found / planted if planted else float("nan")
        print(
            f"{rule:>8} rule: {rate:.2f} false alerts per 100 payer-months on the null corpora "
            f"({false} on {eligible}), recall {recall:.0f} % ({found}/{planted} planted spikes), "
            f"{planted_false} other alerts on the planted corpora"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
