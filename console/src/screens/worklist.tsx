// The worklist: humanAttention's ranked queue, its filters, and the `why` of each rank on demand.
import { type FormEvent, useState } from "react";
import type { Me } from "../app";
import { href } from "../router";
import { type In, type Out, query } from "../rpc";
import { DaysLeft, Empty, ErrorNote, Field, Loading, money, pct, Screen, useLoad, usePages } from "../ui";

type Filters = NonNullable<In<"humanAttention.queue">>;
type Item = Out<"humanAttention.queue">["items"][number];
const STATES = ["open", "triaged", "in_appeal", "awaiting_payer"] as const;

export function WorklistScreen(_props: { me: Me }) {
  const [filters, setFilters] = useState<Filters>({ limit: 50 });
  const { first: queue, more, loadMore } = usePages<Item, Out<"humanAttention.queue">>(
    (cursor) => query("humanAttention.queue", cursor ? { ...filters, cursor } : filters),
    [JSON.stringify(filters)],
  );
  const items = [...(queue.data?.items ?? []), ...more];
  return (
    <Screen title="Worklist" busy={queue.loading && !queue.data}>
      <FilterForm onApply={setFilters} />
      {queue.loading && !queue.data ? <Loading label="Ranking the open cases" /> : null}
      <ErrorNote error={queue.error} />
      {queue.data ? (
        <>
          <p className="muted">
            {items.length} cases shown, ranked as of {queue.data.asOf.slice(0, 10)} by expected recovery per hour of
            work and the days left before the appeal deadline.
          </p>
          {items.length === 0 ? (
            <Empty>No open case matches these filters.</Empty>
          ) : (
            <table className="grid">
              <caption className="visually-hidden">Cases needing attention, highest rank first</caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Case</th>
                  <th scope="col">Payer</th>
                  <th scope="col">Denial</th>
                  <th scope="col" className="num">At stake</th>
                  <th scope="col" className="num">Expected recovery</th>
                  <th scope="col" className="num">P(overturn)</th>
                  <th scope="col">Deadline</th>
                  <th scope="col">Why this rank</th>
                </tr>
              </thead>
              <tbody>
                {items.map((item, i) => (
                  <Row key={item.caseId} item={item} rank={i + 1} />
                ))}
              </tbody>
            </table>
          )}
          {loadMore ? (
            <button type="button" className="secondary" onClick={() => void loadMore()}>
              Load more
            </button>
          ) : null}
        </>
      ) : null}
    </Screen>
  );
}

function Row({ item, rank }: { item: Item; rank: number }) {
  return (
    <tr>
      <td>{rank}</td>
      <td>
        <a href={href({ screen: "case", id: item.caseId })}>Case {item.caseId}</a>
        <div className="muted">{item.state.replace("_", " ")}</div>
      </td>
      <td>{item.payer}</td>
      <td>
        {item.denialCategory ?? "—"}
        {item.carc ? <div className="muted">CARC {item.carc}</div> : null}
      </td>
      <td className="num">{money(item.amountAtStake)}</td>
      <td className="num">{money(item.expectedRecovery)}</td>
      <td className="num">
        {pct(item.overturnProbability, 0)}
        <div className="muted">{item.probabilitySource === "model" ? "model" : "prior"}</div>
      </td>
      <td>
        <DaysLeft days={item.daysLeft} />
        {item.deadlineAssumed ? <div className="muted">assumed rule</div> : null}
      </td>
      <td>
        <Why caseId={item.caseId} />
      </td>
    </tr>
  );
}

function Why({ caseId }: { caseId: number }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Why?</summary>
      {open ? <WhyBody caseId={caseId} /> : null}
    </details>
  );
}

function WhyBody({ caseId }: { caseId: number }) {
  const why = useLoad(() => query("humanAttention.why", { caseId }), [caseId]);
  if (why.loading) return <Loading label="Explaining the rank" />;
  if (why.error || !why.data) return <ErrorNote error={why.error} />;
  const d = why.data;
  return (
    <div className="why">
      <ul>
        {d.explanation.map((line) => (
          <li key={line}>{line}</li>
        ))}
        {d.notInQueueBecause.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <p className="muted">
        P(overturn) {pct(d.probability.mean, 0)} (95 % {pct(d.probability.low, 0)}–{pct(d.probability.high, 0)}, from{" "}
        {d.probability.basisN} decided appeals at the {d.probability.basisLevel} level)
      </p>
    </div>
  );
}

function FilterForm({ onApply }: { onApply: (f: Filters) => void }) {
  const [payer, setPayer] = useState("");
  const [category, setCategory] = useState("");
  const [state, setState] = useState("");
  const [minAmount, setMinAmount] = useState("");
  const [mine, setMine] = useState(false);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    onApply({
      limit: 50,
      payer: payer.trim() || null,
      category: category.trim() || null,
      state: (STATES as readonly string[]).includes(state) ? (state as Filters["state"]) : null,
      minAmount: minAmount.trim() || null,
      owner: mine ? "me" : null,
    });
  };
  return (
    <form className="filters" onSubmit={apply} aria-label="Worklist filters">
      <Field label="Payer">{(id) => <input id={id} value={payer} onChange={(e) => setPayer(e.target.value)} />}</Field>
      <Field label="Denial category">
        {(id) => <input id={id} value={category} onChange={(e) => setCategory(e.target.value)} />}
      </Field>
      <Field label="State">
        {(id) => (
          <select id={id} value={state} onChange={(e) => setState(e.target.value)}>
            <option value="">Any open state</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s.replace("_", " ")}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="At least ($)">
        {(id) => <input id={id} inputMode="decimal" value={minAmount} onChange={(e) => setMinAmount(e.target.value)} />}
      </Field>
      <div className="field checkbox">
        <input id="mine" type="checkbox" checked={mine} onChange={(e) => setMine(e.target.checked)} />
        <label htmlFor="mine">Only my cases</label>
      </div>
      <button type="submit" className="primary">
        Apply filters
      </button>
    </form>
  );
}
