// A case: the claim, its remittance history per payer, deadlines, evidence and its completeness, notes,
// payer calls, the appeal packet (preview as PDF), its approval by a second person, and the outcome.
// Every figure is the server's; this screen only lays them out and sends the specialist's actions.
import { type FormEvent, useEffect, useMemo, useState } from "react";
import type { Me } from "../app";
import { describe, type In, mutate, type Out, query, upload } from "../rpc";
import { ActionButton, DaysLeft, day, Empty, ErrorNote, Field, Loading, money, pct, Screen, Section, size, useLoad, when } from "../ui";
import "./case.css";

type CaseView = Out<"cases.get">;
type Entry = Out<"ingestion.listFinancialEntries">["items"][number];
type DocType = NonNullable<In<"evidenceControl.list">["docType"]>;
type Packet = Out<"appealAssembly.list">["items"][number];
type Action = Out<"approvedActions.list">["items"][number];

export function CaseScreen({ id, me }: { id: number; me: Me }) {
  const view = useLoad(() => query("cases.get", { id }), [id]);
  const [members, setMembers] = useState<Map<number, string>>(new Map());
  useEffect(() => {
    // Names of the people on the case's events and approvals; without the permission to list members the
    // screen shows user numbers instead.
    query("organizations.listMembers").then(
      (list) => setMembers(new Map(list.map((m) => [m.userId, m.displayName || m.email]))),
      () => undefined,
    );
  }, [me.organizationId]);
  const who = (userId: number | null | undefined) =>
    userId === null || userId === undefined ? "the platform" : userId === me.userId ? "you" : (members.get(userId) ?? `user ${userId}`);
  const c = view.data?.case;
  return (
    <Screen title={`Case ${id}`} busy={view.loading && !view.data}>
      {view.loading && !view.data ? <Loading label="Loading the case" /> : null}
      <ErrorNote error={view.error} />
      {view.data && c ? (
        <>
          <CaseSummary view={view.data} />
          <div className="columns">
            <ClaimPanel claimKey={c.claimKey} />
            <DeadlinePanel caseId={id} />
          </div>
          <RemittancePanel claimKey={c.claimKey} />
          <EvidencePanel caseId={id} />
          <AppealPanel caseId={id} me={me} who={who} onChange={view.reload} caseState={c.state} />
          <div className="columns">
            <NotesPanel view={view.data} who={who} onAdded={view.reload} />
            <CallsPanel caseId={id} claimKey={c.claimKey} payer={c.payer} />
          </div>
          <OutcomePanel caseId={id} caseState={c.state} atStake={c.amountAtStake} onRecorded={view.reload} />
          <HistoryPanel view={view.data} who={who} />
        </>
      ) : null}
    </Screen>
  );
}

function CaseSummary({ view }: { view: CaseView }) {
  const c = view.case;
  return (
    <section className="panel summary" aria-label="Case summary">
      <dl className="facts">
        <dt>State</dt>
        <dd>
          <span className="badge state">{c.state.replace("_", " ")}</span>
          {c.onHold ? ` · on hold: ${c.holdReason ?? ""}` : ""}
          {c.escalated ? " · escalated" : ""}
        </dd>
        <dt>Payer</dt>
        <dd>
          {c.payer}
          {c.payerClass ? ` (${c.payerClass})` : ""}
        </dd>
        <dt>Claim</dt>
        <dd>
          {c.claimKey}
          {c.payerClaimNumber ? ` · payer claim ${c.payerClaimNumber}` : ""}
        </dd>
        <dt>Denial</dt>
        <dd>
          {c.denialCategory ?? "uncategorised"}
          {c.groupCode || c.carc ? ` · ${c.groupCode ?? ""}-${c.carc ?? ""}` : ""}
          {c.rarcs.length ? ` · RARC ${c.rarcs.join(", ")}` : ""}
          {c.hardOrSoft ? ` · ${c.hardOrSoft}` : ""}
        </dd>
        <dt>At stake</dt>
        <dd>
          {money(c.amountAtStake)} of {money(c.billedAmount)} billed; paid before {money(c.paidBefore)}
        </dd>
        <dt>Recovered</dt>
        <dd>
          {money(c.recoveredAmount)}
          {Number(c.writtenOffAmount) ? ` · written off ${money(c.writtenOffAmount)}` : ""}
        </dd>
        <dt>Service / remittance</dt>
        <dd>
          {day(c.serviceDate)} / {day(c.remittanceDate)}
        </dd>
      </dl>
    </section>
  );
}

function ClaimPanel({ claimKey }: { claimKey: string }) {
  const claim = useLoad(async () => {
    const found = await query("claims.list", { claimKey, limit: 1 });
    const first = found.items[0];
    return first ? await query("claims.get", { id: first.id }) : null;
  }, [claimKey]);
  return (
    <Section title="Claim" loaded={claim}>
      {(c) =>
        c === null ? (
          <Empty>No claim record for {claimKey}: the case was opened from a remittance alone.</Empty>
        ) : (
          <>
            <dl className="facts">
              <dt>Statement</dt>
              <dd>
                {day(c.statementFrom)} – {day(c.statementTo)}
              </dd>
              <dt>Total charge</dt>
              <dd>{money(c.totalCharge)}</dd>
              <dt>Bill type / POS</dt>
              <dd>
                {c.billType ?? "—"} / {c.placeOfService ?? "—"}
              </dd>
              <dt>Diagnoses</dt>
              <dd>{c.diagnosisCodes.join(", ") || "—"}</dd>
              <dt>Claim state</dt>
              <dd>{c.state.replaceAll("_", " ")}</dd>
            </dl>
            <table className="grid">
              <caption>Service lines</caption>
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Code</th>
                  <th scope="col">Revenue code</th>
                  <th scope="col">Units</th>
                  <th scope="col" className="num">
                    Charge
                  </th>
                </tr>
              </thead>
              <tbody>
                {c.lines.map((l) => (
                  <tr key={l.lineNumber}>
                    <td>{l.lineNumber}</td>
                    <td>
                      {l.procedureCode ?? "—"}
                      {l.modifiers.length ? `-${l.modifiers.join("-")}` : ""}
                    </td>
                    <td>{l.revenueCode ?? "—"}</td>
                    <td>{l.units ?? "—"}</td>
                    <td className="num">{money(l.charge)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )
      }
    </Section>
  );
}

function DeadlinePanel({ caseId }: { caseId: number }) {
  const deadlines = useLoad(() => query("deadlines.forCase", { caseId }), [caseId]);
  return (
    <Section title="Deadlines" loaded={deadlines}>
      {(d) =>
        d.items.length === 0 ? (
          <Empty>No deadline applies in the case's state ({d.state.replace("_", " ")}).</Empty>
        ) : (
          <table className="grid">
            <caption className="visually-hidden">Deadlines of the case, as of {d.asOf}</caption>
            <thead>
              <tr>
                <th scope="col">Deadline</th>
                <th scope="col">Due</th>
                <th scope="col">Days left</th>
                <th scope="col">Rule</th>
              </tr>
            </thead>
            <tbody>
              {d.items.map((item) => (
                <tr key={item.id}>
                  <td>
                    {item.kind.replaceAll("_", " ")} ({item.level.replaceAll("_", " ")})
                  </td>
                  <td>
                    {day(item.dueOn)}
                    {item.overriddenDueOn ? <div className="muted">overridden: {item.overrideReason}</div> : null}
                  </td>
                  <td>
                    <DaysLeft days={item.daysLeft} />
                  </td>
                  <td>
                    {item.limitDays} {item.businessDays ? "business" : "calendar"} days from {item.basis.replaceAll("_", " ")}{" "}
                    {day(item.basisDate)}
                    <div className="muted ref">
                      {item.ruleReference}
                      {item.assumed ? " (assumed: the payer's rule is not on file)" : ""}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </Section>
  );
}

function RemittancePanel({ claimKey }: { claimKey: string }) {
  const entries = useLoad(() => query("ingestion.listFinancialEntries", { claimKey, limit: 200 }), [claimKey]);
  return (
    <Section title="Remittance history" loaded={entries}>
      {(page) => {
        if (page.items.length === 0) return <Empty>No remittance entry for this claim.</Empty>;
        const byPayer = new Map<string, Entry[]>();
        for (const e of page.items) {
          const key = e.payer ?? "Unknown payer";
          byPayer.set(key, [...(byPayer.get(key) ?? []), e]);
        }
        return (
          <>
            {[...byPayer.entries()].map(([payer, rows]) => (
              <table className="grid" key={payer}>
                <caption>{payer}</caption>
                <thead>
                  <tr>
                    <th scope="col">Paid on</th>
                    <th scope="col">Entry</th>
                    <th scope="col">Adjustment</th>
                    <th scope="col" className="num">
                      Amount
                    </th>
                    <th scope="col">Reference</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((e) => (
                    <tr key={e.id}>
                      <td>{day(e.paymentDate)}</td>
                      <td>
                        {e.entryType.replaceAll("_", " ")}
                        {e.reversesEntryId ? <div className="muted">reverses entry {e.reversesEntryId}</div> : null}
                      </td>
                      <td>
                        {e.groupCode || e.carc ? `${e.groupCode ?? ""}-${e.carc ?? ""}` : "—"}
                        {e.denialCategory ? <div className="muted">{e.denialCategory}</div> : null}
                      </td>
                      <td className="num">{money(e.amount)}</td>
                      <td>{e.payerClaimNumber ?? e.reference ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
            {page.nextCursor ? <p className="muted">The 200 most recent entries are shown.</p> : null}
          </>
        );
      }}
    </Section>
  );
}

// Every kind the contract allows, in the order shown; `satisfies` makes the type check fail when the
// contract adds or drops a kind (the list cannot drift from the server's vocabulary).
const DOC_TYPE_ORDER = {
  clinical_notes: 0,
  medical_records: 1,
  physician_letter: 2,
  payer_policy: 3,
  authorization_proof: 4,
  proof_of_submission: 5,
  corrected_codes: 6,
  coding_documentation: 7,
  eligibility_verification: 8,
  insurance_card: 9,
  registration_correction: 10,
  itemized_bill: 11,
  remittance_advice: 12,
  prior_payer_eob: 13,
  credentialing_proof: 14,
  contract_terms: 15,
  correspondence: 16,
  other: 17,
} satisfies Record<DocType, number>;
const DOC_TYPES = Object.keys(DOC_TYPE_ORDER) as DocType[];
const words = (s: string) => s.replaceAll("_", " ");

function EvidencePanel({ caseId }: { caseId: number }) {
  const score = useLoad(() => query("evidenceQuality.score", { caseId }), [caseId]);
  const docs = useLoad(() => query("evidenceControl.list", { caseId, limit: 100 }), [caseId]);
  const refresh = () => {
    score.reload();
    docs.reload();
  };
  return (
    <section className="panel" aria-labelledby="evidence-title">
      <h2 id="evidence-title">Evidence</h2>
      {score.loading && !score.data ? <Loading label="Checking the evidence" /> : null}
      <ErrorNote error={score.error} />
      {score.data ? (
        <div className="completeness">
          <label htmlFor="completeness">Completeness for {score.data.denialCategory ?? "this denial"}</label>{" "}
          <meter id="completeness" min={0} max={1} value={score.data.completeness}>
            {pct(score.data.completeness, 0)}
          </meter>{" "}
          <strong>{pct(score.data.completeness, 0)}</strong>
          <ul className="checklist">
            {score.data.required.map((t) => (
              <li key={t}>
                {score.data?.present.includes(t) ? "✔ present" : "✘ missing"}: {words(t)}
              </li>
            ))}
            {score.data.recommended.map((t) => (
              <li key={`r-${t}`}>
                {score.data?.present.includes(t) ? "✔ present" : "○ recommended"}: {words(t)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {docs.data ? (
        docs.data.items.length === 0 ? (
          <Empty>No document attached yet.</Empty>
        ) : (
          <table className="grid">
            <caption>Documents</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Kind</th>
                <th scope="col">File</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {docs.data.items.map((d) => (
                <tr key={d.id}>
                  <td>{d.title}</td>
                  <td>{words(d.docType)}</td>
                  <td>
                    {d.mediaType} · {size(d.sizeBytes)}{d.pageCount ? ` · ${d.pageCount} pages` : ""}
                  </td>
                  <td>{when(d.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
      <ErrorNote error={docs.error} />
      <AttachForm caseId={caseId} missing={score.data?.missing ?? []} onAttached={refresh} />
    </section>
  );
}

function AttachForm({ caseId, missing, onAttached }: { caseId: number; missing: string[]; onAttached: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState("");
  const [docType, setDocType] = useState<string>("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => {
    if (!docType && missing[0]) setDocType(missing[0]);
  }, [missing, docType]);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!file) return;
    const form = event.currentTarget;
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const fields: Record<string, string> = { caseId: String(caseId), title: title || file.name, filename: file.name };
      if (docType) fields.docType = docType;
      const answer = await upload("evidenceControl.attach", file, fields);
      setDone(
        answer.duplicate
          ? `Already attached: ${answer.document.title}.`
          : `Attached “${answer.document.title}” as ${words(answer.document.docType)}.`,
      );
      form.reset();
      setFile(null);
      setTitle("");
      setDocType("");
      onAttached();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="inline-form" onSubmit={(e) => void submit(e)} aria-label="Add evidence">
      <h3>Add evidence</h3>
      <Field label="Document file" hint="PDF, image, DOCX or text; scanned for its type and redacted">
        {(fid) => <input id={fid} type="file" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />}
      </Field>
      <Field label="Document title">{(fid) => <input id={fid} value={title} onChange={(e) => setTitle(e.target.value)} />}</Field>
      <Field label="Document kind">
        {(fid) => (
          <select id={fid} value={docType} onChange={(e) => setDocType(e.target.value)}>
            <option value="">Let the platform classify it</option>
            {DOC_TYPES.map((t) => (
              <option key={t} value={t}>
                {words(t)}
                {missing.includes(t) ? " (missing)" : ""}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" className="primary" disabled={busy || !file} aria-busy={busy}>
        {busy ? "Attaching…" : "Attach document"}
      </button>
      {busy ? <progress aria-label="Attaching the document" className="inline" /> : null}
      <ErrorNote error={error} />
      {done ? <p role="status">{done}</p> : null}
    </form>
  );
}

// The packet the case is on: the newest not replaced by a later one (superseded) nor withdrawn.
const PAST_PACKET = new Set(["superseded", "withdrawn"]);

function AppealPanel(props: {
  caseId: number;
  me: Me;
  who: (id: number | null | undefined) => string;
  caseState: string;
  onChange: () => void;
}) {
  const { caseId, me, who } = props;
  // Reloaded when the case moves (an outcome recorded below decides the packet too).
  const packets = useLoad(() => query("appealAssembly.list", { caseId, limit: 20 }), [caseId, props.caseState]);
  const actions = useLoad(() => query("approvedActions.list", { caseId, limit: 20 }), [caseId, props.caseState]);
  const refresh = () => {
    packets.reload();
    actions.reload();
    props.onChange();
  };
  const current = packets.data?.items.find((p) => !PAST_PACKET.has(p.state)) ?? null;
  const forCurrent = (actions.data?.items ?? []).filter(
    (a) => current !== null && a.kind === "submit_appeal_packet" && a.payloadRef === String(current.id),
  );
  return (
    <section className="panel" aria-labelledby="appeal-title">
      <h2 id="appeal-title">Appeal</h2>
      {packets.loading && !packets.data ? <Loading label="Loading the appeal packets" /> : null}
      <ErrorNote error={packets.error ?? actions.error} />
      {packets.data ? (
        current ? (
          <PacketView packet={current} actions={forCurrent} me={me} who={who} onChange={refresh} />
        ) : (
          <Empty>No appeal packet yet.</Empty>
        )
      ) : null}
      {current === null || current.state === "assembled" ? (
        <LetterEditor caseId={caseId} hasPacket={current !== null} onAssembled={refresh} />
      ) : null}
    </section>
  );
}

function LetterEditor({ caseId, hasPacket, onAssembled }: { caseId: number; hasPacket: boolean; onAssembled: () => void }) {
  const [text, setText] = useState<string | null>(null);
  const assemble = async () => {
    if (text === null) return mutate("appealAssembly.create", { caseId });
    const draft = await mutate("drafts.create", { caseId, kind: "appeal_letter", content: text });
    return mutate("appealAssembly.create", { caseId, letterDraftId: draft.id });
  };
  return (
    <div className="letter">
      <h3>{hasPacket ? "Re-assemble the packet" : "Draft the appeal"}</h3>
      <p className="muted">
        The packet holds the letter (the payer's template filled with the claim's facts, or your edited draft) and
        every active document of the case. Re-assembling replaces the open packet and voids its approval.
      </p>
      {text === null ? (
        <button type="button" className="secondary" onClick={() => setText("")}>
          Write my own letter
        </button>
      ) : (
        <Field label="Appeal letter" hint="Saved as a versioned draft when you assemble">
          {(id) => <textarea id={id} value={text} onChange={(e) => setText(e.target.value)} rows={8} />}
        </Field>
      )}
      <ActionButton
        label={hasPacket ? "Re-assemble appeal packet" : "Assemble appeal packet"}
        running="Assembling the packet…"
        kind="primary"
        disabled={text !== null && text.trim().length === 0}
        run={assemble}
        done={() => {
          setText(null);
          onAssembled();
        }}
      />
    </div>
  );
}

function PacketView(props: {
  packet: Packet;
  actions: Action[];
  me: Me;
  who: (id: number | null | undefined) => string;
  onChange: () => void;
}) {
  const { packet, actions, me, who } = props;
  const detail = useLoad(() => query("appealAssembly.get", { id: packet.id }), [packet.id, packet.state]);
  const live = actions.find((a) => ["pending_approval", "approved", "executed"].includes(a.state)) ?? null;
  return (
    <div className="packet">
      <dl className="facts">
        <dt>Packet</dt>
        <dd>
          #{packet.id} · {words(packet.state)} · {words(packet.level)} · {packet.evidenceCount} documents
        </dd>
        <dt>Letter</dt>
        <dd>
          {packet.letterSource === "draft" ? `your draft (version ${packet.letterDraftVersion ?? 1})` : `template ${packet.templateKey}`}
        </dd>
        <dt>Assembled</dt>
        <dd>
          {when(packet.createdAt)} by {who(packet.createdByUserId)}
        </dd>
        {packet.trackingNumber ? (
          <>
            <dt>Tracking</dt>
            <dd>{packet.trackingNumber}</dd>
          </>
        ) : null}
      </dl>
      {detail.data ? (
        <details>
          <summary>Letter text and contents</summary>
          <pre className="letter-text">{detail.data.letterText}</pre>
          <ol>
            {detail.data.items.map((i) => (
              <li key={i.documentId}>
                {i.title} ({words(i.docType)})
              </li>
            ))}
          </ol>
        </details>
      ) : null}
      <PacketPreview packetId={packet.id} />
      <Approval packet={packet} action={live} me={me} who={who} onChange={props.onChange} />
    </div>
  );
}

function PacketPreview({ packetId }: { packetId: number }) {
  const [url, setUrl] = useState<string | null>(null);
  const [name, setName] = useState("appeal.pdf");
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  const render = async () => {
    const rendered = await query("appealAssembly.render", { id: packetId });
    const bytes = Uint8Array.from(atob(rendered.contentBase64), (ch) => ch.charCodeAt(0));
    setName(rendered.fileName);
    setUrl(URL.createObjectURL(new Blob([bytes], { type: rendered.mediaType })));
    return rendered;
  };
  return (
    <div className="preview">
      <ActionButton label="Preview packet PDF" running="Rendering the packet…" run={render} />
      {url ? (
        <>
          <a href={url} download={name}>
            Download {name}
          </a>
          <iframe className="pdf" src={url} title="Appeal packet preview (PDF)" />
        </>
      ) : null}
    </div>
  );
}

function Approval(props: {
  packet: Packet;
  action: Action | null;
  me: Me;
  who: (id: number | null | undefined) => string;
  onChange: () => void;
}) {
  const { packet, action, me, who } = props;
  const [reason, setReason] = useState("");
  if (packet.state !== "assembled" && !action) return null;
  if (!action) {
    return (
      <div className="approval">
        <h3>Approval</h3>
        <p>Submitting the packet to the payer needs a second person's approval.</p>
        <ActionButton
          label="Request approval to submit"
          running="Requesting approval…"
          kind="primary"
          run={() => mutate("approvedActions.request", { caseId: packet.caseId, kind: "submit_appeal_packet", payloadRef: String(packet.id) })}
          done={props.onChange}
        />
      </div>
    );
  }
  const mine = action.requestedByUserId === me.userId;
  return (
    <div className="approval">
      <h3>Approval</h3>
      <p>
        Submission #{action.id}: <strong>{words(action.state)}</strong> · requested by {who(action.requestedByUserId)} on{" "}
        {when(action.createdAt)}
        {action.stateReason ? ` · ${action.stateReason}` : ""}
      </p>
      {action.state === "pending_approval" && mine ? (
        <p className="muted" role="note">
          You requested this submission, so another person must approve it (separation of duties).
        </p>
      ) : null}
      {action.state === "pending_approval" && !mine ? (
        <div className="decide">
          <Field label="Reason for your decision">
            {(id) => <input id={id} value={reason} onChange={(e) => setReason(e.target.value)} />}
          </Field>
          <ActionButton
            label="Approve submission"
            running="Approving…"
            kind="primary"
            disabled={!reason.trim()}
            run={() => mutate("approvedActions.decide", { id: action.id, decision: "approve", reason })}
            done={props.onChange}
          />
          <ActionButton
            label="Reject submission"
            running="Rejecting…"
            kind="danger"
            disabled={!reason.trim()}
            run={() => mutate("approvedActions.decide", { id: action.id, decision: "reject", reason })}
            done={props.onChange}
          />
        </div>
      ) : null}
      {action.state === "approved" ? (
        <ActionButton
          label="Submit to the payer (sandbox clearinghouse)"
          running="Submitting…"
          kind="primary"
          run={() => mutate("approvedActions.executeSandbox", { id: action.id })}
          done={props.onChange}
        />
      ) : null}
    </div>
  );
}

function NotesPanel({ view, who, onAdded }: { view: CaseView; who: (id: number) => string; onAdded: () => void }) {
  const [body, setBody] = useState("");
  return (
    <section className="panel" aria-labelledby="notes-title">
      <h2 id="notes-title">Notes</h2>
      {view.notes.length === 0 ? <Empty>No note yet.</Empty> : null}
      <ul className="notes">
        {view.notes.map((n) => (
          <li key={n.id}>
            <p>{n.body}</p>
            <small>
              {who(n.authorUserId)}, {when(n.createdAt)}
            </small>
          </li>
        ))}
      </ul>
      <Field label="New note">{(id) => <textarea id={id} value={body} onChange={(e) => setBody(e.target.value)} rows={3} />}</Field>
      <ActionButton
        label="Add note"
        running="Saving the note…"
        disabled={!body.trim()}
        run={() => mutate("cases.addNote", { id: view.case.id, body })}
        done={() => {
          setBody("");
          onAdded();
        }}
      />
    </section>
  );
}

type CallIn = In<"payerInteractions.log">;
// As DOC_TYPES: the type check fails if the contract's vocabulary changes.
const CHANNELS = Object.keys({ phone: 1, portal: 1, fax: 1, mail: 1, email: 1 } satisfies Record<CallIn["channel"], 1>) as CallIn["channel"][];
const CALL_OUTCOMES = Object.keys({
  resolved: 1,
  in_process: 1,
  reprocessing: 1,
  appeal_required: 1,
  information_requested: 1,
  denial_upheld: 1,
  no_record: 1,
  no_answer: 1,
  other: 1,
} satisfies Record<CallIn["outcome"], 1>) as CallIn["outcome"][];

function CallsPanel({ caseId, claimKey, payer }: { caseId: number; claimKey: string; payer: string }) {
  const calls = useLoad(() => query("payerInteractions.forCase", { caseId, limit: 50 }), [caseId]);
  const [channel, setChannel] = useState<CallIn["channel"]>("phone");
  const [outcome, setOutcome] = useState<CallIn["outcome"]>("in_process");
  const [summary, setSummary] = useState("");
  const [reference, setReference] = useState("");
  return (
    <Section title="Payer calls" loaded={calls}>
      {(page) => (
        <>
          {page.items.length === 0 ? <Empty>No call or portal contact logged.</Empty> : null}
          <ul className="notes">
            {page.items.map((i) => (
              <li key={i.id}>
                <p>
                  <strong>
                    {i.channel} · {words(i.outcome)}
                  </strong>{" "}
                  {i.summary}
                </p>
                <small>
                  {when(i.occurredAt)}
                  {i.referenceNumber ? ` · reference ${i.referenceNumber}` : ""}
                  {i.nextStep ? ` · next: ${i.nextStep} ${day(i.nextStepOn)}` : ""}
                </small>
              </li>
            ))}
          </ul>
          <h3>Log a contact with {payer}</h3>
          <div className="row">
            <Field label="Channel">
              {(id) => (
                <select id={id} value={channel} onChange={(e) => setChannel(e.target.value as CallIn["channel"])}>
                  {CHANNELS.map((c) => (
                    <option key={c}>{c}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Outcome of the contact">
              {(id) => (
                <select id={id} value={outcome} onChange={(e) => setOutcome(e.target.value as CallIn["outcome"])}>
                  {CALL_OUTCOMES.map((o) => (
                    <option key={o} value={o}>
                      {words(o)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Call reference">{(id) => <input id={id} value={reference} onChange={(e) => setReference(e.target.value)} />}</Field>
          </div>
          <Field label="What the payer said">{(id) => <textarea id={id} value={summary} onChange={(e) => setSummary(e.target.value)} rows={2} />}</Field>
          <ActionButton
            label="Log contact"
            running="Logging…"
            disabled={!summary.trim()}
            run={() =>
              mutate("payerInteractions.log", {
                caseId,
                claimKey,
                channel,
                outcome,
                summary,
                referenceNumber: reference || null,
                occurredAt: new Date().toISOString(),
              })
            }
            done={() => {
              setSummary("");
              setReference("");
              calls.reload();
            }}
          />
        </>
      )}
    </Section>
  );
}

type Decision = In<"outcomes.record">["decision"];
const DECISIONS = Object.keys({ won: 1, partially_won: 1, lost: 1, withdrawn: 1 } satisfies Record<Decision, 1>) as Decision[];

function OutcomePanel(props: { caseId: number; caseState: string; atStake: string; onRecorded: () => void }) {
  const { caseId } = props;
  const outcomes = useLoad(() => query("outcomes.list", { caseId, limit: 20 }), [caseId, props.caseState]);
  const packets = useLoad(() => query("appealAssembly.list", { caseId, limit: 20 }), [caseId, props.caseState]);
  const [decision, setDecision] = useState<Decision>("won");
  const [amount, setAmount] = useState(props.atStake);
  const [decidedOn, setDecidedOn] = useState(() => new Date().toISOString().slice(0, 10));
  const [reference, setReference] = useState("");
  // A submitted packet is decided through its own lifecycle (the payer's decision closes packet and case);
  // without one, the outcome is recorded on the case.
  const submitted = useMemo(
    () => packets.data?.items.find((p) => ["submitted", "acknowledged", "info_requested", "info_supplied"].includes(p.state)) ?? null,
    [packets.data],
  );
  const record = () => {
    const amountRecovered = decision === "lost" || decision === "withdrawn" ? "0" : amount;
    if (submitted && decision !== "withdrawn") {
      return mutate("appealAssembly.event", {
        packetId: submitted.id,
        kind: "decided",
        decision,
        amountRecovered,
        occurredOn: decidedOn,
        payerReference: reference || null,
      });
    }
    return mutate("outcomes.record", { caseId, decision, amountRecovered, decidedOn, payerReference: reference || null });
  };
  return (
    <Section title="Outcome" loaded={outcomes}>
      {(page) => (
        <>
          {page.items.length === 0 ? <Empty>No payer decision recorded.</Empty> : null}
          <ul className="notes">
            {page.items.map((o) => (
              <li key={o.id}>
                <strong>{words(o.decision)}</strong> on {day(o.decidedOn)} (level {o.level}): {money(o.amountRecovered)} recovered
                {o.payerReference ? ` · payer reference ${o.payerReference}` : ""}
              </li>
            ))}
          </ul>
          <h3>Record the payer's decision</h3>
          {submitted ? <p className="muted">Recorded against the submitted packet #{submitted.id}.</p> : null}
          <div className="row">
            <Field label="Decision">
              {(id) => (
                <select id={id} value={decision} onChange={(e) => setDecision(e.target.value as Decision)}>
                  {DECISIONS.map((d) => (
                    <option key={d} value={d}>
                      {words(d)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Amount recovered ($)">
              {(id) => (
                <input
                  id={id}
                  inputMode="decimal"
                  value={decision === "lost" || decision === "withdrawn" ? "0" : amount}
                  disabled={decision === "lost" || decision === "withdrawn"}
                  onChange={(e) => setAmount(e.target.value)}
                />
              )}
            </Field>
            <Field label="Decided on">{(id) => <input id={id} type="date" value={decidedOn} onChange={(e) => setDecidedOn(e.target.value)} />}</Field>
            <Field label="Payer reference">{(id) => <input id={id} value={reference} onChange={(e) => setReference(e.target.value)} />}</Field>
          </div>
          <ActionButton
            label="Record outcome"
            running="Recording…"
            kind="primary"
            run={record}
            done={() => {
              outcomes.reload();
              packets.reload();
              props.onRecorded();
            }}
          />
        </>
      )}
    </Section>
  );
}

function HistoryPanel({ view, who }: { view: CaseView; who: (id: number | null) => string }) {
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ol className="history">
        {view.events.map((e) => (
          <li key={e.id}>
            {when(e.createdAt)} · {words(e.kind)}
            {e.fromState || e.toState ? ` · ${words(e.fromState ?? "—")} → ${words(e.toState ?? "—")}` : ""} · {who(e.actorUserId)}
            {e.reason ? <div className="muted">{e.reason}</div> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
