// Shared pieces of every screen: loading with progress, errors a person can act on, actions that show
// their progress, money and dates as the platform sends them (decimal strings, ISO dates).
import { type DependencyList, type ReactNode, useCallback, useEffect, useId, useState } from "react";
import { describe } from "./rpc";

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on reload); the latest answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error: string | null; loading: boolean }>({
    error: null,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (err: unknown) => live && setState({ error: describe(err), loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

interface Page<T> {
  items: T[];
  nextCursor?: string | null;
}

/** A paged list: the first page (through useLoad, read again when `deps` change), then the pages a
 * "load more" appends, following the server's cursor. `load(cursor)` reads one page (cursor null: the
 * first); `loadMore` is null once the server says there is no next page. */
export function usePages<T, P extends Page<T>>(
  load: (cursor: string | null) => Promise<P>,
  deps: DependencyList,
): { first: Loaded<P>; more: T[]; loadMore: (() => Promise<void>) | null } {
  const [more, setMore] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const first = useLoad(async () => {
    const page = await load(null);
    setMore([]);
    setCursor(page.nextCursor ?? null);
    return page;
  }, deps);
  const loadMore = async () => {
    if (!cursor) return;
    const page = await load(cursor);
    setMore((m) => [...m, ...page.items]);
    setCursor(page.nextCursor ?? null);
  };
  return { first, more, loadMore: cursor ? loadMore : null };
}

/** A screen: its heading, and `aria-busy` while its first answer is on the way (tests wait on it). */
export function Screen(props: { title: string; busy: boolean; children: ReactNode; actions?: ReactNode }) {
  useEffect(() => {
    document.title = `${props.title} · Denial console`;
  }, [props.title]);
  return (
    <main id="main" tabIndex={-1} aria-busy={props.busy} aria-labelledby="screen-title">
      <div className="screen-head">
        <h1 id="screen-title">{props.title}</h1>
        {props.actions}
      </div>
      {props.children}
    </main>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <p role="status" className="loading">
      <progress aria-label={label} /> {label}
    </p>
  );
}

export function ErrorNote({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {error}
    </p>
  );
}

/** Shows one loaded section: progress while it loads, its error, or its content. */
export function Section<T>(props: {
  title: string;
  loaded: Loaded<T>;
  children: (data: T) => ReactNode;
  headingLevel?: 2 | 3;
}) {
  const id = useId();
  const Heading = props.headingLevel === 3 ? "h3" : "h2";
  const { data, error, loading } = props.loaded;
  return (
    <section aria-labelledby={id} className="panel">
      <Heading id={id}>{props.title}</Heading>
      {loading && data === undefined ? <Loading label={`Loading ${props.title.toLowerCase()}`} /> : null}
      <ErrorNote error={error} />
      {data !== undefined ? props.children(data) : null}
    </section>
  );
}

/** A button that runs an action once at a time, shows that it runs, and reports its error. */
export function ActionButton(props: {
  label: string;
  running: string;
  run: () => Promise<unknown>;
  done?: (value: unknown) => void;
  disabled?: boolean;
  kind?: "primary" | "secondary" | "danger";
  type?: "button" | "submit";
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const click = async () => {
    setBusy(true);
    setError(null);
    try {
      const value = await props.run();
      props.done?.(value);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="action">
      <button
        type={props.type ?? "button"}
        className={props.kind ?? "secondary"}
        disabled={busy || props.disabled}
        aria-busy={busy}
        onClick={() => void click()}
      >
        {busy ? props.running : props.label}
      </button>
      {busy ? <progress aria-label={props.running} className="inline" /> : null}
      <ErrorNote error={error} />
    </span>
  );
}

/** A row's "Show" button in a list with a detail panel: pressed while its row is the one shown; its
 * accessible name says which row (`Show pattern X`) while the visible label stays short. */
export function SelectButton(props: { label: string; what: string; selected: boolean; onSelect: () => void; quiet?: boolean }) {
  return (
    <button
      type="button"
      className={props.selected && !props.quiet ? "primary" : "secondary"}
      aria-pressed={props.selected}
      onClick={props.onSelect}
    >
      {props.label}
      <span className="visually-hidden"> {props.what}</span>
    </button>
  );
}

export function Field(props: { label: string; children: (id: string) => ReactNode; hint?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children(id)}
      {props.hint ? <small>{props.hint}</small> : null}
    </div>
  );
}

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
/** The platform's money is a decimal string; shown as dollars (display only, never summed here). */
export function money(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return "—";
  const n = typeof value === "number" ? value : Number(value);
  return Number.isFinite(n) ? usd.format(n) : String(value);
}

const count = new Intl.NumberFormat("en-US");
/** A count with thousands separators; "—" for none. */
export function num(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : count.format(value);
}

/** A file size in words: KiB below a MiB. */
export function size(bytes: number): string {
  return bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1048576).toFixed(1)} MiB`;
}

export function pct(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? "—" : `${(value * 100).toFixed(digits)} %`;
}

export function day(value: string | null | undefined): string {
  return value ? value.slice(0, 10) : "—";
}

export function when(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short" }) : "—";
}

export function DaysLeft({ days }: { days: number }) {
  const tone = days < 0 ? "late" : days <= 14 ? "soon" : "ok";
  const text = days < 0 ? `${-days} days late` : days === 0 ? "due today" : `${days} days left`;
  return <span className={`badge ${tone}`}>{text}</span>;
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
