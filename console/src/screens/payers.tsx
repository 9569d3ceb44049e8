// Payers: the scorecard (payerIntelligence.scorecard) over a month range, the days to pay of every payer,
// a selected payer's time to pay and denial reasons, and the change radar's alerts (payerChangeRadar.alerts)
// with an Acknowledge action each. Every figure is the server's.
import { useId, useState } from "react";
import { describe, mutate, type Out, query } from "../rpc";
import { Empty, ErrorNote, Field, Loading, money, num, pct, Screen, Section, SelectButton, useLoad, usePages, when } from "../ui";
import { ChartFigure } from "./chart";
import { ALL_MONTHS, type MonthRange, MonthRangeForm, rangeText, SnapshotNote } from "./period";
import "./payers.css";

type Score = Out<"payerIntelligence.scorecard">["items"][number];
type Alert = Out<"payerChangeRadar.alerts">["items"][number];

const days = (n: number | null | undefined) => (n === null || n === undefined ? "—" : `${n.toFixed(1)} days`);

export function PayerScreen() {
  const [range, setRange] = useState<MonthRange>(ALL_MONTHS);
  const [payer, setPayer] = useState<string | null>(null);
  const { first: scorecard, more, loadMore } = usePages<Score, Out<"payerIntelligence.scorecard">>(
    (cursor) => query("payerIntelligence.scorecard", cursor ? { ...range, limit: 50, cursor } : { ...range, limit: 50 }),
    [range.fromMonth, range.toMonth],
  );
  return (
    <Screen title="Payer scorecard" busy={scorecard.loading && !scorecard.data}>
      <MonthRangeForm value={range} onChange={setRange} label="Payer months" />
      <Section title={`Payer scorecard, ${rangeText(range)}`} loaded={scorecard}>
        {(answer) => {
          const items = [...answer.items, ...more];
          return (
            <>
              <SnapshotNote snapshot={answer.snapshot} />
              {items.length === 0 ? (
                <Empty>No claim was adjudicated in these months.</Empty>
              ) : (
                <ScoreTable items={items} selected={payer} onSelect={setPayer} />
              )}
              {loadMore ? <LoadMore run={loadMore} /> : null}
            </>
          );
        }}
      </Section>
      {payer ? <PayerDetail payer={payer} range={range} onClose={() => setPayer(null)} /> : null}
      <Alerts range={range} />
      <DaysToPay range={range} />
    </Screen>
  );
}

function LoadMore({ run }: { run: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const click = async () => {
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <p>
      <button type="button" className="secondary" disabled={busy} aria-busy={busy} onClick={() => void click()}>
        {busy ? "Loading more payers…" : "Load more payers"}
      </button>
      <ErrorNote error={error} />
    </p>
  );
}

function ScoreTable(props: { items: Score[]; selected: string | null; onSelect: (payer: string) => void }) {
  return (
    <div className="scroll" role="region" aria-label="Payer scorecard table" tabIndex={0}>
      <table className="grid">
        <caption className="visually-hidden">Payers by billed amount, largest first, with their denial and payment figures</caption>
        <thead>
          <tr>
            <th scope="col">Payer</th>
            <th scope="col" className="num">Claims adjudicated</th>
            <th scope="col" className="num">Billed</th>
            <th scope="col" className="num">Paid</th>
            <th scope="col" className="num">Denied</th>
            <th scope="col" className="num">Denial rate</th>
            <th scope="col" className="num">Denial rate ($)</th>
            <th scope="col" className="num">First-pass yield</th>
            <th scope="col" className="num">Overturn rate</th>
            <th scope="col" className="num">Recovered</th>
            <th scope="col" className="num">Avg days to pay</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((s) => {
            const name = s.payerName ?? s.payerKey;
            const selected = props.selected === s.payerKey;
            return (
              <tr key={s.payerKey} className={selected ? "selected" : undefined}>
                <th scope="row">{name}</th>
                <td className="num">{num(s.claimsAdjudicated)}</td>
                <td className="num">{money(s.billedAmount)}</td>
                <td className="num">{money(s.paidAmount)}</td>
                <td className="num">
                  {num(s.deniedClaims)} claims
                  <div className="muted">{money(s.deniedAmount)}</div>
                </td>
                <td className="num">{pct(s.denialRate)}</td>
                <td className="num">{pct(s.denialRateDollars)}</td>
                <td className="num">{pct(s.firstPassYield)}</td>
                <td className="num">
                  {pct(s.overturnRate)}
                  <div className="muted">{num(s.overturnedClaims)} overturned</div>
                </td>
                <td className="num">{money(s.recoveredAmount)}</td>
                <td className="num">{days(s.avgDaysToPay)}</td>
                <td>
                  <SelectButton label="Details" what={`for ${name}`} selected={selected} onSelect={() => props.onSelect(s.payerKey)} quiet />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** One payer: its time to pay and its denial reasons (two independent reads). */
function PayerDetail({ payer, range, onClose }: { payer: string; range: MonthRange; onClose: () => void }) {
  const headingId = useId();
  const timing = useLoad(() => query("payerIntelligence.timeToPay", { ...range, payer }), [payer, range.fromMonth, range.toMonth]);
  const reasons = useLoad(
    () => query("payerIntelligence.denialReasons", { ...range, payer, limit: 25 }),
    [payer, range.fromMonth, range.toMonth],
  );
  return (
    <section className="panel payer-detail" aria-labelledby={headingId}>
      <div className="screen-head">
        <h2 id={headingId}>
          {payer}, {rangeText(range)}
        </h2>
        <button type="button" className="secondary" onClick={onClose}>
          Close payer details
        </button>
      </div>
      <div className="columns">
        <Section title="Time to pay" loaded={timing} headingLevel={3}>
          {(answer) => {
            const row = answer.payers.find((p) => p.payerKey.toLowerCase() === payer.toLowerCase()) ?? answer.payers[0];
            if (!row) return <Empty>No claim of this payer was paid in these months.</Empty>;
            return (
              <dl className="facts">
                <dt>Paid claims</dt>
                <dd>{num(row.paidClaims)}</dd>
                <dt>Mean</dt>
                <dd>{days(row.meanDays)}</dd>
                <dt>Median</dt>
                <dd>{days(row.medianDays)}</dd>
                <dt>90th percentile</dt>
                <dd>{days(row.p90Days)}</dd>
                <dt>Fastest / slowest</dt>
                <dd>
                  {num(row.minDays)} / {num(row.maxDays)} days
                </dd>
                <dt>Compared with all payers</dt>
                <dd>
                  {row.daysAboveAllPayers >= 0
                    ? `${row.daysAboveAllPayers.toFixed(1)} days slower than the mean of every payer`
                    : `${(-row.daysAboveAllPayers).toFixed(1)} days faster than the mean of every payer`}
                  {answer.allPayersMeanDays !== null ? ` (${days(answer.allPayersMeanDays)})` : ""}
                </dd>
              </dl>
            );
          }}
        </Section>
        <Section title="Denial reasons" loaded={reasons} headingLevel={3}>
          {(answer) =>
            answer.items.length === 0 ? (
              <Empty>This payer denied no claim in these months.</Empty>
            ) : (
              <div className="scroll" role="region" aria-label={`Denial reasons of ${payer}`} tabIndex={0}>
                <table className="grid">
                  <caption className="visually-hidden">Denial reasons of {payer}, most frequent first</caption>
                  <thead>
                    <tr>
                      <th scope="col">CARC</th>
                      <th scope="col">Category</th>
                      <th scope="col" className="num">Denied claims</th>
                      <th scope="col" className="num">Denial rate</th>
                      <th scope="col" className="num">Denied amount</th>
                      <th scope="col" className="num">Overturn rate</th>
                      <th scope="col" className="num">Recovered</th>
                    </tr>
                  </thead>
                  <tbody>
                    {answer.items.map((r) => (
                      <tr key={`${r.carc}:${r.denialCategory}`}>
                        <th scope="row">{r.carc}</th>
                        <td>{r.denialCategory.replace(/_/g, " ")}</td>
                        <td className="num">{num(r.deniedClaims)}</td>
                        <td className="num">{pct(r.denialRate)}</td>
                        <td className="num">{money(r.deniedAmount)}</td>
                        <td className="num">
                          {pct(r.overturnRate)}
                          <div className="muted">{num(r.overturnedClaims)} overturned</div>
                        </td>
                        <td className="num">{money(r.recoveredAmount)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Section>
      </div>
    </section>
  );
}

function Alerts({ range }: { range: MonthRange }) {
  const [hideAcknowledged, setHideAcknowledged] = useState(false);
  const alerts = useLoad(
    () => query("payerChangeRadar.alerts", { ...range, includeAcknowledged: !hideAcknowledged, limit: 100 }),
    [range.fromMonth, range.toMonth, hideAcknowledged],
  );
  return (
    <Section title="Payer change alerts" loaded={alerts}>
      {(answer) => (
        <>
          <p className="muted">
            Payers behaving outside their own usual range ({rangeText(range)}): a denial reason (CARC) denying a larger
            share of claims, or payments taking longer, than over the payer's previous months. Strongest first; each
            passed a one-sided test with a Benjamini-Hochberg false discovery rate correction.
          </p>
          <div className="field checkbox">
            <input
              id="hide-acknowledged"
              type="checkbox"
              checked={hideAcknowledged}
              onChange={(e) => setHideAcknowledged(e.target.checked)}
            />
            <label htmlFor="hide-acknowledged">Hide acknowledged alerts</label>
          </div>
          {alerts.loading ? <Loading label="Loading payer change alerts" /> : null}
          {answer.items.length === 0 ? (
            <Empty>
              No payer changed significantly{hideAcknowledged ? " that nobody has acknowledged yet" : ""} in these months.
            </Empty>
          ) : (
            <ul className="alerts">
              {answer.items.map((a) => (
                <AlertItem key={a.alertKey} alert={a} onAcknowledged={alerts.reload} />
              ))}
            </ul>
          )}
          {answer.nextCursor ? <p className="muted">Only the 100 strongest alerts are shown.</p> : null}
        </>
      )}
    </Section>
  );
}

function what(a: Alert): string {
  return a.metric === "carc_denial_rate" ? `Denials with CARC ${a.carc ?? "?"}` : a.metric === "days_to_pay" ? "Days to pay" : a.metric;
}

function AlertItem({ alert: a, onAcknowledged }: { alert: Alert; onAcknowledged: () => void }) {
  const headingId = useId();
  const carc = a.metric === "carc_denial_rate";
  const fmt = (v: number) => (carc ? pct(v) : days(v));
  // How big: the month against the payer's baseline (display only: both figures are the server's).
  const size = carc
    ? `${((a.value - a.baselineMean) * 100).toFixed(1)} percentage points above the baseline` +
      (a.baselineMean > 0 ? ` (${(a.value / a.baselineMean).toFixed(1)} times)` : " (none in the baseline)")
    : `${(a.value - a.baselineMean).toFixed(1)} days slower than the baseline`;
  return (
    <li className="alert-card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        {a.payerKey}: {what(a)} up in {a.month}
      </h3>
      <dl className="facts">
        <dt>This month</dt>
        <dd>
          {fmt(a.value)}{" "}
          {carc
            ? `(${num(a.deniedClaims)} of ${num(a.sampleSize)} claims adjudicated)`
            : `(mean over ${num(a.sampleSize)} claims adjudicated)`}
        </dd>
        <dt>Baseline</dt>
        <dd>
          {fmt(a.baselineMean)}
          {!carc && a.baselineStddev !== null ? ` ± ${days(a.baselineStddev)} (standard deviation)` : ""}{" "}
          {carc
            ? `(${num(a.baselineDeniedClaims)} of ${num(a.baselineSampleSize)} claims over the previous ${a.baselineMonths} months)`
            : `(${a.baselineMonths} previous months, ${num(a.baselineSampleSize)} claims)`}
        </dd>
        <dt>Change</dt>
        <dd>{size}</dd>
        <dt>Statistics</dt>
        <dd>
          p = {a.pValue.toPrecision(2)}, q = {a.qValue.toPrecision(2)} (false discovery rate {pct(a.falseDiscoveryRate, 0)}
          {a.minDenials !== null ? `, tested with at least ${a.minDenials} denials` : ""})
        </dd>
        <dt>Status</dt>
        <dd>
          {a.acknowledged ? (
            <span className="badge ok">
              Acknowledged {when(a.acknowledgedAt ?? null)}
              {a.acknowledgedBy !== null && a.acknowledgedBy !== undefined ? ` by user #${a.acknowledgedBy}` : ""}
            </span>
          ) : (
            <span className="badge soon">New</span>
          )}
        </dd>
      </dl>
      {a.acknowledged ? null : <Acknowledge alertKey={a.alertKey} describedBy={headingId} done={onAcknowledged} />}
    </li>
  );
}

/** Acknowledge with an optional note: progress while it runs, the server's error if it fails, then the list reloads. */
function Acknowledge({ alertKey, describedBy, done }: { alertKey: string; describedBy: string; done: () => void }) {
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await mutate("payerChangeRadar.acknowledge", { alertKey, note: note.trim() || null });
      done();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="acknowledge">
      <Field label="Note (optional)">
        {(id) => <input id={id} value={note} maxLength={1000} onChange={(e) => setNote(e.target.value)} disabled={busy} />}
      </Field>
      <span className="ack-action">
        <button
          type="button"
          className="primary"
          disabled={busy}
          aria-busy={busy}
          aria-describedby={describedBy}
          onClick={() => void run()}
        >
          {busy ? "Acknowledging…" : "Acknowledge"}
        </button>
        {busy ? <progress aria-label="Acknowledging the alert" className="inline" /> : null}
      </span>
      <ErrorNote error={error} />
    </div>
  );
}

function DaysToPay({ range }: { range: MonthRange }) {
  const loaded = useLoad(() => query("payerIntelligence.timeToPay", { ...range }), [range.fromMonth, range.toMonth]);
  return (
    <Section title="Days to pay by payer" loaded={loaded}>
      {(answer) =>
        answer.payers.length === 0 ? (
          <Empty>No claim was paid in these months.</Empty>
        ) : (
          <ChartFigure
            kind="bar"
            horizontal
            title="Days to pay by payer"
            titleHidden
            caption={`Slowest first; mean over every payer ${days(answer.allPayersMeanDays)}. Filled bars: mean; outlined bars: 90th percentile.`}
            labels={answer.payers.map((p) => p.payerKey)}
            series={[
              { label: "Mean days", values: answer.payers.map((p) => p.meanDays) },
              { label: "90th percentile days", values: answer.payers.map((p) => p.p90Days) },
            ]}
            format={(v) => (v === null ? "—" : `${v.toFixed(1)} days`)}
            labelHeader="Payer"
            height={Math.max(220, answer.payers.length * 44 + 70)}
            table={<TimeToPayTable answer={answer} />}
          />
        )
      }
    </Section>
  );
}

function TimeToPayTable({ answer }: { answer: Out<"payerIntelligence.timeToPay"> }) {
  return (
    <table className="grid">
      <caption className="visually-hidden">Days from payer receipt to payment, per payer, slowest first</caption>
      <thead>
        <tr>
          <th scope="col">Payer</th>
          <th scope="col" className="num">Paid claims</th>
          <th scope="col" className="num">Mean</th>
          <th scope="col" className="num">Median</th>
          <th scope="col" className="num">90th percentile</th>
          <th scope="col" className="num">Min</th>
          <th scope="col" className="num">Max</th>
          <th scope="col" className="num">Days above all payers</th>
        </tr>
      </thead>
      <tbody>
        {answer.payers.map((p) => (
          <tr key={p.payerKey}>
            <th scope="row">{p.payerKey}</th>
            <td className="num">{num(p.paidClaims)}</td>
            <td className="num">{days(p.meanDays)}</td>
            <td className="num">{days(p.medianDays)}</td>
            <td className="num">{days(p.p90Days)}</td>
            <td className="num">{num(p.minDays)}</td>
            <td className="num">{num(p.maxDays)}</td>
            <td className="num">{p.daysAboveAllPayers.toFixed(1)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
