// Onboarding (admins): hospital onboarding requests from submission to a live client (hospitalOnboarding.*)
// with the moves each request allows, and the activation gates of the selected hospital
// (activationGovernance.*): what is required, what is met, what blocks activation. The selected request or
// gate lives in React state: the route stays #/onboarding.
import { useEffect, useRef, useState } from "react";
import type { Me } from "../app";
import { type In, type Out, mutate, query } from "../rpc";
import { ActionButton, day, Empty, Field, Screen, Section, SelectButton, useLoad, when } from "../ui";
import "./patterns.css";

type Request = Out<"hospitalOnboarding.getRequest">;
type RequestState = Request["state"];
type Provisioned = Out<"hospitalOnboarding.provision">;
type Gate = Out<"activationGovernance.checklist">["gates"][number];
type GateName = Gate["gate"];
type Transition = In<"hospitalOnboarding.transitionLifecycle">["to"];

const STATES: RequestState[] = [
  "submitted",
  "in_review",
  "on_hold",
  "approved",
  "rejected",
  "withdrawn",
  "provisioned",
  "live",
  "suspended",
];
const STATE_LABEL: Record<RequestState, string> = {
  submitted: "Submitted",
  in_review: "In review",
  on_hold: "On hold",
  approved: "Approved",
  rejected: "Rejected",
  withdrawn: "Withdrawn",
  provisioned: "Provisioned",
  live: "Live",
  suspended: "Suspended",
};
const GATE_LABEL: Record<GateName, string> = {
  data_validated: "Data validated",
  payer_rules_reviewed: "Payer rules reviewed",
  users_trained: "Users trained",
  integrations_tested: "Integrations tested",
  pipeline_dry_run_clean: "Pipeline dry run clean",
};
const stateLabel = (s: string) => STATE_LABEL[s as RequestState] ?? s.replace(/_/g, " ");

function StateBadge({ state }: { state: RequestState }) {
  const tone =
    state === "live" || state === "provisioned" || state === "approved"
      ? "ok"
      : state === "rejected" || state === "withdrawn" || state === "suspended"
        ? "late"
        : state === "on_hold"
          ? "soon"
          : "neutral";
  return <span className={`badge ${tone}`}>{STATE_LABEL[state]}</span>;
}

export function OnboardingScreen({ me }: { me: Me }) {
  const admin = me.roles.includes("admin");
  const [state, setState] = useState<RequestState | "">("");
  const [requestId, setRequestId] = useState<number | null>(null);
  const list = useLoad(
    () => (admin ? query("hospitalOnboarding.listRequests", { limit: 100, state: state || null }) : Promise.resolve(null)),
    [state, admin],
  );
  if (!admin) {
    return (
      <Screen title="Onboarding" busy={false}>
        <Empty>Only administrators onboard hospitals and record activation gates.</Empty>
      </Screen>
    );
  }
  return (
    <Screen title="Onboarding" busy={list.loading && !list.data}>
      <Section title="Onboarding requests" loaded={list}>
        {(d) => (
          <>
            <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Request filters">
              <Field label="Request state">
                {(id) => (
                  <select id={id} value={state} onChange={(e) => setState(e.target.value as RequestState | "")}>
                    <option value="">Any state</option>
                    {STATES.map((s) => (
                      <option key={s} value={s}>
                        {STATE_LABEL[s]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </form>
            {!d || d.items.length === 0 ? (
              <Empty>
                No onboarding request {state ? `in state “${STATE_LABEL[state]}” ` : ""}yet. A member of the
                organization submits one (hospitalOnboarding.submitRequest); it then appears here for review.
              </Empty>
            ) : (
              <div className="scroll">
                <table className="grid">
                  <caption className="visually-hidden">Hospital onboarding requests, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Hospital</th>
                      <th scope="col">State</th>
                      <th scope="col">Submitted</th>
                      <th scope="col">Contact</th>
                      <th scope="col" className="num">Claims / month</th>
                      <th scope="col" className="num">Denials / month</th>
                      <th scope="col">Detail</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.items.map((r) => {
                      const selected = requestId === r.id;
                      return (
                        <tr key={r.id} className={selected ? "selected" : undefined}>
                          <td>
                            {r.hospitalName}
                            <div className="muted">Request #{r.id}</div>
                          </td>
                          <td>
                            <StateBadge state={r.state} />
                            <div className="muted">since {day(r.stateChangedAt)}</div>
                          </td>
                          <td>{day(r.createdAt)}</td>
                          <td>{r.contactEmail}</td>
                          <td className="num">{r.expectedVolumes.monthlyClaims.toLocaleString("en-US")}</td>
                          <td className="num">{r.expectedVolumes.monthlyDenials.toLocaleString("en-US")}</td>
                          <td>
                            <SelectButton label="Show" what={`request ${r.hospitalName}`} selected={selected} onSelect={() => setRequestId(r.id)} />
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </Section>
      {requestId !== null ? (
        <RequestDetail key={requestId} id={requestId} me={me} onClose={() => setRequestId(null)} onChanged={list.reload} />
      ) : null}
      <ActivationGates me={me} />
    </Screen>
  );
}

function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus();
    ref.current?.scrollIntoView?.({ block: "start" });
  }, []);
  return ref;
}

function RequestDetail(props: { id: number; me: Me; onClose: () => void; onChanged: () => void }) {
  const { id } = props;
  const request = useLoad(() => query("hospitalOnboarding.getRequest", { id }), [id]);
  const events = useLoad(() => query("hospitalOnboarding.lifecycleEvents", { id, limit: 100 }), [id]);
  const [provisioned, setProvisioned] = useState<Provisioned | null>(null);
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const changed = () => {
    request.reload();
    events.reload();
    props.onChanged();
  };
  return (
    <section className="detail" aria-labelledby="request-detail-title">
      <div className="detail-head">
        <h2 id="request-detail-title" tabIndex={-1} ref={heading}>
          Request: {request.data?.hospitalName ?? `#${id}`}
        </h2>
        <button type="button" className="secondary" onClick={props.onClose}>
          Close request
        </button>
      </div>
      <div className="columns">
        <Section title="Request detail" loaded={request} headingLevel={3}>
          {(r) => <RequestFacts r={r} me={props.me} />}
        </Section>
        <Section title="Moves" loaded={request} headingLevel={3}>
          {(r) => (
            <Moves
              r={r}
              onMoved={changed}
              onProvisioned={(p) => {
                setProvisioned(p);
                changed();
              }}
            />
          )}
        </Section>
      </div>
      {provisioned ? <ProvisionResult p={provisioned} /> : null}
      <Section title="Lifecycle events" loaded={events} headingLevel={3}>
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No move recorded yet.</Empty>
          ) : (
            <table className="grid">
              <caption className="visually-hidden">Every move of the request, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Move</th>
                  <th scope="col">By user</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {d.items.map((e) => (
                  <tr key={e.id}>
                    <td>{when(e.createdAt)}</td>
                    <td>
                      {e.fromState ? `${stateLabel(e.fromState)} → ${stateLabel(e.toState)}` : stateLabel(e.toState)}
                    </td>
                    <td>#{e.actorUserId}</td>
                    <td>{e.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Section>
    </section>
  );
}

function RequestFacts({ r, me }: { r: Request; me: Me }) {
  return (
    <dl className="facts">
      <dt>State</dt>
      <dd>
        <StateBadge state={r.state} /> <span className="muted">since {when(r.stateChangedAt)}</span>
      </dd>
      <dt>Legal name</dt>
      <dd>{r.legal.legalName}</dd>
      <dt>Tax id (EIN)</dt>
      <dd>{r.legal.taxId}</dd>
      <dt>NPI</dt>
      <dd>{r.legal.npi ?? "—"}</dd>
      <dt>Address</dt>
      <dd>{r.legal.address}</dd>
      <dt>Contact</dt>
      <dd>{r.contactEmail}</dd>
      <dt>Expected volumes</dt>
      <dd>
        {r.expectedVolumes.monthlyClaims.toLocaleString("en-US")} claims, {r.expectedVolumes.monthlyDenials.toLocaleString("en-US")}{" "}
        denials, {r.expectedVolumes.monthlyRemittanceFiles} remittance files a month
      </dd>
      <dt>Payers</dt>
      <dd>{r.payers.length ? r.payers.join(", ") : "—"}</dd>
      <dt>Connectors</dt>
      <dd>{r.connectorKinds.length ? r.connectorKinds.join(", ") : "—"}</dd>
      <dt>Users to invite</dt>
      <dd>
        {r.requestedUsers.length
          ? r.requestedUsers.map((u) => `${u.displayName || u.email} (${u.email}, ${u.role})`).join("; ")
          : "—"}
      </dd>
      <dt>Evidence retention</dt>
      <dd>{r.retentionYears} years</dd>
      <dt>Submitted</dt>
      <dd>
        {when(r.createdAt)} by user #{r.submittedByUserId}
        {r.submittedByUserId === me.userId ? " (you: another administrator must decide it)" : ""}
      </dd>
      <dt>Decision</dt>
      <dd>
        {r.decidedAt ? `${when(r.decidedAt)} by user #${r.decidedByUserId ?? "?"}: ${r.decisionReason ?? ""}` : "—"}
      </dd>
      <dt>Provisioned</dt>
      <dd>{r.provisionedAt ? `${when(r.provisionedAt)} as client #${r.provisionedClientId ?? "?"}` : "—"}</dd>
    </dl>
  );
}

// transitionLifecycle's moves, by target state (approved/rejected are decide's, provisioned provision's,
// in_review from submitted/on_hold openReview's).
const TRANSITION_LABEL: Partial<Record<string, string>> = {
  on_hold: "Put on hold",
  withdrawn: "Withdraw request",
  live: "Go live",
  suspended: "Suspend client",
};

function Moves(props: { r: Request; onMoved: () => void; onProvisioned: (p: Provisioned) => void }) {
  const { r } = props;
  const [reason, setReason] = useState("");
  const moves = r.allowedMoves;
  if (moves.length === 0) return <Empty>No move is possible from “{STATE_LABEL[r.state]}”: it is final.</Empty>;
  const why = reason.trim();
  return (
    <form onSubmit={(e) => e.preventDefault()} aria-label="Request moves">
      <p className="muted">
        Moves allowed from “{STATE_LABEL[r.state]}”: {moves.map(stateLabel).join(", ")}.
      </p>
      <Field label="Reason" hint="Recorded with the move (at least 3 characters; required to decide or move)">
        {(id) => <textarea id={id} maxLength={2000} value={reason} onChange={(e) => setReason(e.target.value)} />}
      </Field>
      <div className="moves">
        {moves.includes("in_review") ? (
          <ActionButton
            label={r.state === "on_hold" ? "Resume review" : "Open review"}
            running="Opening review…"
            kind="primary"
            run={() => mutate("hospitalOnboarding.openReview", why ? { id: r.id, reason: why } : { id: r.id })}
            done={props.onMoved}
          />
        ) : null}
        {moves.includes("approved") ? (
          <ActionButton
            label="Approve request"
            running="Approving…"
            kind="primary"
            run={() => mutate("hospitalOnboarding.decide", { id: r.id, decision: "approved", reason: why })}
            done={props.onMoved}
          />
        ) : null}
        {moves.includes("rejected") ? (
          <ActionButton
            label="Reject request"
            running="Rejecting…"
            kind="danger"
            run={() => mutate("hospitalOnboarding.decide", { id: r.id, decision: "rejected", reason: why })}
            done={props.onMoved}
          />
        ) : null}
        {moves.includes("provisioned") ? (
          <ActionButton
            label="Provision client"
            running="Provisioning…"
            kind="primary"
            run={() => mutate("hospitalOnboarding.provision", { id: r.id })}
            done={(p) => props.onProvisioned(p as Provisioned)}
          />
        ) : null}
        {moves
          .filter((m) => TRANSITION_LABEL[m])
          .map((m) => (
            <ActionButton
              key={m}
              label={TRANSITION_LABEL[m]!}
              running="Moving…"
              kind={m === "withdrawn" || m === "suspended" ? "danger" : "secondary"}
              run={() => mutate("hospitalOnboarding.transitionLifecycle", { id: r.id, to: m as Transition, reason: why })}
              done={props.onMoved}
            />
          ))}
      </div>
    </form>
  );
}

function ProvisionResult({ p }: { p: Provisioned }) {
  return (
    <section className="panel" aria-labelledby="provisioned-title" role="status">
      <h3 id="provisioned-title">Provisioned: {p.clientName} (client #{p.clientId})</h3>
      <dl className="facts">
        <dt>Invitations</dt>
        <dd>
          {p.invitations.length
            ? p.invitations.map((i) => `${i.email} (${i.role}, expires ${day(i.expiresAt)})`).join("; ")
            : "None"}
        </dd>
        <dt>Already members</dt>
        <dd>{p.alreadyMembers.length ? p.alreadyMembers.join(", ") : "None"}</dd>
        <dt>Connector profiles</dt>
        <dd>{p.connectorProfiles.length ? p.connectorProfiles.join(", ") : "None"}</dd>
        <dt>Evidence retention</dt>
        <dd>{p.retentionYears} years</dd>
        <dt>Automation</dt>
        <dd>{p.automationEnabled ? "On" : "Off until every activation gate passed"}</dd>
      </dl>
      <p className="muted">Choose the new hospital in the header to record its activation gates.</p>
    </section>
  );
}

function ActivationGates({ me }: { me: Me }) {
  const status = useLoad(() => query("activationGovernance.status"), []);
  const checklist = useLoad(() => query("activationGovernance.checklist"), []);
  const [gate, setGate] = useState<GateName | null>(null);
  const recorded = () => {
    status.reload();
    checklist.reload();
  };
  return (
    <>
      <h2 className="group-title">Activation gates of {me.clientName}</h2>
      <div className="columns gates">
        <Section title="Activation status" loaded={status} headingLevel={3}>
          {(s) => (
            <>
              <p className="tile-line">
                <span className={`badge ${s.ready ? "ok" : "late"}`}>{s.ready ? "✓ Ready" : "✗ Not ready"}</span>{" "}
                {s.passed} of {s.total} gates passed
              </p>
              {s.blockers.length ? (
                <>
                  <p>Automation stays off until these gates pass:</p>
                  <ul>
                    {s.blockers.map((b) => (
                      <li key={b}>{GATE_LABEL[b]}</li>
                    ))}
                  </ul>
                </>
              ) : (
                <p>Every gate's latest recording passed: automation may be switched on.</p>
              )}
            </>
          )}
        </Section>
        {gate ? (
          <RecordGate
            key={gate}
            gate={checklist.data?.gates.find((g) => g.gate === gate)}
            name={gate}
            onClose={() => setGate(null)}
            onRecorded={recorded}
          />
        ) : null}
      </div>
      <Section title="Gate checklist" loaded={checklist} headingLevel={3}>
        {(c) => (
          <div className="scroll">
            <table className="grid">
              <caption className="visually-hidden">Activation gates with their latest recording</caption>
              <thead>
                <tr>
                  <th scope="col">Gate (what is required)</th>
                  <th scope="col">State</th>
                  <th scope="col">Evidence</th>
                  <th scope="col">Recorded</th>
                  <th scope="col">Record</th>
                </tr>
              </thead>
              <tbody>
                {c.gates.map((g) => {
                  const selected = gate === g.gate;
                  return (
                    <tr key={g.gate} className={selected ? "selected" : undefined}>
                      <td>
                        <strong>{GATE_LABEL[g.gate]}</strong>
                        <div className="muted">{g.description}</div>
                      </td>
                      <td>
                        <GateState state={g.state} />
                      </td>
                      <td>
                        {g.evidence ?? "—"}
                        {g.reference ? <div className="muted">Ref. {g.reference}</div> : null}
                      </td>
                      <td>
                        {g.recordedAt ? `${when(g.recordedAt)} by user #${g.recordedByUserId ?? "?"}` : "—"}
                        {g.recordings > 1 ? <div className="muted">{g.recordings} recordings (latest wins)</div> : null}
                      </td>
                      <td>
                        <SelectButton label="Record" what={`gate ${GATE_LABEL[g.gate]}`} selected={selected} onSelect={() => setGate(g.gate)} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </>
  );
}

function GateState({ state }: { state: Gate["state"] }) {
  if (state === "passed") return <span className="badge ok">✓ Passed</span>;
  if (state === "failed") return <span className="badge late">✗ Failed</span>;
  return <span className="badge neutral">Not recorded</span>;
}

function RecordGate(props: { name: GateName; gate: Gate | undefined; onClose: () => void; onRecorded: () => void }) {
  const [passed, setPassed] = useState<"yes" | "no">("yes");
  const [evidence, setEvidence] = useState("");
  const [reference, setReference] = useState("");
  const [saved, setSaved] = useState<string | null>(null);
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const label = GATE_LABEL[props.name];
  return (
    <section className="panel detail" aria-labelledby="gate-form-title">
      <div className="detail-head">
        <h3 id="gate-form-title" tabIndex={-1} ref={heading}>
          Record gate: {label}
        </h3>
        <button type="button" className="secondary" onClick={props.onClose}>
          Close gate
        </button>
      </div>
      {props.gate ? (
        <p className="muted">
          {props.gate.description}. Now: <GateState state={props.gate.state} />
        </p>
      ) : null}
      <form onSubmit={(e) => e.preventDefault()} aria-label={`Record gate ${label}`}>
        <fieldset className="radio-row">
          <legend>Result</legend>
          <label>
            <input type="radio" name="gate-result" checked={passed === "yes"} onChange={() => setPassed("yes")} /> Passed
          </label>
          <label>
            <input type="radio" name="gate-result" checked={passed === "no"} onChange={() => setPassed("no")} /> Not passed
          </label>
        </fieldset>
        <Field label="Evidence" hint="What shows the gate passed (or why it did not)">
          {(id) => <textarea id={id} value={evidence} onChange={(e) => setEvidence(e.target.value)} />}
        </Field>
        <Field label="Reference (optional)" hint="A document id, a ticket, a run id">
          {(id) => <input id={id} value={reference} onChange={(e) => setReference(e.target.value)} />}
        </Field>
        <ActionButton
          label="Record gate result"
          running="Recording…"
          kind="primary"
          run={() =>
            mutate("activationGovernance.recordGate", {
              gate: props.name,
              passed: passed === "yes",
              evidence: evidence.trim(),
              reference: reference.trim() || null,
            })
          }
          done={(value) => {
            const row = value as Out<"activationGovernance.recordGate">;
            setSaved(`Recorded ${label} as ${row.passed ? "passed" : "not passed"} at ${when(row.createdAt)}.`);
            props.onRecorded();
          }}
        />
        {saved ? <p role="status">{saved}</p> : null}
      </form>
    </section>
  );
}
