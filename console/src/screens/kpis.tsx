// The revenue-cycle director's KPIs: tiles from analytics.kpis over a month range (each with its HFMA
// definition on hover, on keyboard focus and for screen readers), trend charts from analytics.trend and the
// denials broken down with analytics.breakdown. Every figure is the server's; nothing is recomputed here.
import { type ReactNode, useEffect, useId, useState } from "react";
import definitions from "../gen/kpi_definitions.json";
import { type In, type Out, query } from "../rpc";
import { Empty, ErrorNote, Field, Loading, money, num, pct, Screen, Section, useLoad } from "../ui";
import { ChartFigure, type Series } from "./chart";
import "./kpis.css";
import { ALL_MONTHS, type MonthRange, MonthRangeForm, rangeText, SnapshotNote } from "./period";

type Kpis = Out<"analytics.kpis">["kpis"];
type Metric = NonNullable<In<"analytics.trend">["metric"]>;
type By = NonNullable<In<"analytics.breakdown">["by"]>;
type DefinitionKey = keyof typeof definitions;

const days = (n: number | null) => (n === null ? "—" : `${n.toFixed(1)} days`);

interface TileSpec {
  key: DefinitionKey & keyof Kpis;
  label: string;
  value: (k: Kpis) => string | null;
  detail?: (k: Kpis) => ReactNode;
  /** Why the figure is missing, when the API or the definition says it. */
  unavailable?: (k: Kpis) => string | null;
}

const rate = (key: keyof Kpis) => (k: Kpis) => {
  const v = k[key];
  return v === null ? null : pct(v as number);
};

const GROUPS: { title: string; tiles: TileSpec[] }[] = [
  {
    title: "Denials",
    tiles: [
      {
        key: "initialDenialRate",
        label: "Initial denial rate, by volume",
        value: rate("initialDenialRate"),
        detail: (k) => `${num(k.initiallyDeniedClaims)} of ${num(k.claimsAdjudicated)} claims adjudicated`,
        unavailable: () => "No claim was adjudicated in these months.",
      },
      {
        key: "initialDenialRateDollars",
        label: "Initial denial rate, by dollars",
        value: rate("initialDenialRateDollars"),
        detail: (k) => `${money(k.initiallyDeniedCharges)} of ${money(k.billedAmount)} charges`,
        unavailable: () => "No charges were adjudicated in these months.",
      },
      {
        key: "firstPassYield",
        label: "First-pass yield",
        value: rate("firstPassYield"),
        detail: (k) => `${num(k.cleanClaims)} claims paid without a denial on first adjudication`,
        unavailable: () => "No claim was adjudicated in these months.",
      },
      {
        key: "cleanClaimRate",
        label: "Clean claim rate (HFMA)",
        value: rate("cleanClaimRate"),
        unavailable: (k) => k.cleanClaimRateUnavailable,
      },
      {
        key: "overturnRate",
        label: "Overturn rate (worked denials)",
        value: rate("overturnRate"),
        detail: (k) => (
          <>
            {num(k.workedOverturnedClaims)} worked overturns of {num(k.initiallyDeniedClaims)} denials (
            {num(k.overturnedClaims)} paid later by anyone)
            {k.immatureMonths > 0 ? (
              <span className="caution">
                {" "}
                Not final: {k.immatureMonths} of the months are younger than 90 days, their appeals may still be decided.
              </span>
            ) : null}
          </>
        ),
        unavailable: () => "No claim was initially denied in these months.",
      },
      {
        key: "finalDenialWriteOffPct",
        label: "Final denial write-off, % of net revenue",
        value: rate("finalDenialWriteOffPct"),
        detail: (k) => `${money(k.finalDenialWriteOffAmount)} written off on ${num(k.finalWriteOffClaims)} claims`,
        unavailable: () => "Net patient revenue is zero for these months.",
      },
      {
        key: "recoveredAmount",
        label: "Recovered by overturns",
        value: (k) => money(k.recoveredAmount),
        detail: (k) => `${num(k.overturnedClaims)} initially denied claims paid later`,
      },
    ],
  },
  {
    title: "Collections and A/R",
    tiles: [
      {
        key: "netCollectionRate",
        label: "Net collection rate",
        value: rate("netCollectionRate"),
        detail: (k) => `${money(k.paidAmount)} paid by payers`,
        unavailable: () => "Nothing was collectible in these months.",
      },
      {
        key: "daysInAr",
        label: "Net days in A/R",
        value: (k) => (k.daysInAr === null ? null : days(k.daysInAr)),
        detail: (k) => `Net A/R ${money(k.netArAmount)} at the end of ${k.balancesMonth ?? "the range"}`,
        unavailable: () => "No net patient revenue in the three months before the range's end.",
      },
      {
        key: "agedArOver90Pct",
        label: "A/R over 90 days",
        value: rate("agedArOver90Pct"),
        detail: (k) => `${money(k.agedArAmount)} of ${money(k.arAmount)} gross A/R`,
        unavailable: () => "No open A/R at the end of the range.",
      },
      {
        key: "avgDaysToPay",
        label: "Average days to pay",
        value: (k) => (k.avgDaysToPay === null ? null : days(k.avgDaysToPay)),
        detail: () => "From payer receipt to the initial payment",
        unavailable: () => "No claim was paid in these months.",
      },
      {
        key: "costToCollect",
        label: "Cost to collect",
        value: rate("costToCollect"),
        detail: (k) => `${money(k.costToCollectAmount)} revenue-cycle cost recorded`,
        unavailable: (k) =>
          k.costToCollectAmount === null
            ? "No revenue-cycle cost is recorded for these months (analytics.recordCollectionCost)."
            : "No payment was collected in these months.",
      },
      {
        key: "daysInDnfb",
        label: "Days discharged not final billed",
        value: (k) => (k.daysInDnfb === null ? null : days(k.daysInDnfb)),
        detail: (k) => `${money(k.dnfbAmount)} discharged not final billed`,
        unavailable: (k) =>
          k.dnfbAmount === null
            ? "No claim discharged in the last three months carries a submission date (837)."
            : "No discharged charges in the last three months.",
      },
    ],
  },
  {
    title: "Denial cases",
    tiles: [
      {
        key: "caseWinRate",
        label: "Case win rate",
        value: rate("caseWinRate"),
        detail: (k) =>
          `${num(k.casesWon)} won and ${num(k.casesPartiallyWon)} partially won of ${num(k.casesDecided)} decided`,
        unavailable: () => "No case was decided in these months.",
      },
      {
        key: "casesOpened",
        label: "Cases opened",
        value: (k) => num(k.casesOpened),
        detail: (k) => `${num(k.casesDecided)} decided, ${num(k.casesClosed)} closed`,
      },
      {
        key: "caseRecoveredAmount",
        label: "Recovered by cases",
        value: (k) => money(k.caseRecoveredAmount),
        detail: (k) => `${money(k.caseWrittenOffAmount)} written off by cases`,
      },
    ],
  },
];

export function KpiScreen() {
  const [range, setRange] = useState<MonthRange>(ALL_MONTHS);
  const input = { fromMonth: range.fromMonth, toMonth: range.toMonth };
  const deps = [range.fromMonth, range.toMonth];
  const kpis = useLoad(() => query("analytics.kpis", input), deps);
  return (
    <Screen title="KPIs" busy={kpis.loading && !kpis.data}>
      <MonthRangeForm value={range} onChange={setRange} label="KPI months" />
      <section aria-labelledby="kpi-figures" className="panel">
        <h2 id="kpi-figures">Key figures, {rangeText(range)}</h2>
        {kpis.loading && !kpis.data ? <Loading label="Loading key figures" /> : null}
        <ErrorNote error={kpis.error} />
        {kpis.data ? <Figures answer={kpis.data} /> : null}
      </section>
      <h2>Trends by month, {rangeText(range)}</h2>
      <div className="columns">
        {TRENDS.map((t) => (
          <TrendSection key={t.title} spec={t} range={range} />
        ))}
      </div>
      <Breakdown range={range} />
    </Screen>
  );
}

function Figures({ answer }: { answer: Out<"analytics.kpis"> }) {
  const k = answer.kpis;
  return (
    <>
      <SnapshotNote snapshot={answer.snapshot} dataAsOf={answer.dataAsOf} />
      <p className="muted">
        {answer.months} months
        {answer.fromMonth || answer.toMonth ? ` (${answer.fromMonth ?? "…"} to ${answer.toMonth ?? "…"})` : ""}, by month of
        first adjudication; balances at the end of {k.balancesMonth ?? "the range"}. Focus or hover a figure's name for
        its definition.
      </p>
      {GROUPS.map((g) => (
        <div key={g.title}>
          <h3>{g.title}</h3>
          <ul className="tiles kpi-tiles">
            {g.tiles.map((t) => (
              <Tile key={t.key} spec={t} kpis={k} />
            ))}
          </ul>
        </div>
      ))}
    </>
  );
}

/** One KPI: its name is a button described by its definition, shown on hover, focus or click; Escape hides it. */
function Tile({ spec, kpis }: { spec: TileSpec; kpis: Kpis }) {
  const tipId = useId();
  const [hover, setHover] = useState(false);
  const [focus, setFocus] = useState(false);
  const [pinned, setPinned] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const shown = (hover || focus || pinned) && !dismissed;
  const value = spec.value(kpis);
  const why = value === null ? spec.unavailable?.(kpis) : null;
  // Escape hides it wherever focus is (WCAG 1.4.13: dismissible without moving the pointer or focus).
  useEffect(() => {
    if (!shown) return;
    const escape = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setDismissed(true);
      setPinned(false);
    };
    document.addEventListener("keydown", escape);
    return () => document.removeEventListener("keydown", escape);
  }, [shown]);
  return (
    <li
      className="tile kpi"
      onMouseEnter={() => (setHover(true), setDismissed(false))}
      onMouseLeave={() => setHover(false)}
    >
      <button
        type="button"
        className="kpi-name"
        aria-describedby={tipId}
        onFocus={() => (setFocus(true), setDismissed(false))}
        onBlur={() => (setFocus(false), setPinned(false))}
        onClick={() => (setPinned((p) => !p), setDismissed(false))}
      >
        {spec.label}
        <span className="kpi-info" aria-hidden="true">
          i
        </span>
      </button>
      <div role="tooltip" id={tipId} className="kpi-tip" hidden={!shown}>
        {definitions[spec.key]}
      </div>
      {value === null ? (
        <>
          <p className="value na">not available</p>
          {why ? <p className="muted reason">{why}</p> : null}
        </>
      ) : (
        <>
          <p className="value">{value}</p>
          {spec.detail ? <p className="muted">{spec.detail(kpis)}</p> : null}
        </>
      )}
    </li>
  );
}

interface TrendSpec {
  title: string;
  caption: string;
  metrics: { metric: Metric; label: string }[];
  format: (v: number | null) => string;
  beginAtZero?: boolean;
}

const pctAxis = (v: number | null) => pct(v, 1);

const TRENDS: TrendSpec[] = [
  {
    title: "Initial denial rate",
    caption: "Claims denied on first adjudication, by volume and by dollars, per adjudication month.",
    metrics: [
      { metric: "initial_denial_rate", label: "By volume" },
      { metric: "initial_denial_rate_dollars", label: "By dollars" },
    ],
    format: pctAxis,
    beginAtZero: true,
  },
  {
    title: "First-pass yield and net collection rate",
    caption: "Per adjudication month.",
    metrics: [
      { metric: "first_pass_yield", label: "First-pass yield" },
      { metric: "net_collection_rate", label: "Net collection rate" },
    ],
    format: pctAxis,
  },
  {
    title: "Overturn rate and case win rate",
    caption: "Overturns of worked denials per adjudication month (hollow points: not yet mature); cases by month of decision.",
    metrics: [
      { metric: "overturn_rate", label: "Overturn rate" },
      { metric: "case_win_rate", label: "Case win rate" },
    ],
    format: pctAxis,
    beginAtZero: true,
  },
  {
    title: "Final denial write-off",
    caption: "Denials written off as unrecoverable, as a share of net patient service revenue.",
    metrics: [{ metric: "final_denial_write_off_pct", label: "Final denial write-off" }],
    format: pctAxis,
    beginAtZero: true,
  },
  {
    title: "Days in A/R and days to pay",
    caption: "Net days in A/R at each month's end; mean days from payer receipt to payment.",
    metrics: [
      { metric: "days_in_ar", label: "Net days in A/R" },
      { metric: "avg_days_to_pay", label: "Average days to pay" },
    ],
    format: days,
    beginAtZero: true,
  },
  {
    title: "A/R over 90 days",
    caption: "Share of gross open A/R more than 90 days past the statement end, at each month's end.",
    metrics: [{ metric: "aged_ar_over_90_pct", label: "A/R over 90 days" }],
    format: pctAxis,
    beginAtZero: true,
  },
];

function TrendSection({ spec, range }: { spec: TrendSpec; range: MonthRange }) {
  const loaded = useLoad(
    () => Promise.all(spec.metrics.map((m) => query("analytics.trend", { metric: m.metric, ...range }))),
    [range.fromMonth, range.toMonth],
  );
  return (
    <Section title={spec.title} loaded={loaded} headingLevel={3}>
      {(answers) => {
        const months = [...new Set(answers.flatMap((a) => a.points.map((p) => p.month)))].sort();
        if (months.length === 0) return <Empty>No month in this range.</Empty>;
        const series: Series[] = answers.map((a, i) => {
          const byMonth = new Map(a.points.map((p) => [p.month, p]));
          const points = months.map((m) => byMonth.get(m));
          return {
            label: spec.metrics[i]!.label,
            values: points.map((p) => p?.value ?? null),
            notes:
              a.metric === "overturn_rate" ? points.map((p) => (p && p.isMature === false ? "not yet mature" : null)) : undefined,
          };
        });
        return (
          <ChartFigure
            title={spec.title}
            caption={spec.caption}
            labels={months}
            series={series}
            format={spec.format}
            beginAtZero={spec.beginAtZero}
            titleHidden
          />
        );
      }}
    </Section>
  );
}

const BY: { value: By; label: string }[] = [
  { value: "category", label: "Denial category" },
  { value: "carc", label: "CARC" },
  { value: "payer", label: "Payer" },
  { value: "group_code", label: "Group code" },
  { value: "hard_or_soft", label: "Hard or soft" },
  { value: "preventable", label: "Preventable" },
  { value: "claim_type", label: "Claim type" },
];

function Breakdown({ range }: { range: MonthRange }) {
  const [by, setBy] = useState<By>("category");
  const loaded = useLoad(() => query("analytics.breakdown", { by, limit: 15, ...range }), [by, range.fromMonth, range.toMonth]);
  const byLabel = BY.find((b) => b.value === by)?.label ?? by;
  return (
    <Section title="Initial denials broken down" loaded={loaded}>
      {(answer) => (
        <>
          <div className="breakdown-by">
          <Field label="Break down by">
            {(id) => (
              <select id={id} value={by} onChange={(e) => setBy(e.target.value as By)}>
                {BY.map((b) => (
                  <option key={b.value} value={b.value}>
                    {b.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          </div>
          {loaded.loading ? <Loading label="Loading the breakdown" /> : null}
          <p className="muted">
            {num(answer.totalDeniedClaims)} initially denied claims, {money(answer.totalDeniedAmount)} denied, {rangeText(range)}.
          </p>
          {answer.rows.length === 0 ? (
            <Empty>No denial in this range.</Empty>
          ) : (
            <ChartFigure
              kind="bar"
              horizontal
              title={`Initially denied claims by ${byLabel.toLowerCase()}`}
              caption="Largest first."
              labels={answer.rows.map((r) => readable(r.key))}
              series={[{ label: "Denied claims", values: answer.rows.map((r) => r.deniedClaims) }]}
              format={(v) => (v === null ? "—" : num(v))}
              height={Math.max(200, answer.rows.length * 28 + 60)}
              table={<BreakdownTable answer={answer} byLabel={byLabel} />}
            />
          )}
        </>
      )}
    </Section>
  );
}

function BreakdownTable({ answer, byLabel }: { answer: Out<"analytics.breakdown">; byLabel: string }) {
  return (
    <table className="grid">
      <caption className="visually-hidden">Initially denied claims by {byLabel.toLowerCase()}</caption>
      <thead>
        <tr>
          <th scope="col">{byLabel}</th>
          <th scope="col" className="num">Denied claims</th>
          <th scope="col" className="num">Share of denials</th>
          <th scope="col" className="num">Denied amount</th>
          <th scope="col" className="num">Overturned claims</th>
          <th scope="col" className="num">Recovered</th>
        </tr>
      </thead>
      <tbody>
        {answer.rows.map((r) => (
          <tr key={r.key}>
            <th scope="row">{readable(r.key)}</th>
            <td className="num">{num(r.deniedClaims)}</td>
            <td className="num">{pct(r.shareOfDenials)}</td>
            <td className="num">{money(r.deniedAmount)}</td>
            <td className="num">{num(r.overturnedClaims)}</td>
            <td className="num">{money(r.recoveredAmount ?? null)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function readable(key: string): string {
  return key.replace(/_/g, " ");
}
