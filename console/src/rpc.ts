// The console's one way to the platform: the real @trpc/client over /api/rpc, typed by the generated contract.
//
// Queries and JSON mutations travel batched (httpBatchLink); a mutation whose input is FormData (a file
// upload) goes alone through httpLink, as tRPC v11 sends files. The session token lives in memory and in
// sessionStorage (nothing else is stored in the browser: no PHI, no answers).
import {
  createTRPCUntypedClient,
  httpBatchLink,
  httpLink,
  isNonJsonSerializable,
  splitLink,
  TRPCClientError,
} from "@trpc/client";
import type { AnyTRPCRouter } from "@trpc/server";
import type { Procedures } from "./gen/contract";

export type Name = keyof Procedures;
type OfKind<K> = { [P in Name]: Procedures[P]["kind"] extends K ? P : never }[Name];
export type QueryName = OfKind<"query">;
export type MutationName = OfKind<"mutation">;
export type In<P extends Name> = Procedures[P]["input"];
export type Out<P extends Name> = Procedures[P]["output"];
/** The arguments of a call: none for a procedure without input. */
export type Args<P extends Name> = In<P> extends void ? [] : [input: In<P>];

const TOKEN_KEY = "dps.session";
let token: string | null = sessionStorage.getItem(TOKEN_KEY);
let clientId: number | null = null;

export function setSession(next: string | null): void {
  token = next;
  if (next) sessionStorage.setItem(TOKEN_KEY, next);
  else sessionStorage.removeItem(TOKEN_KEY);
}
export const hasSession = (): boolean => token !== null;
/** The client (hospital) the calls act for; null: the membership's default. Kept in memory only. */
export function setClient(id: number | null): void {
  clientId = id;
}

function headers(): Record<string, string> {
  const h: Record<string, string> = {};
  if (token) h.authorization = `Bearer ${token}`;
  if (clientId !== null) h["x-client-id"] = String(clientId);
  return h;
}

const client = createTRPCUntypedClient<AnyTRPCRouter>({
  links: [
    splitLink({
      condition: (op) => isNonJsonSerializable(op.input),
      true: httpLink({ url: "/api/rpc", headers }),
      false: httpBatchLink({ url: "/api/rpc", headers, maxURLLength: 4000 }),
    }),
  ],
});

/** Listeners told when the server says the session is gone (expired, revoked, logged out elsewhere). */
const signedOut = new Set<() => void>();
export function onSignedOut(listener: () => void): () => void {
  signedOut.add(listener);
  return () => signedOut.delete(listener);
}

function watch<T>(call: Promise<T>): Promise<T> {
  return call.catch((err: unknown) => {
    if (err instanceof TRPCClientError && err.data?.code === "UNAUTHORIZED" && token) {
      setSession(null);
      signedOut.forEach((listener) => listener());
    }
    throw err;
  });
}

// Identical queries in flight share one call: two panels asking the same thing in the same tick would
// otherwise put the call twice in one batch, which the server refuses for the whole batch.
const inFlight = new Map<string, Promise<unknown>>();

export function query<P extends QueryName>(name: P, ...args: Args<P>): Promise<Out<P>> {
  const key = `${name}\u0000${JSON.stringify(args[0] ?? null)}`;
  const pending = inFlight.get(key);
  if (pending) return pending as Promise<Out<P>>;
  const call = watch(client.query(name, args[0]) as Promise<Out<P>>).finally(() => inFlight.delete(key));
  inFlight.set(key, call);
  return call;
}

export function mutate<P extends MutationName>(name: P, ...args: Args<P>): Promise<Out<P>> {
  return watch(client.mutation(name, args[0]) as Promise<Out<P>>);
}

/** A file upload: the procedure's fields and its file as one FormData body. */
export function upload<P extends MutationName>(
  name: P,
  file: File,
  fields: Partial<Record<keyof In<P> & string, string>> = {},
): Promise<Out<P>> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) form.append(key, value as string);
  form.append("file", file, file.name);
  return watch(client.mutation(name, form) as Promise<Out<P>>);
}

/** What a person can act on: the server's message (never a stack), with its tRPC code. */
export function describe(err: unknown): string {
  if (err instanceof TRPCClientError) {
    const code = err.data?.code ? ` (${String(err.data.code)})` : "";
    return `${err.message}${code}`;
  }
  return err instanceof Error ? err.message : String(err);
}
