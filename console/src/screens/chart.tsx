// One accessible chart (Chart.js 4, tree-shaken): a <figure> with its caption, the canvas as an image whose
// label summarises the data, and the same data as a table under "Data table", so nothing is only visual.
// Series differ by colour AND by point style and dash (line) or fill (bar); colours have at least 4.5:1
// against white. No animation; the chart is destroyed when the component goes away.
//
// CSP (style-src 'self'): Chart.js 4 injects no <style> element; it sizes the canvas through
// element.style (the CSSOM), which the policy allows.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  type PointStyle,
  Tooltip,
} from "chart.js";
import { type ReactNode, useEffect, useId, useRef } from "react";
import "./chart.css";

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, BarController, BarElement, Tooltip, Legend);

/** Colours (contrast on white): blue 8.6:1, orange 5.6:1, green 7.4:1, purple 9.4:1. */
const COLOURS = ["#0a4f8a", "#9c4400", "#135e2c", "#5b2a86"] as const;
const POINTS: PointStyle[] = ["circle", "rect", "triangle", "rectRot"];
const DASHES: number[][] = [[], [8, 4], [2, 3], [12, 4, 3, 4]];
const DASH_NAMES = ["solid line, round points", "dashed line, square points", "dotted line, triangle points", "dash-dot line, diamond points"];
const INK = "#1b1f24";
const MUTED = "#4a5560";
const GRID = "#d8dee4";

export interface Series {
  label: string;
  values: (number | null)[];
  /** A note per point (e.g. "not yet mature"): shown in the table, and the point is drawn hollow. */
  notes?: (string | null)[];
}

export interface ChartProps {
  title: string;
  /** Text under the title in the caption (what the figures are, where they come from). */
  caption?: ReactNode;
  kind?: "line" | "bar";
  labels: string[];
  series: Series[];
  /** How a value is written (axis, tooltip, table, summary). */
  format: (value: number | null) => string;
  /** Header of the label column of the data table. */
  labelHeader?: string;
  /** A richer table than the series' values (e.g. a breakdown's amounts); replaces the generated one. */
  table?: ReactNode;
  /** Horizontal bars (long category names). */
  horizontal?: boolean;
  /** Start the value axis at zero (default: bars yes, lines no). */
  beginAtZero?: boolean;
  height?: number;
  /** The title is already a heading just above: keep it in the caption for screen readers only. */
  titleHidden?: boolean;
}

/** A sentence per series: range covered, first and last, lowest and highest (with their labels). */
export function summarise(props: Pick<ChartProps, "title" | "kind" | "labels" | "series" | "format">): string {
  const kind = props.kind === "bar" ? "Bar chart" : "Line chart";
  const { labels, format } = props;
  if (labels.length === 0) return `${kind}: ${props.title}. No data.`;
  const span = labels.length === 1 ? labels[0] : `${labels[0]} to ${labels[labels.length - 1]}`;
  const parts = props.series.map((s) => {
    const known = s.values.map((v, i) => ({ v, at: labels[i] })).filter((p): p is { v: number; at: string } => p.v !== null && p.at !== undefined);
    if (known.length === 0) return `${s.label}: no values.`;
    const low = known.reduce((a, b) => (b.v < a.v ? b : a));
    const high = known.reduce((a, b) => (b.v > a.v ? b : a));
    const first = known[0]!;
    const last = known[known.length - 1]!;
    if (props.kind === "bar")
      return `${s.label}: highest ${format(high.v)} (${high.at}), lowest ${format(low.v)} (${low.at}).`;
    return (
      `${s.label}: from ${format(first.v)} in ${first.at} to ${format(last.v)} in ${last.at}; ` +
      `lowest ${format(low.v)} (${low.at}), highest ${format(high.v)} (${high.at}).`
    );
  });
  return `${kind}: ${props.title}, ${span}. ${parts.join(" ")}`;
}

export function ChartFigure(props: ChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const titleId = useId();
  const kind = props.kind ?? "line";
  const summary = summarise(props);
  const data = JSON.stringify([kind, props.labels, props.series, props.horizontal, props.beginAtZero]);

  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    const format = props.format;
    const many = props.series.length > 1;
    const datasets = props.series.map((s, i) => {
      const colour = COLOURS[i % COLOURS.length]!;
      const hollow = (s.notes ?? []).map((n) => (n ? "#ffffff" : colour));
      if (kind === "bar")
        return {
          label: s.label,
          data: s.values,
          backgroundColor: i % 2 === 0 ? colour : "#ffffff",
          borderColor: colour,
          borderWidth: i % 2 === 0 ? 0 : 2,
          pointStyle: "rect" as PointStyle,
        };
      return {
        label: s.label,
        data: s.values,
        borderColor: colour,
        backgroundColor: colour,
        pointBackgroundColor: hollow.length ? hollow : colour,
        pointBorderColor: colour,
        pointStyle: POINTS[i % POINTS.length],
        pointRadius: 4,
        pointHoverRadius: 6,
        borderWidth: 2,
        borderDash: DASHES[i % DASHES.length],
        spanGaps: false,
      };
    });
    const valueAxis = {
      beginAtZero: props.beginAtZero ?? kind === "bar",
      ticks: { color: MUTED, callback: (v: number | string) => format(Number(v)) },
      grid: { color: GRID },
      border: { color: MUTED },
    };
    const labelAxis = { ticks: { color: MUTED, autoSkip: true }, grid: { display: false }, border: { color: MUTED } };
    const config = {
      type: kind,
      data: { labels: props.labels, datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        indexAxis: props.horizontal ? "y" : "x",
        interaction: { mode: "index", intersect: false },
        scales: props.horizontal ? { x: valueAxis, y: labelAxis } : { x: labelAxis, y: valueAxis },
        plugins: {
          legend: { display: many, labels: { color: INK, usePointStyle: true, boxWidth: 28 } },
          tooltip: {
            callbacks: {
              label: (item: { dataset: { label?: string }; raw: unknown; dataIndex: number; datasetIndex: number }) => {
                const note = props.series[item.datasetIndex]?.notes?.[item.dataIndex];
                const value = format(item.raw === null ? null : Number(item.raw));
                return `${item.dataset.label ?? ""}: ${value}${note ? ` (${note})` : ""}`;
              },
            },
          },
        },
      },
    } as unknown as ChartConfiguration;
    const chart = new Chart(element, config);
    return () => chart.destroy();
    // The chart is rebuilt only when its data change (format and title are presentation).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [data]);

  return (
    <figure className="chart-figure" aria-labelledby={titleId}>
      <figcaption>
        <strong id={titleId} className={props.titleHidden ? "visually-hidden" : undefined}>{props.title}</strong>
        {props.caption ? <span className="muted">{props.titleHidden ? "" : " "}{props.caption}</span> : null}
        {props.series.length > 1 && kind === "line" ? (
          <span className="visually-hidden">
            {" "}
            Series: {props.series.map((s, i) => `${s.label} (${DASH_NAMES[i % DASH_NAMES.length]})`).join("; ")}.
          </span>
        ) : null}
      </figcaption>
      <div className="chart" style={props.height ? { height: `${props.height}px` } : undefined}>
        <canvas ref={canvas} role="img" aria-label={summary}>
          {summary}
        </canvas>
      </div>
      <details className="data-table">
        <summary>Data table</summary>
        {props.table ?? <DataTable {...props} />}
      </details>
    </figure>
  );
}

function DataTable(props: ChartProps) {
  return (
    <table className="grid">
      <caption className="visually-hidden">{props.title}: the chart's values</caption>
      <thead>
        <tr>
          <th scope="col">{props.labelHeader ?? "Month"}</th>
          {props.series.map((s) => (
            <th scope="col" className="num" key={s.label}>
              {s.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.labels.map((label, row) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            {props.series.map((s) => {
              const note = s.notes?.[row];
              return (
                <td className="num" key={s.label}>
                  {props.format(s.values[row] ?? null)}
                  {note ? <div className="muted">{note}</div> : null}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
