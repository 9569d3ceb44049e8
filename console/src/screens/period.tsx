// Shared by the KPI and payer screens: the month range a person picks (fromMonth / toMonth, "YYYY-MM",
// inclusive) and the note saying which snapshot the figures come from and how old it is.
import { type FormEvent, useState } from "react";
import { Field, when } from "../ui";

export interface MonthRange {
  fromMonth: string | null;
  toMonth: string | null;
}
export const ALL_MONTHS: MonthRange = { fromMonth: null, toMonth: null };

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The range form: two month inputs, Apply and All months. The server checks the range (order, span). */
export function MonthRangeForm(props: { value: MonthRange; onChange: (range: MonthRange) => void; label: string }) {
  const [from, setFrom] = useState(props.value.fromMonth ?? "");
  const [to, setTo] = useState(props.value.toMonth ?? "");
  const [problem, setProblem] = useState<string | null>(null);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const f = from.trim();
    const t = to.trim();
    if ((f && !MONTH.test(f)) || (t && !MONTH.test(t))) {
      setProblem("Write months as YYYY-MM (for example 2026-03).");
      return;
    }
    if (f && t && f > t) {
      setProblem("The first month must not be after the last month.");
      return;
    }
    setProblem(null);
    props.onChange({ fromMonth: f || null, toMonth: t || null });
  };
  const all = () => {
    setFrom("");
    setTo("");
    setProblem(null);
    props.onChange(ALL_MONTHS);
  };
  return (
    <form className="filters" onSubmit={apply} aria-label={props.label}>
      <Field label="From month" hint="YYYY-MM, first month included">
        {(id) => (
          <input id={id} type="month" placeholder="YYYY-MM" value={from} onChange={(e) => setFrom(e.target.value)} />
        )}
      </Field>
      <Field label="To month" hint="YYYY-MM, last month included">
        {(id) => <input id={id} type="month" placeholder="YYYY-MM" value={to} onChange={(e) => setTo(e.target.value)} />}
      </Field>
      <button type="submit" className="primary">
        Apply months
      </button>
      <button type="button" className="secondary" onClick={all}>
        All months
      </button>
      {problem ? (
        <p role="alert" className="error">
          {problem}
        </p>
      ) : null}
    </form>
  );
}

/** "4 minutes", "3 hours", "2 days". */
export function age(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} seconds`;
  if (s < 90 * 60) return `${Math.round(s / 60)} minutes`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} hours`;
  return `${Math.round(s / 86400)} days`;
}

export interface Snapshot {
  builtAt: string;
  ageSeconds: number;
  dataBuiltAt?: string | null;
  dataAgeSeconds?: number | null;
  quarantined?: boolean;
}

/** Which snapshot the figures come from, its age, the data horizon, and a quarantine warning. */
export function SnapshotNote({ snapshot, dataAsOf }: { snapshot: Snapshot; dataAsOf?: string | null }) {
  return (
    <div className="snapshot-note">
      <p className="muted">
        Figures from the snapshot built {when(snapshot.builtAt)} ({age(snapshot.ageSeconds)} ago)
        {dataAsOf !== undefined ? <>; data as of {dataAsOf ?? "not available"} (latest remittance payment)</> : null}.
      </p>
      {snapshot.quarantined ? (
        <p className="error" role="status">
          New data for this hospital were held back by a failing data check: these figures are those built{" "}
          {when(snapshot.dataBuiltAt ?? null)}
          {snapshot.dataAgeSeconds != null ? ` (${age(snapshot.dataAgeSeconds)} ago)` : ""}.
        </p>
      ) : null}
    </div>
  );
}

/** A month range in words. */
export function rangeText(range: MonthRange): string {
  if (!range.fromMonth && !range.toMonth) return "all months";
  if (range.fromMonth && range.toMonth) return range.fromMonth === range.toMonth ? range.fromMonth : `${range.fromMonth} to ${range.toMonth}`;
  return range.fromMonth ? `from ${range.fromMonth}` : `up to ${range.toMonth}`;
}
