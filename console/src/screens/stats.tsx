// Estimates as the platform answers them: always with their interval, sample sizes and method when the
// API gives them (never a bare point estimate). Display only: nothing here recomputes a figure.
import type { ReactNode } from "react";

/** A fraction as a percent ("12.3 %"); null as a dash. */
export function rate(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? "—" : `${(value * 100).toFixed(digits)} %`;
}

/** A difference of two fractions in percentage points, signed ("+1.2 pts", "−3.4 pts"). */
export function points(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined) return "—";
  const v = value * 100;
  const text = Math.abs(v).toFixed(digits);
  return `${v > 0 ? "+" : v < 0 ? "−" : "±"}${text} pts`;
}

/** A standard error of a difference of fractions, in percentage points (unsigned). */
export function sePoints(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? "—" : `${(value * 100).toFixed(digits)} pts`;
}

export function ratio(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? "—" : `${value.toFixed(digits)}×`;
}

/** p- and q-values: small ones in scientific notation. */
export function pValue(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return value < 0.001 ? value.toExponential(1) : value.toFixed(3);
}

/** A point estimate with its 95 % interval, both formatted alike; the interval is never left out. */
export function Estimate(props: {
  value: number | null | undefined;
  low: number | null | undefined;
  high: number | null | undefined;
  format: (v: number | null | undefined) => string;
  label?: string;
  note?: ReactNode;
}) {
  const { value, low, high, format } = props;
  const hasInterval = low !== null && low !== undefined && high !== null && high !== undefined;
  return (
    <span className="estimate">
      <strong>{format(value)}</strong>{" "}
      <span className="interval">
        {hasInterval ? `(${props.label ?? "95 % CI"} ${format(low)} to ${format(high)})` : "(no interval)"}
      </span>
      {props.note ? <span className="muted"> {props.note}</span> : null}
    </span>
  );
}
