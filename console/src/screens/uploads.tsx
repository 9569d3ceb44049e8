// Uploads: send a hospital file (a CSV export, an X12 835 remittance, or any supported file) as an import
// batch, then review the batch's rows (repair, include or exclude), confirm it (post) or discard it.
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from "react";
import { href } from "../router";
import { describe, type In, mutate, type Out, query, upload } from "../rpc";
import { ActionButton, Empty, ErrorNote, Field, money, Screen, Section, size, useLoad, usePages, when } from "../ui";
import "./uploads.css";

type Batch = Out<"ingestion.getImportBatch">;
type BatchStatus = Batch["status"];
type BatchFilters = NonNullable<In<"ingestion.listImportBatches">>;
type Row = Out<"ingestion.listImportRows">["items"][number];
type RowFilters = Pick<NonNullable<In<"ingestion.listImportRows">>, "status" | "decision">;
type Posted = Out<"ingestion.confirmImportBatch">;

const POLL_MS = 1500;
const PAGE = 50;

// --- Words for the platform's codes -------------------------------------------------------------------

const KINDS = [
  {
    value: "csv",
    proc: "ingestion.uploadCsv",
    label: "CSV export (claims, payments, denials, deposits, contract terms)",
    profiles: true,
  },
  {
    value: "era",
    proc: "ingestion.uploadEra",
    label: "X12 835 remittance (ERA)",
    profiles: false,
  },
  {
    value: "universal",
    proc: "ingestion.uploadUniversal",
    label: "Any supported file (format detected)",
    profiles: true,
  },
] as const;
type UploadKind = (typeof KINDS)[number]["value"];

const STATUS: Record<BatchStatus, { label: string; tone: string; meaning: string }> = {
  parsing: {
    label: "Parsing",
    tone: "soon",
    meaning: "The file is being parsed in the background.",
  },
  parsed: {
    label: "Ready to confirm",
    tone: "ok",
    meaning: "Every included row is valid: confirm to post it.",
  },
  needs_review: {
    label: "Needs review",
    tone: "soon",
    meaning: "Some included rows are invalid: repair or exclude them, then confirm.",
  },
  held: {
    label: "Held: does not balance",
    tone: "late",
    meaning: "The money in the file does not balance: it posts only with a reason.",
  },
  confirmed: { label: "Posted", tone: "ok", meaning: "The batch is posted." },
  discarded: {
    label: "Discarded",
    tone: "muted",
    meaning: "The batch was discarded: nothing of it is posted.",
  },
  failed: {
    label: "Failed",
    tone: "late",
    meaning: "The file could not be read: see the error report.",
  },
  duplicate_remittance: {
    label: "Already posted",
    tone: "muted",
    meaning: "Every remittance in this file was already posted by another batch: nothing to post.",
  },
};

const BATCH_KINDS: Record<string, string> = {
  era_835: "835 remittance",
  claims_837: "837 claims",
  csv_claims: "Claims export",
  csv_payments: "Payments export",
  csv_denials: "Denials export",
  csv_deposits: "Bank deposits export",
  csv_contract_terms: "Contract terms",
  tabular_unknown: "Table (not recognised)",
};

const EDITABLE: BatchStatus[] = ["parsed", "needs_review", "held"];
const CONFIRMABLE: BatchStatus[] = ["parsed", "needs_review", "held"];
const DISCARDABLE: BatchStatus[] = ["parsed", "needs_review", "held", "failed", "duplicate_remittance"];

/** "appeal_deadline" -> "Appeal deadline"; "transactionIndex" -> "Transaction index". */
function words(name: string): string {
  const spaced = name
    .replace(/^csv_/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/_/g, " ")
    .toLowerCase();
  const acronyms = spaced.replace(/\b(carc|rarc|carcs|cas|mrn|npi|id|plb|bpr|drg|cpt|pcn)\b/g, (w) => w.toUpperCase());
  return acronyms.charAt(0).toUpperCase() + acronyms.slice(1);
}


const kindLabel = (kind: string) => BATCH_KINDS[kind] ?? words(kind);

function StatusBadge({ status }: { status: BatchStatus }) {
  const s = STATUS[status];
  return <span className={`badge ${s.tone}`}>{s.label}</span>;
}

function text(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (Array.isArray(value)) return value.map(text).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const MONEY_FIELD = /(amount|charge|paid|total|responsibility|rate)$/;
/** A value of a row as shown (money fields as dollars, display only). */
function shown(name: string, value: unknown): string {
  if (typeof value === "string" && MONEY_FIELD.test(name) && /^-?\d+(\.\d+)?$/.test(value)) return money(value);
  return text(value);
}

/** A row's reason in words: the field it is about spelled out; the server's message is kept as written. */
function reason(message: string): string {
  const [head = "", ...rest] = message.split(": ");
  return rest.length && /^[a-z_/]+$/.test(head)
    ? `${head.split("/").map(words).join(" / ")}: ${rest.join(": ")}`
    : message;
}

/** The fields a repair most likely needs: those the row's reasons name (prefix or within the message). */
function namedFields(row: Row): string[] {
  const keys = Object.keys(row.data);
  const named = new Set<string>();
  for (const e of row.errors) {
    const head = e.split(":")[0] ?? "";
    if (keys.includes(head)) named.add(head);
    for (const k of keys) if (k.includes("_") && e.includes(k)) named.add(k);
  }
  return [...named];
}

// The answer of the last upload, kept in memory only, so the batch screen can say it was a duplicate.
let lastUpload: { id: number; duplicate: boolean } | null = null;

// --- #/uploads --------------------------------------------------------------------------------------------

export function UploadsScreen() {
  const [filters, setFilters] = useState<BatchFilters>({ limit: PAGE });
  const { first: batches, more, loadMore } = usePages<Batch, Out<"ingestion.listImportBatches">>(
    (cursor) => query("ingestion.listImportBatches", cursor ? { ...filters, cursor } : filters),
    [JSON.stringify(filters)],
  );
  return (
    <Screen title="Uploads" busy={batches.loading && !batches.data}>
      <UploadForm />
      <Section title="Import batches" loaded={batches}>
        {(page) => {
          const items = [...page.items, ...more];
          return (
            <>
              <BatchFilterForm onApply={setFilters} />
              {items.length === 0 ? (
                <Empty>No import batch matches these filters.</Empty>
              ) : (
                <div className="table-scroll" role="region" aria-label="Import batches" tabIndex={0}>
                  <table className="grid">
                    <caption className="visually-hidden">Import batches of this hospital, newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">Batch</th>
                        <th scope="col">File and kind</th>
                        <th scope="col">State</th>
                        <th scope="col" className="num">
                          Rows
                        </th>
                        <th scope="col" className="num">
                          Valid
                        </th>
                        <th scope="col" className="num">
                          Invalid
                        </th>
                        <th scope="col" className="num">
                          Excluded
                        </th>
                        <th scope="col" className="num">
                          Entries posted
                        </th>
                        <th scope="col">Uploaded</th>
                      </tr>
                    </thead>
                    <tbody>
                      {items.map((b) => (
                        <tr key={b.id}>
                          <td>
                            <a href={href({ screen: "upload", id: b.id })}>Batch {b.id}</a>
                          </td>
                          <td className="file-name">
                            {b.sourceFilename}
                            <div className="muted">{kindLabel(b.kind)}</div>
                          </td>
                          <td>
                            <StatusBadge status={b.status} />
                          </td>
                          <td className="num">{b.rowCount}</td>
                          <td className="num">{b.validCount}</td>
                          <td className="num">{b.invalidCount}</td>
                          <td className="num">{b.excludedCount}</td>
                          <td className="num">{b.entriesPosted}</td>
                          <td>{when(b.createdAt)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              {loadMore ? <ActionButton label="Load more batches" running="Loading batches" run={loadMore} /> : null}
            </>
          );
        }}
      </Section>
    </Screen>
  );
}

function UploadForm() {
  const headingId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [kind, setKind] = useState<UploadKind>("csv");
  const [profile, setProfile] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const profiles = useLoad(() => query("connectorProfiles.list"), []);
  const chosen = KINDS.find((k) => k.value === kind) ?? KINDS[0];

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setError("Choose a file to upload.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const fields = chosen.profiles && profile ? { profile } : {};
      const answer = await upload(chosen.proc, file, fields);
      lastUpload = { id: answer.batch.id, duplicate: answer.duplicate };
      location.hash = href({ screen: "upload", id: answer.batch.id });
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };

  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Upload a hospital file</h2>
      <form className="upload-form" onSubmit={(e) => void send(e)} aria-labelledby={headingId}>
        <Field label="File to upload" hint="The file is checked and parsed; nothing is posted until you confirm it.">
          {(id) => (
            <input
              id={id}
              type="file"
              required
              disabled={busy}
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            />
          )}
        </Field>
        <Field label="Kind of file">
          {(id) => (
            <select id={id} value={kind} disabled={busy} onChange={(e) => setKind(e.target.value as UploadKind)}>
              {KINDS.map((k) => (
                <option key={k.value} value={k.value}>
                  {k.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        {chosen.profiles ? (
          <Field label="Connector profile" hint="How the columns of a table are read; tables only.">
            {(id) => (
              <select id={id} value={profile} disabled={busy} onChange={(e) => setProfile(e.target.value)}>
                <option value="">Detect the columns automatically</option>
                {(profiles.data ?? []).map((p) => (
                  <option key={p.name} value={p.name}>
                    {p.name} ({p.entity}, {p.source === "builtin" ? "built in" : "this hospital's"})
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
        <div className="upload-send">
          <button type="submit" className="primary" disabled={busy} aria-busy={busy}>
            {busy ? "Uploading…" : "Upload file"}
          </button>
        </div>
      </form>
      {busy && file ? (
        <p role="status" className="loading">
          <progress aria-label={`Uploading ${file.name}`} /> Uploading and checking {file.name} ({size(file.size)})…
        </p>
      ) : null}
      {profiles.error ? (
        <p className="muted">Connector profiles could not be listed ({profiles.error}); columns are detected.</p>
      ) : null}
      <ErrorNote error={error} />
    </section>
  );
}

function BatchFilterForm({ onApply }: { onApply: (f: BatchFilters) => void }) {
  const [status, setStatus] = useState("");
  const [kind, setKind] = useState("");
  const apply = (event: FormEvent) => {
    event.preventDefault();
    onApply({
      limit: PAGE,
      status: (status || null) as BatchFilters["status"],
      kind: (kind || null) as BatchFilters["kind"],
    });
  };
  return (
    <form className="filters" onSubmit={apply} aria-label="Import batch filters">
      <Field label="Batch state">
        {(id) => (
          <select id={id} value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">Any state</option>
            {(Object.keys(STATUS) as BatchStatus[]).map((s) => (
              <option key={s} value={s}>
                {STATUS[s].label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Batch kind">
        {(id) => (
          <select id={id} value={kind} onChange={(e) => setKind(e.target.value)}>
            <option value="">Any kind</option>
            {Object.entries(BATCH_KINDS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" className="secondary">
        Show batches
      </button>
    </form>
  );
}

// --- #/uploads/<id> ---------------------------------------------------------------------------------------

export function UploadScreen({ id }: { id: number }) {
  const batch = useLoad(() => query("ingestion.getImportBatch", { batchId: id }), [id]);
  const [rowsVersion, setRowsVersion] = useState(0);
  const [posted, setPosted] = useState<Posted | null>(null);
  const parsing = batch.data?.status === "parsing";
  // A big file is parsed by the job queue: ask again every 1.5 s until it leaves `parsing` (each answer
  // schedules the next question; leaving the screen cancels it).
  useEffect(() => {
    if (!parsing) return;
    const timer = window.setTimeout(batch.reload, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [parsing, batch.data, batch.reload]);
  const duplicate = lastUpload?.id === id && lastUpload.duplicate;
  const title = batch.data ? `Batch ${id}: ${batch.data.sourceFilename}` : `Batch ${id}`;
  const changed = () => {
    batch.reload();
    setRowsVersion((v) => v + 1);
  };

  return (
    <Screen
      title={title}
      busy={batch.loading && !batch.data}
      actions={<a href={href({ screen: "uploads" })}>All uploads</a>}
    >
      {duplicate ? (
        <p role="status" className="note">
          This file's content was uploaded before: this is the batch it made then.
        </p>
      ) : null}
      <Section title="Batch" loaded={batch}>
        {(b) => <BatchFacts batch={b} />}
      </Section>
      {batch.data && batch.data.status !== "parsing" ? (
        <>
          <PostPanel batch={batch.data} posted={posted} onPosted={setPosted} onChanged={changed} />
          {batch.data.rowCount > 0 ? (
            <RowsSection batch={batch.data} version={rowsVersion} onChanged={batch.reload} />
          ) : null}
        </>
      ) : null}
    </Screen>
  );
}

function BatchFacts({ batch: b }: { batch: Batch }) {
  return (
    <>
      <p>
        <StatusBadge status={b.status} /> {STATUS[b.status].meaning}
        {b.redeliveryOfBatchId ? (
          <>
            {" "}
            First posted by{" "}
            <a href={href({ screen: "upload", id: b.redeliveryOfBatchId })}>batch {b.redeliveryOfBatchId}</a>.
          </>
        ) : null}
      </p>
      {b.status === "parsing" ? (
        <p role="status" className="loading">
          <progress aria-label="Parsing the file" /> Parsing {b.sourceFilename} ({size(b.sizeBytes)}); this page updates
          by itself.
        </p>
      ) : null}
      <div className="batch-facts">
        <dl className="facts">
          <dt>File</dt>
          <dd className="file-name">{b.sourceFilename}</dd>
          <dt>Kind</dt>
          <dd>
            {kindLabel(b.kind)}
            {b.sourceFormat ? <span className="muted"> ({b.sourceFormat})</span> : null}
          </dd>
          <dt>Connector profile</dt>
          <dd>{b.profileName ?? "—"}</dd>
          <dt>Size</dt>
          <dd>{size(b.sizeBytes)}</dd>
          <dt>Uploaded</dt>
          <dd>{when(b.createdAt)}</dd>
          <dt>Posted</dt>
          <dd>{b.confirmedAt ? when(b.confirmedAt) : "not yet"}</dd>
          <dt>Parser</dt>
          <dd>{b.parserVersion}</dd>
        </dl>
        <dl className="facts counts">
          <dt>Rows</dt>
          <dd>{b.rowCount}</dd>
          <dt>Valid</dt>
          <dd>{b.validCount}</dd>
          <dt>Invalid</dt>
          <dd>{b.invalidCount}</dd>
          <dt>Excluded</dt>
          <dd>{b.excludedCount}</dd>
          <dt>Entries posted</dt>
          <dd>{b.entriesPosted}</dd>
        </dl>
        {Object.keys(b.totals).length ? (
          <div>
            <h3 className="facts-head">Totals when read</h3>
            <dl className="facts counts">
              {Object.entries(b.totals).map(([k, v]) => (
                <Fact key={k} term={words(k)}>
                  {money(v)}
                </Fact>
              ))}
            </dl>
            <small>As parsed when the file was read; repairs count in the posted amounts.</small>
          </div>
        ) : null}
      </div>
      {b.errorReport ? <ErrorReport report={b.errorReport} /> : null}
      {b.imbalance ? <Imbalance imbalance={b.imbalance} batch={b} /> : null}
      <Quality quality={b.quality} />
      {b.remittances.length ? <Remittances batch={b} /> : null}
    </>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

function ErrorReport({ report }: { report: Record<string, unknown> }) {
  return (
    <div className="error-report" role="group" aria-label="Error report">
      <h3>Why the file could not be read</h3>
      <dl className="facts">
        {Object.entries(report).map(([k, v]) => (
          <Fact key={k} term={words(k)}>
            {text(v)}
          </Fact>
        ))}
      </dl>
    </div>
  );
}

interface Unbalanced {
  traceNumber?: string | null;
  claimOrdinal?: number;
  expected?: string;
  actual?: string;
  difference?: string;
}

function Imbalance({ imbalance, batch }: { imbalance: Record<string, unknown>; batch: Batch }) {
  const transactions = (imbalance.transactions as Unbalanced[] | undefined) ?? [];
  const claims = (imbalance.claims as Unbalanced[] | undefined) ?? [];
  const lines = [
    ...transactions.map(
      (t) =>
        `Remittance ${t.traceNumber ?? "without trace number"}: the payment (BPR02) is ${money(t.actual)}, the claims less the provider adjustments make ${money(t.expected)} (difference ${money(t.difference)}).`,
    ),
    ...claims.map(
      (c) =>
        `Claim ${c.claimOrdinal ?? "?"} of the file: charge less payment is ${money(c.expected)}, its adjustments ${money(c.actual)} (difference ${money(c.difference)}).`,
    ),
  ];
  return (
    <div role="group" aria-label="What does not balance">
      <h3>What does not balance</h3>
      <ul>
        {lines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      {batch.imbalanceAckReason ? (
        <p>
          Posted anyway on {when(batch.imbalanceAckAt)}, because: {batch.imbalanceAckReason}
        </p>
      ) : null}
    </div>
  );
}

interface UnknownCarc {
  carc?: string;
  groupCodes?: string[];
  adjustments?: number;
  amount?: string;
}

/** The parser's quality notes in words (warnings, unread columns, unknown codes, failed checks). */
function Quality({ quality }: { quality: Record<string, unknown> }) {
  const notes: string[] = [];
  const byField = (quality.errors_by_field as Record<string, number> | undefined) ?? {};
  for (const [field, n] of Object.entries(byField))
    notes.push(`${n} row${n === 1 ? "" : "s"} with a problem in ${words(field).toLowerCase()}.`);
  const unmapped = (quality.unmapped_columns as string[] | undefined) ?? [];
  if (unmapped.length) notes.push(`Columns not read: ${unmapped.join(", ")}.`);
  for (const key of ["envelope_warnings", "header_warnings"]) {
    for (const w of (quality[key] as unknown[] | undefined) ?? [])
      notes.push(`${words(key).replace(/s$/, "")}: ${text(w)}`);
  }
  const failed = (quality.checks_failed as Record<string, number> | undefined) ?? {};
  for (const [check, n] of Object.entries(failed))
    notes.push(`Check "${words(check).toLowerCase()}" failed ${n} time${n === 1 ? "" : "s"}.`);
  for (const c of (quality.unknown_carcs as UnknownCarc[] | undefined) ?? [])
    notes.push(
      `Unknown reason code ${c.carc ?? "?"} (${(c.groupCodes ?? []).join(", ")}) on ${c.adjustments ?? 0} adjustment${c.adjustments === 1 ? "" : "s"}, ${money(c.amount)}: not counted as a denial until classified.`,
    );
  const facts: string[] = [];
  if (typeof quality.checks_run === "number") facts.push(`${quality.checks_run} balance checks run`);
  if (typeof quality.transactions === "number") facts.push(`${quality.transactions} remittances`);
  if (typeof quality.claims === "number") facts.push(`${quality.claims} claims`);
  if (typeof quality.segments === "number") facts.push(`${quality.segments} segments`);
  if (typeof quality.header_row === "number") facts.push(`header on line ${quality.header_row}`);
  if (typeof quality.encoding === "string") facts.push(`encoding ${quality.encoding}`);
  if (!notes.length && !facts.length) return null;
  return (
    <div role="group" aria-label="Parse warnings">
      <h3>Parse warnings (when the file was read)</h3>
      {notes.length ? (
        <ul>
          {notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">No warning.</p>
      )}
      {facts.length ? <p className="muted">{facts.join(" · ")}</p> : null}
    </div>
  );
}

interface Remittance {
  traceNumber?: string | null;
  paymentDate?: string | null;
  amount?: string;
  debit?: boolean;
  payerId?: string | null;
  postedByBatchId?: number | null;
}

function Remittances({ batch }: { batch: Batch }) {
  const list = batch.remittances as Remittance[];
  return (
    <details className="remittances">
      <summary>Remittances in this file ({list.length})</summary>
      <div className="table-scroll" role="region" aria-label="Remittances in this file" tabIndex={0}>
        <table className="grid">
          <caption className="visually-hidden">The 835 remittances of batch {batch.id}</caption>
          <thead>
            <tr>
              <th scope="col">Trace number</th>
              <th scope="col">Payer id</th>
              <th scope="col">Payment date</th>
              <th scope="col" className="num">
                Amount
              </th>
              <th scope="col">Already posted by</th>
            </tr>
          </thead>
          <tbody>
            {list.map((r, i) => (
              <tr key={`${r.traceNumber ?? ""}-${i}`}>
                <td>{r.traceNumber ?? "—"}</td>
                <td>{r.payerId ?? "—"}</td>
                <td>{r.paymentDate ?? "—"}</td>
                <td className="num">
                  {money(r.amount)}
                  {r.debit ? " (debit)" : ""}
                </td>
                <td>
                  {r.postedByBatchId ? (
                    <a href={href({ screen: "upload", id: r.postedByBatchId })}>Batch {r.postedByBatchId}</a>
                  ) : (
                    "not yet"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

// --- Confirm or discard -----------------------------------------------------------------------------------

function PostPanel(props: {
  batch: Batch;
  posted: Posted | null;
  onPosted: (p: Posted) => void;
  onChanged: () => void;
}) {
  const { batch: b } = props;
  const headingId = useId();
  const [reason, setReason] = useState("");
  const [asking, setAsking] = useState<boolean | null>(null);
  const askRef = useRef<HTMLDivElement>(null);
  const discardRef = useRef<HTMLButtonElement>(null);
  // Keyboard focus follows the step: to the question when it opens, back to "Discard upload" when kept.
  useEffect(() => {
    if (asking) askRef.current?.focus();
    else if (asking === false) discardRef.current?.focus();
  }, [asking]);
  const canConfirm = CONFIRMABLE.includes(b.status);
  const canDiscard = DISCARDABLE.includes(b.status);
  const includedInvalid = b.status === "needs_review";
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Post or discard</h2>
      {props.posted ? <PostedSummary posted={props.posted} /> : null}
      {!canConfirm && !canDiscard ? (
        <p className="muted">Nothing to do: the batch is {STATUS[b.status].label.toLowerCase()}.</p>
      ) : null}
      {canConfirm ? (
        <>
          {includedInvalid ? (
            <p className="muted">
              {b.invalidCount} invalid row
              {b.invalidCount === 1 ? " is" : "s are"} still included: repair or exclude
              {b.invalidCount === 1 ? " it" : " them"} below before confirming.
            </p>
          ) : null}
          {b.status === "held" ? (
            <Field
              label="Reason to post despite the imbalance"
              hint="Required for a held batch (at least 10 characters); it is recorded on the batch."
            >
              {(id) => <textarea id={id} value={reason} onChange={(e) => setReason(e.target.value)} />}
            </Field>
          ) : null}
        </>
      ) : null}
      <div className="post-actions">
        {canConfirm ? (
          <ActionButton
            key={b.status /* a refusal that no longer holds goes when the state changes */}
            label="Confirm import"
            running="Posting the batch"
            kind="primary"
            run={() =>
              mutate("ingestion.confirmImportBatch", {
                batchId: b.id,
                acknowledgeImbalance: b.status === "held" ? { reason: reason.trim() } : null,
              })
            }
            done={(value) => {
              props.onPosted(value as Posted);
              props.onChanged();
            }}
          />
        ) : null}
        {canDiscard && !asking ? (
          <button ref={discardRef} type="button" className="danger" onClick={() => setAsking(true)}>
            Discard upload
          </button>
        ) : null}
      </div>
      {canDiscard && asking ? (
        <div ref={askRef} tabIndex={-1} className="confirm-step" role="group" aria-label="Discard this upload?">
          <p>
            Discard batch {b.id} ({b.sourceFilename})? None of its rows will be posted, and a discarded batch cannot be
            brought back.
          </p>
          <ActionButton
            label="Yes, discard"
            running="Discarding"
            kind="danger"
            run={() => mutate("ingestion.discardImportBatch", { batchId: b.id })}
            done={() => {
              setAsking(null);
              props.onChanged();
            }}
          />
          <button type="button" className="secondary" onClick={() => setAsking(false)}>
            Keep it
          </button>
        </div>
      ) : null}
    </section>
  );
}

function PostedSummary({ posted }: { posted: Posted }) {
  const totals = Object.entries(posted.postedTotals);
  const status = posted.batch.status;
  return (
    <div role="status" className="note posted">
      {status === "duplicate_remittance" ? (
        <p>Nothing was posted: every remittance in this file was already posted by another batch.</p>
      ) : (
        <p>
          Posted {posted.entriesPosted} financial entr
          {posted.entriesPosted === 1 ? "y" : "ies"}.
        </p>
      )}
      {totals.length ? (
        <table className="grid compact">
          <caption>Posted amounts by entry type</caption>
          <thead>
            <tr>
              <th scope="col">Entry type</th>
              <th scope="col" className="num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {totals.map(([type, amount]) => (
              <tr key={type}>
                <td>{words(type)}</td>
                <td className="num">{money(amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

// --- Rows ---------------------------------------------------------------------------------------------------

const ROW_STATUS: Record<Row["status"], { label: string; tone: string }> = {
  valid: { label: "Valid", tone: "ok" },
  invalid: { label: "Invalid", tone: "late" },
  repaired: { label: "Repaired", tone: "ok" },
};

function RowsSection(props: { batch: Batch; version: number; onChanged: () => void }) {
  const { batch: b } = props;
  // Review starts with what needs a person: the invalid rows, when there are any.
  const [filters, setFilters] = useState<RowFilters>(() => ({
    status: b.invalidCount > 0 ? "invalid" : null,
  }));
  const [items, setItems] = useState<Row[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const rows = useLoad(async () => {
    const page = await query("ingestion.listImportRows", {
      batchId: b.id,
      limit: PAGE,
      ...filters,
    });
    setItems(page.items);
    setCursor(page.nextCursor ?? null);
    return page;
  }, [b.id, JSON.stringify(filters), props.version, reload]);
  const loadMore = async () => {
    if (!cursor) return;
    const page = await query("ingestion.listImportRows", {
      batchId: b.id,
      limit: PAGE,
      ...filters,
      cursor,
    });
    setItems((m) => [...m, ...page.items]);
    setCursor(page.nextCursor ?? null);
  };
  const editable = EDITABLE.includes(b.status);
  const replaced = (row: Row, decided: boolean) => {
    // Including or excluding a claim does the same to its lines and adjustments: read the rows again.
    if (decided && (row.entity === "remittance_claim" || row.entity === "claim")) setReload((r) => r + 1);
    else setItems((list) => list.map((r) => (r.id === row.id ? row : r)));
    props.onChanged();
  };
  return (
    <Section title="Rows" loaded={rows}>
      {() => (
        <>
          <RowFilterForm value={filters} onApply={setFilters} />
          {items.length === 0 ? (
            <Empty>No row matches these filters.</Empty>
          ) : (
            <div className="table-scroll" role="region" aria-label="Rows of the batch" tabIndex={0}>
              <table className="grid rows">
                <caption className="visually-hidden">
                  Rows of batch {b.id}, last row first: status, problems, values
                  {editable ? " and actions" : ""}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    <th scope="col">Status</th>
                    <th scope="col">Problems</th>
                    <th scope="col">Values</th>
                    {editable ? <th scope="col">Actions</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {items.map((row) => (
                    <RowLine key={row.id} row={row} editable={editable} onChanged={replaced} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {cursor ? <ActionButton label="Load more rows" running="Loading rows" run={loadMore} /> : null}
        </>
      )}
    </Section>
  );
}

function RowFilterForm({ value, onApply }: { value: RowFilters; onApply: (f: RowFilters) => void }) {
  const [status, setStatus] = useState(value.status ?? "");
  const [decision, setDecision] = useState(value.decision ?? "");
  const apply = (event: FormEvent) => {
    event.preventDefault();
    onApply({
      status: (status || null) as RowFilters["status"],
      decision: (decision || null) as RowFilters["decision"],
    });
  };
  return (
    <form className="filters" onSubmit={apply} aria-label="Row filters">
      <Field label="Row status">
        {(id) => (
          <select id={id} value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">Any status</option>
            <option value="invalid">Invalid</option>
            <option value="repaired">Repaired</option>
            <option value="valid">Valid</option>
          </select>
        )}
      </Field>
      <Field label="Decision">
        {(id) => (
          <select id={id} value={decision} onChange={(e) => setDecision(e.target.value)}>
            <option value="">Included or excluded</option>
            <option value="include">Included</option>
            <option value="exclude">Excluded</option>
          </select>
        )}
      </Field>
      <button type="submit" className="secondary">
        Show rows
      </button>
    </form>
  );
}

function RowLine({
  row,
  editable,
  onChanged,
}: {
  row: Row;
  editable: boolean;
  onChanged: (r: Row, decided: boolean) => void;
}) {
  const [repairing, setRepairing] = useState(false);
  const formId = useId();
  const values = Object.entries(row.data).filter(
    ([, v]) => v !== null && v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0),
  );
  const st = ROW_STATUS[row.status];
  const canRepair = editable && row.status !== "valid";
  return (
    <>
      <tr className={row.decision === "exclude" ? "excluded" : undefined}>
        <td>
          <strong>Row {row.rowNumber}</strong>
          <div className="muted">{words(row.entity)}</div>
          {row.parentRowNumber ? <div className="muted">part of row {row.parentRowNumber}</div> : null}
        </td>
        <td>
          <span className={`badge ${st.tone}`}>{st.label}</span>
          <div className="muted">{row.decision === "include" ? "included" : "excluded"}</div>
        </td>
        <td>
          {row.errors.length ? (
            <ul className="reasons">
              {row.errors.map((e) => (
                <li key={e}>{reason(e)}</li>
              ))}
            </ul>
          ) : (
            <span className="muted">none</span>
          )}
        </td>
        <td>
          <dl className="values">
            {values.map(([k, v]) => (
              <div key={k}>
                <dt>{words(k)}</dt>
                <dd>{shown(k, v)}</dd>
              </div>
            ))}
          </dl>
        </td>
        {editable ? (
          <td className="row-actions">
            {canRepair ? (
              <button
                type="button"
                className="secondary"
                aria-expanded={repairing}
                aria-controls={repairing ? formId : undefined}
                onClick={() => setRepairing((r) => !r)}
              >
                {`Repair row ${row.rowNumber}`}
              </button>
            ) : null}
            <ActionButton
              label={row.decision === "include" ? `Exclude row ${row.rowNumber}` : `Include row ${row.rowNumber}`}
              running="Saving"
              run={() =>
                mutate("ingestion.setImportRowDecision", {
                  rowId: row.id,
                  decision: row.decision === "include" ? "exclude" : "include",
                })
              }
              done={(value) => onChanged(value as Row, true)}
            />
          </td>
        ) : null}
      </tr>
      {repairing && canRepair ? (
        <tr className="repair-line">
          <td colSpan={5}>
            <RepairForm
              id={formId}
              row={row}
              onDone={(r) => {
                setRepairing(r.status === "invalid");
                onChanged(r, false);
              }}
              onCancel={() => setRepairing(false)}
            />
          </td>
        </tr>
      ) : null}
    </>
  );
}

function RepairForm(props: { id: string; row: Row; onDone: (r: Row) => void; onCancel: () => void }) {
  const { row } = props;
  const keys = Object.keys(row.data);
  const initial = namedFields(row);
  const [shownFields, setShownFields] = useState<string[]>(initial.length ? initial : keys.slice(0, 1));
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      keys.map((k) => [k, row.data[k] === null || row.data[k] === undefined ? "" : text(row.data[k])]),
    ),
  );
  const [extra, setExtra] = useState("");
  const others = keys.filter((k) => !shownFields.includes(k));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [left, setLeft] = useState<string[] | null>(null);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const fields = Object.fromEntries(shownFields.map((k) => [k, (values[k] ?? "").trim() || null]));
      const answer = await mutate("ingestion.repairImportRow", {
        rowId: row.id,
        fields,
      });
      setLeft(answer.status === "invalid" ? answer.errors : null);
      props.onDone(answer);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form id={props.id} className="repair" aria-label={`Repair row ${row.rowNumber}`} onSubmit={(e) => void save(e)}>
      <p className="muted">Change the values the problems name; the row is checked again with the upload's rules.</p>
      <div className="repair-fields">
        {shownFields.map((k) => (
          <Field key={k} label={words(k)} hint={`Field name: ${k}`}>
            {(id) => (
              <input
                id={id}
                value={values[k] ?? ""}
                onChange={(e) => setValues((v) => ({ ...v, [k]: e.target.value }))}
              />
            )}
          </Field>
        ))}
      </div>
      {others.length ? (
        <div className="repair-add">
          <Field label="Another field to change">
            {(id) => (
              <select id={id} value={extra} onChange={(e) => setExtra(e.target.value)}>
                <option value="">Choose a field</option>
                {others.map((k) => (
                  <option key={k} value={k}>
                    {words(k)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button
            type="button"
            className="secondary"
            disabled={!extra}
            onClick={() => {
              setShownFields((f) => [...f, extra]);
              setExtra("");
            }}
          >
            Add field
          </button>
        </div>
      ) : null}
      <div className="post-actions">
        <button type="submit" className="primary" disabled={busy || !shownFields.length} aria-busy={busy}>
          {busy ? "Saving the repair…" : "Save repair"}
        </button>
        {busy ? <progress aria-label="Saving the repair" className="inline" /> : null}
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      {left ? (
        <div role="status">
          <p>Still invalid:</p>
          <ul className="reasons">
            {left.map((e) => (
              <li key={e}>{reason(e)}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <ErrorNote error={error} />
    </form>
  );
}
