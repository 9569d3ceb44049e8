// Patterns and interventions: the denial patterns the platform found in a window (patterns.*), the evidence
// gathered for a pattern (evidence.listForPattern, evidenceSynthesis.listForPattern), and the interventions
// with the evidence of their effect (interventions.*, interventionExecution.status, evidence.*). Every
// estimate is shown with its interval, its sample sizes and its method, as the API gives them. The selected
// pattern / intervention / evidence record lives in React state: the route stays #/patterns.
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { type In, type Out, mutate, query } from "../rpc";
import { ActionButton, day, Empty, Field, Screen, Section, SelectButton, useLoad, when } from "../ui";
import "./patterns.css";
import { Estimate, points, pValue, rate, ratio, sePoints } from "./stats";

type Search = Omit<NonNullable<In<"patterns.list">>, "cursor" | "limit" | "category" | "payerKey" | "serviceLine" | "facility">;
type PatternList = Out<"patterns.list">;
type Pattern = PatternList["items"][number];
type SearchOut = PatternList["search"];
type Synthesis = Out<"evidenceSynthesis.listForPattern">["items"][number];
type Evidence = Out<"evidence.getById">;
type Change = Evidence["treated"];
type Intervention = Out<"interventions.list">["items"][number];
type InterventionState = Intervention["state"];
const STATES: InterventionState[] = ["planned", "active", "completed", "abandoned"];

/** A pattern's cell in words: each null dimension means all its values. */
export function cellLabel(c: {
  payerKey: string | null;
  category: string | null;
  carc?: string | null;
  serviceLine: string | null;
  facility: string | null;
}): string {
  const parts = [
    c.payerKey ?? "All payers",
    c.category ? c.category.replace(/_/g, " ") : "any denial",
    c.carc ? `CARC ${c.carc}` : null,
    c.serviceLine ? c.serviceLine.replace(/_/g, " ") : null,
    c.facility ? `facility ${c.facility}` : null,
  ];
  return parts.filter(Boolean).join(" · ");
}

export function PatternScreen() {
  const [search, setSearch] = useState<Search>({});
  const [patternKey, setPatternKey] = useState<string | null>(null);
  const [interventionId, setInterventionId] = useState<number | null>(null);
  const patterns = useLoad(() => query("patterns.list", { ...search, limit: 100 }), [JSON.stringify(search)]);
  return (
    <Screen title="Patterns and interventions" busy={patterns.loading && !patterns.data}>
      <SearchForm
        key={JSON.stringify(search)}
        initial={search}
        onSearch={(next) => {
          setPatternKey(null);
          setSearch(next);
        }}
      />
      <Section title="Denial patterns" loaded={patterns}>
        {(data) => (
          <PatternTable
            data={data}
            selected={patternKey}
            onSelect={setPatternKey}
            onWiden={(fromMonth) => {
              setPatternKey(null);
              setSearch({ ...search, fromMonth, toMonth: data.search.window?.toMonth ?? null });
            }}
          />
        )}
      </Section>
      {patternKey ? (
        <PatternDetail
          key={`${patternKey}:${JSON.stringify(search)}`}
          patternKey={patternKey}
          search={search}
          onClose={() => setPatternKey(null)}
          onPatternChanged={patterns.reload}
          onShowIntervention={setInterventionId}
        />
      ) : null}
      <Interventions
        patternKey={patternKey}
        selected={interventionId}
        onSelect={setInterventionId}
      />
    </Screen>
  );
}

function SearchForm({ initial, onSearch }: { initial: Search; onSearch: (s: Search) => void }) {
  const [fromMonth, setFrom] = useState(initial.fromMonth ?? "");
  const [toMonth, setTo] = useState(initial.toMonth ?? "");
  const [minClaims, setMinClaims] = useState(String(initial.minClaims ?? 30));
  const [minLift, setMinLift] = useState(String(initial.minLift ?? 1.5));
  const [fdr, setFdr] = useState(String(initial.fdr ?? 0.05));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const n = (text: string) => (text.trim() === "" ? undefined : Number(text));
    onSearch({
      fromMonth: fromMonth || null,
      toMonth: toMonth || null,
      minClaims: n(minClaims),
      minLift: n(minLift),
      fdr: n(fdr),
    });
  };
  return (
    <form className="filters search" onSubmit={submit} aria-label="Pattern search">
      <Field label="From month" hint="Empty: the last 3 months with data">
        {(id) => <input id={id} type="month" value={fromMonth} onChange={(e) => setFrom(e.target.value)} />}
      </Field>
      <Field label="To month" hint="Empty: the latest month">
        {(id) => <input id={id} type="month" value={toMonth} onChange={(e) => setTo(e.target.value)} />}
      </Field>
      <Field label="Minimum claims per cell">
        {(id) => (
          <input id={id} type="number" min={1} step={1} value={minClaims} onChange={(e) => setMinClaims(e.target.value)} />
        )}
      </Field>
      <Field label="Minimum lift (× baseline)">
        {(id) => (
          <input id={id} type="number" min={1} max={100} step="any" value={minLift} onChange={(e) => setMinLift(e.target.value)} />
        )}
      </Field>
      <Field label="False discovery rate">
        {(id) => (
          <input id={id} type="number" min={0.0001} max={0.5} step="any" value={fdr} onChange={(e) => setFdr(e.target.value)} />
        )}
      </Field>
      <button type="submit" className="primary">
        Search patterns
      </button>
    </form>
  );
}

function SearchSummary({ search }: { search: SearchOut }) {
  const b = search.baseline;
  return (
    <p className="muted">
      {search.window
        ? `Window ${search.window.fromMonth} to ${search.window.toMonth}. `
        : "No adjudication month yet for this hospital. "}
      Baseline denial rate {rate(b.rate)} ({b.denied} of {b.claims} claims). {search.testsRun} of {search.cellsBuilt}{" "}
      cells had at least {search.minClaims} claims and were tested (one-sided exact binomial test, Benjamini-Hochberg
      at FDR {search.fdr}); a pattern's rate is at least {search.minLift}× the baseline.
    </p>
  );
}

/** The month `back` months before a YYYY-MM month (calendar only). */
function monthsBefore(month: string, back: number): string {
  const [y = 0, m = 1] = month.split("-").map(Number);
  const index = y * 12 + (m - 1) - back;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, "0")}`;
}

function PatternTable(props: {
  data: PatternList;
  selected: string | null;
  onSelect: (key: string) => void;
  onWiden: (fromMonth: string) => void;
}) {
  const { data } = props;
  return (
    <>
      <SearchSummary search={data.search} />
      {data.snapshot.quarantined ? (
        <p className="note-warn">
          <strong>Held back:</strong> a failing data check held this hospital's newest data back; these figures are
          from {when(data.snapshot.dataBuiltAt)}.
        </p>
      ) : null}
      {data.items.length === 0 ? (
        <Empty>
          No denial pattern in this window at these thresholds. Widen the window (an earlier “From month”) or lower
          the minimum claims or lift, then search again.
          {data.search.window ? (
            <>
              {" "}
              <button type="button" className="secondary" onClick={() => props.onWiden(monthsBefore(data.search.window!.toMonth, 11))}>
                Search the 12 months to {data.search.window.toMonth}
              </button>
            </>
          ) : null}
        </Empty>
      ) : (
        <div className="scroll">
          <table className="grid">
            <caption className="visually-hidden">
              Denial patterns, largest excess denials first; rates with their 95 % Wilson interval
            </caption>
            <thead>
              <tr>
                <th scope="col">Pattern (cell)</th>
                <th scope="col" className="num">Denial rate (95 % CI)</th>
                <th scope="col" className="num">Denied / claims</th>
                <th scope="col" className="num">Lift (95 % CI)</th>
                <th scope="col" className="num">Excess denials</th>
                <th scope="col" className="num">q (p)</th>
                <th scope="col">Status</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((p) => {
                const label = cellLabel(p);
                const selected = props.selected === p.patternKey;
                return (
                  <tr key={p.patternKey} className={selected ? "selected" : undefined}>
                    <td>
                      {label}
                      <div className="muted mono">{p.patternKey}</div>
                    </td>
                    <td className="num">
                      <Estimate value={p.rate} low={p.rateLow} high={p.rateHigh} format={rate} />
                      <div className="muted">baseline {rate(p.baselineRate)}</div>
                    </td>
                    <td className="num">
                      {p.denied} / {p.claims}
                    </td>
                    <td className="num">
                      <Estimate value={p.lift} low={p.liftLow} high={p.liftHigh} format={ratio} />
                    </td>
                    <td className="num">{p.excessDenials.toFixed(1)}</td>
                    <td className="num">
                      {pValue(p.qValue)}
                      <div className="muted">p {pValue(p.pValue)}</div>
                    </td>
                    <td>{p.confirmed ? <span className="badge ok">✓ Confirmed</span> : <span className="badge">Not confirmed</span>}</td>
                    <td>
                      <SelectButton label="Show" what={`pattern ${label}`} selected={selected} onSelect={() => props.onSelect(p.patternKey)} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {data.nextCursor ? <p className="muted">Only the first 100 patterns are listed; narrow the search.</p> : null}
    </>
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

function PatternDetail(props: {
  patternKey: string;
  search: Search;
  onClose: () => void;
  onPatternChanged: () => void;
  onShowIntervention: (id: number) => void;
}) {
  const { patternKey, search } = props;
  const pattern = useLoad(() => query("patterns.get", { ...search, patternKey }), [patternKey]);
  const syntheses = useLoad(() => query("evidenceSynthesis.listForPattern", { patternKey, limit: 50 }), [patternKey]);
  const evidence = useLoad(() => query("evidence.listForPattern", { patternKey, limit: 50 }), [patternKey]);
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const title = pattern.data ? cellLabel(pattern.data.pattern) : patternKey;
  return (
    <section className="detail" aria-labelledby="pattern-detail-title">
      <div className="detail-head">
        <h2 id="pattern-detail-title" tabIndex={-1} ref={heading}>
          Pattern: {title}
        </h2>
        <button type="button" className="secondary" onClick={props.onClose}>
          Close pattern
        </button>
      </div>
      <div className="columns">
        <Section title="Pattern detail" loaded={pattern} headingLevel={3}>
          {(d) => <PatternFacts data={d} search={search} onConfirmed={() => (pattern.reload(), props.onPatternChanged())} />}
        </Section>
        <Section title="Pooled evidence (synthesis across interventions)" loaded={syntheses} headingLevel={3}>
          {(d) =>
            d.items.length === 0 ? (
              <Empty>
                No pooled evidence for this pattern yet: it is calculated per action once an intervention's evidence has a
                difference-in-differences estimate.
              </Empty>
            ) : (
              d.items.map((s) => <SynthesisView key={s.id} s={s} />)
            )
          }
        </Section>
      </div>
      <Section title="Evidence records for this pattern" loaded={evidence} headingLevel={3}>
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No evidence has been calculated for an intervention on this pattern yet.</Empty>
          ) : (
            <EvidenceTable
              items={d.items}
              caption="Evidence records of the pattern's interventions, newest first"
              action={(e) => (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => props.onShowIntervention(e.interventionId)}
                >
                  Show intervention {e.interventionId}
                </button>
              )}
            />
          )
        }
      </Section>
    </section>
  );
}

function PatternFacts(props: { data: Out<"patterns.get">; search: Search; onConfirmed: () => void }) {
  const p = props.data.pattern;
  const [note, setNote] = useState("");
  return (
    <>
      <dl className="facts">
        <dt>Cell</dt>
        <dd>{cellLabel(p)}</dd>
        <dt>Denial rate</dt>
        <dd>
          <Estimate value={p.rate} low={p.rateLow} high={p.rateHigh} format={rate} label="95 % Wilson" />
          <div className="muted">
            {p.denied} denied of {p.claims} claims
          </div>
        </dd>
        <dt>Baseline</dt>
        <dd>
          {rate(p.baselineRate)} <span className="muted">({p.baselineDenied} of {p.baselineClaims} claims)</span>
        </dd>
        <dt>Lift</dt>
        <dd>
          <Estimate value={p.lift} low={p.liftLow} high={p.liftHigh} format={ratio} />
        </dd>
        <dt>Excess denials</dt>
        <dd>{p.excessDenials.toFixed(1)} <span className="muted">(denied − claims × baseline rate)</span></dd>
        <dt>Significance</dt>
        <dd>
          q = {pValue(p.qValue)} (Benjamini-Hochberg over {p.testsRun} cells); p = {pValue(p.pValue)} (one-sided exact
          binomial)
        </dd>
        <dt>Window</dt>
        <dd>
          {props.data.search.window ? `${props.data.search.window.fromMonth} to ${props.data.search.window.toMonth}` : "—"}
        </dd>
        <dt>Status</dt>
        <dd>{p.confirmed ? `✓ Confirmed as a root cause ${when(p.confirmedAt)}` : "Not confirmed"}</dd>
      </dl>
      {p.confirmed ? null : (
        <form className="confirm" onSubmit={(e) => e.preventDefault()} aria-label="Confirm pattern">
          <Field label="Note (optional)">
            {(id) => <textarea id={id} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />}
          </Field>
          <ActionButton
            label="Confirm pattern"
            running="Confirming…"
            kind="primary"
            run={() =>
              mutate("patterns.confirm", { ...props.search, patternKey: p.patternKey, note: note.trim() || null })
            }
            done={props.onConfirmed}
          />
        </form>
      )}
    </>
  );
}

function SynthesisView({ s }: { s: Synthesis }) {
  return (
    <article className="synthesis" aria-labelledby={`syn-${s.id}`}>
      <h4 id={`syn-${s.id}`}>
        Action <span className="mono">{s.actionKey}</span>
      </h4>
      <dl className="facts">
        <dt>Random effects</dt>
        <dd>
          <Estimate value={s.random.estimate} low={s.random.ciLow} high={s.random.ciHigh} format={points} note={`SE ${sePoints(s.random.standardError)}`} />
        </dd>
        <dt>Fixed effect</dt>
        <dd>
          <Estimate value={s.fixed.estimate} low={s.fixed.ciLow} high={s.fixed.ciHigh} format={points} note={`SE ${sePoints(s.fixed.standardError)}`} />
        </dd>
        <dt>Studies</dt>
        <dd>
          {s.nStudies} intervention(s), {s.nTotal} claims
          {s.excludedInterventions ? `; ${s.excludedInterventions} left out (no difference-in-differences)` : ""}
          {s.organizationWide ? "; every client of the organization" : "; the clients you reach"}
        </dd>
        <dt>Heterogeneity</dt>
        <dd>
          {s.heterogeneity
            ? `I² ${rate(s.heterogeneity.i2, 0)}, τ² ${s.heterogeneity.tau2.toExponential(2)}, Cochran's Q ${s.heterogeneity.q.toFixed(2)} on ${s.heterogeneity.qDf} df (p ${pValue(s.heterogeneity.qPValue)})`
            : "Not estimable from one study"}
        </dd>
        <dt>Computed</dt>
        <dd>{when(s.computedAt)}</dd>
      </dl>
      <p className="statement">{s.statement}</p>
      <div className="scroll">
      <table className="grid">
        <caption>Studies pooled (difference-in-differences of the denial rate)</caption>
        <thead>
          <tr>
            <th scope="col">Intervention</th>
            <th scope="col">Client</th>
            <th scope="col" className="num">Effect (95 % CI)</th>
            <th scope="col" className="num">SE</th>
            <th scope="col" className="num">Claims</th>
          </tr>
        </thead>
        <tbody>
          {s.studies.map((st) => (
            <tr key={st.evidenceId}>
              <td>
                {st.interventionId} <span className="muted">(evidence {st.evidenceId})</span>
              </td>
              <td>{st.clientId}</td>
              <td className="num">
                <Estimate value={st.effect} low={st.ciLow} high={st.ciHigh} format={points} />
              </td>
              <td className="num">{sePoints(st.standardError)}</td>
              <td className="num">{st.n}</td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
    </article>
  );
}

function changeText(c: Change) {
  return (
    <>
      <Estimate value={c.difference} low={c.ciLow} high={c.ciHigh} format={points} label="95 % Newcombe" />
      <div className="muted">
        {rate(c.before.rate)} ({c.before.events}/{c.before.trials}) → {rate(c.after.rate)} ({c.after.events}/
        {c.after.trials})
      </div>
      {c.reason ? <div className="muted">{c.reason}</div> : null}
    </>
  );
}

function EvidenceTable(props: {
  items: Evidence[];
  caption: string;
  action: (e: Evidence) => ReactNode;
}) {
  return (
    <div className="scroll">
      <table className="grid">
        <caption className="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Record</th>
            <th scope="col">Periods (before → after)</th>
            <th scope="col" className="num">Treated change</th>
            <th scope="col" className="num">Comparison change</th>
            <th scope="col" className="num">Difference-in-differences</th>
            <th scope="col">Verdict</th>
            <th scope="col">More</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((e) => (
            <tr key={e.id}>
              <td>
                Evidence {e.id}
                <div className="muted">
                  {e.actionKey} · {when(e.computedAt)}
                </div>
              </td>
              <td>
                {e.beforeFirstMonth}–{e.beforeLastMonth} → {e.afterFirstMonth}–{e.afterLastMonth}
              </td>
              <td className="num">{changeText(e.treated)}</td>
              <td className="num">
                {e.control ? changeText(e.control) : <span className="muted">No comparison group</span>}
              </td>
              <td className="num">
                {e.did ? (
                  <>
                    <Estimate value={e.did.estimate} low={e.did.ciLow} high={e.did.ciHigh} format={points} />
                    <div className="muted">
                      {e.did.nTotal} claims; p {pValue(e.did.pValue)}
                    </div>
                  </>
                ) : (
                  <span className="muted">Not estimable</span>
                )}
              </td>
              <td>
                <Verdict significant={e.significant} enough={e.enoughTrials} />
              </td>
              <td>{props.action(e)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Verdict({ significant, enough }: { significant: boolean; enough: boolean }) {
  return (
    <>
      <span className={`badge ${significant ? "ok" : ""}`}>{significant ? "✓ Significant" : "Not significant"}</span>
      {enough ? null : <div className="muted">Too few claims for a verdict</div>}
    </>
  );
}

function Interventions(props: { patternKey: string | null; selected: number | null; onSelect: (id: number | null) => void }) {
  const [state, setState] = useState<InterventionState | "">("");
  const [onlyPattern, setOnlyPattern] = useState(false);
  const filterKey = onlyPattern ? props.patternKey : null;
  const list = useLoad(
    () => query("interventions.list", { limit: 100, state: state || null, patternKey: filterKey }),
    [state, filterKey],
  );
  return (
    <>
      <Section title="Interventions" loaded={list}>
        {(d) => (
          <>
            <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Intervention filters">
              <Field label="Intervention state">
                {(id) => (
                  <select id={id} value={state} onChange={(e) => setState(e.target.value as InterventionState | "")}>
                    <option value="">Any state</option>
                    {STATES.map((s) => (
                      <option key={s} value={s}>
                        {s}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              {props.patternKey ? (
                <div className="field checkbox">
                  <input
                    id="only-pattern"
                    type="checkbox"
                    checked={onlyPattern}
                    onChange={(e) => setOnlyPattern(e.target.checked)}
                  />
                  <label htmlFor="only-pattern">Only the shown pattern's interventions</label>
                </div>
              ) : null}
            </form>
            {d.items.length === 0 ? (
              <Empty>
                No intervention {state ? `in state “${state}” ` : ""}yet. Interventions are planned against a pattern
                (interventions.create) and measured once started.
              </Empty>
            ) : (
              <div className="scroll">
                <table className="grid">
                  <caption className="visually-hidden">Interventions, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Intervention</th>
                      <th scope="col">Scope</th>
                      <th scope="col">Action</th>
                      <th scope="col">State</th>
                      <th scope="col">Measured from</th>
                      <th scope="col">Detail</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.items.map((i) => {
                      const selected = props.selected === i.id;
                      return (
                        <tr key={i.id} className={selected ? "selected" : undefined}>
                          <td>
                            {i.name}
                            <div className="muted">#{i.id}</div>
                          </td>
                          <td>{cellLabel(i.scope)}</td>
                          <td className="mono">{i.actionKey}</td>
                          <td>
                            <span className="badge">{i.state}</span>
                          </td>
                          <td>{day(i.startDate)}</td>
                          <td>
                            <SelectButton label="Show" what={`intervention ${i.name}`} selected={selected} onSelect={() => props.onSelect(i.id)} />
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
      {props.selected !== null ? (
        <InterventionDetail key={props.selected} id={props.selected} onClose={() => props.onSelect(null)} />
      ) : null}
    </>
  );
}

function InterventionDetail({ id, onClose }: { id: number; onClose: () => void }) {
  const intervention = useLoad(() => query("interventions.get", { id }), [id]);
  const status = useLoad(() => query("interventionExecution.status", { id }), [id]);
  const evidence = useLoad(() => query("evidence.listForIntervention", { interventionId: id, limit: 50 }), [id]);
  const [recordId, setRecordId] = useState<number | null>(null);
  const heading = useFocusOnMount<HTMLHeadingElement>();
  return (
    <section className="detail" aria-labelledby="intervention-detail-title">
      <div className="detail-head">
        <h2 id="intervention-detail-title" tabIndex={-1} ref={heading}>
          Intervention: {intervention.data?.name ?? `#${id}`}
        </h2>
        <button type="button" className="secondary" onClick={onClose}>
          Close intervention
        </button>
      </div>
      <div className="columns">
        <Section title="Intervention detail" loaded={intervention} headingLevel={3}>
          {(i) => (
            <dl className="facts">
              <dt>Scope</dt>
              <dd>{cellLabel(i.scope)}</dd>
              <dt>Pattern</dt>
              <dd className="mono">{i.patternKey}</dd>
              <dt>Action</dt>
              <dd className="mono">{i.actionKey}</dd>
              <dt>State</dt>
              <dd>{i.state}</dd>
              <dt>Measured from</dt>
              <dd>{day(i.startDate)}</dd>
              <dt>Started / finished</dt>
              <dd>
                {when(i.startedAt)} / {when(i.finishedAt)}
              </dd>
              {i.description ? (
                <>
                  <dt>Description</dt>
                  <dd>{i.description}</dd>
                </>
              ) : null}
              {i.outcome ? (
                <>
                  <dt>Outcome</dt>
                  <dd>
                    {i.outcome}
                    {i.resultNote ? ` — ${i.resultNote}` : ""}
                  </dd>
                </>
              ) : null}
            </dl>
          )}
        </Section>
        <Section title="Effect so far" loaded={status} headingLevel={3}>
          {(s) =>
            s.latestEvidence ? (
              <>
                <dl className="facts">
                  <dt>Difference-in-differences</dt>
                  <dd>
                    {s.latestEvidence.didEstimate !== null ? (
                      <Estimate
                        value={s.latestEvidence.didEstimate}
                        low={s.latestEvidence.didCiLow}
                        high={s.latestEvidence.didCiHigh}
                        format={points}
                        note={s.latestEvidence.didNTotal !== null ? `${s.latestEvidence.didNTotal} claims` : undefined}
                      />
                    ) : (
                      <span className="muted">Not estimable (no comparison group or an empty cell)</span>
                    )}
                  </dd>
                  <dt>Treated claims</dt>
                  <dd>
                    {s.latestEvidence.treatedBeforeTrials} before, {s.latestEvidence.treatedAfterTrials} after
                  </dd>
                  <dt>Verdict</dt>
                  <dd>
                    <Verdict significant={s.latestEvidence.significant} enough={s.latestEvidence.enoughTrials} />
                  </dd>
                  <dt>Records</dt>
                  <dd>
                    {s.evidenceCount} (latest {when(s.latestEvidence.computedAt)})
                  </dd>
                </dl>
                <p className="statement">{s.latestEvidence.statement}</p>
              </>
            ) : (
              <Empty>
                No evidence yet ({s.state}): the effect is measured with evidence.calculateForIntervention once months
                after {day(s.startDate)} have data.
              </Empty>
            )
          }
        </Section>
      </div>
      <Section title="Evidence records of this intervention" loaded={evidence} headingLevel={3}>
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No evidence record yet.</Empty>
          ) : (
            <EvidenceTable
              items={d.items}
              caption="Evidence records of the intervention, newest first"
              action={(e) => (
                <SelectButton label="Show" what={`evidence record ${e.id}`} selected={recordId === e.id} onSelect={() => setRecordId(e.id)} />
              )}
            />
          )
        }
      </Section>
      {recordId !== null ? <EvidenceRecord key={recordId} id={recordId} /> : null}
    </section>
  );
}

function EvidenceRecord({ id }: { id: number }) {
  const record = useLoad(() => query("evidence.getById", { id }), [id]);
  return (
    <Section title={`Evidence record ${id}`} loaded={record} headingLevel={3}>
      {(e) => (
        <>
          <p className="statement">{e.statement}</p>
          <div className="scroll">
            <table className="grid">
              <caption>Denial rates by group and period (95 % Wilson intervals)</caption>
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col" className="num">
                    Before ({e.beforeFirstMonth}–{e.beforeLastMonth}, {e.monthsBefore} mo)
                  </th>
                  <th scope="col" className="num">
                    After ({e.afterFirstMonth}–{e.afterLastMonth}, {e.monthsAfter} mo)
                  </th>
                  <th scope="col" className="num">Change (95 % Newcombe)</th>
                </tr>
              </thead>
              <tbody>
                <ChangeRow label={`Treated: ${cellLabel(e.scope)}`} c={e.treated} />
                {e.control ? (
                  <ChangeRow label={`Comparison: untreated ${e.comparisonPayerClass ?? ""} cells`} c={e.control} />
                ) : (
                  <tr>
                    <th scope="row">Comparison</th>
                    <td colSpan={3} className="muted">
                      No comparison group
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <dl className="facts">
            <dt>Difference-in-differences</dt>
            <dd>
              {e.did ? (
                <>
                  <Estimate value={e.did.estimate} low={e.did.ciLow} high={e.did.ciHigh} format={points} />
                  <div className="muted">
                    SE {sePoints(e.did.standardError)}, z {e.did.z?.toFixed(2) ?? "—"}, p {pValue(e.did.pValue)};{" "}
                    {e.did.nTotal} claims in the four cells (at least {e.did.minTrials} per cell for a verdict)
                  </div>
                </>
              ) : (
                <span className="muted">Not estimable</span>
              )}
            </dd>
            <dt>Verdict</dt>
            <dd>
              <Verdict significant={e.significant} enough={e.enoughTrials} />
            </dd>
            <dt>Computed</dt>
            <dd>
              {when(e.computedAt)} from the snapshot of {when(e.snapshotBuiltAt)}
            </dd>
          </dl>
        </>
      )}
    </Section>
  );
}

function ChangeRow({ label, c }: { label: string; c: Change }) {
  const cell = (r: Change["before"]) =>
    r.rate === null ? (
      <span className="muted">{r.reason ?? "no claims"}</span>
    ) : (
      <>
        <Estimate value={r.rate} low={r.ciLow} high={r.ciHigh} format={rate} />
        <div className="muted">
          {r.events} of {r.trials} claims
        </div>
      </>
    );
  return (
    <tr>
      <th scope="row">{label}</th>
      <td className="num">{cell(c.before)}</td>
      <td className="num">{cell(c.after)}</td>
      <td className="num">
        {c.difference === null ? (
          <span className="muted">{c.reason ?? "—"}</span>
        ) : (
          <Estimate value={c.difference} low={c.ciLow} high={c.ciHigh} format={points} />
        )}
      </td>
    </tr>
  );
}
