// A reference tRPC v11 server (the real @trpc/server standalone adapter) with procedures shaped
// like a few of the API's, so tests/e2e/test_trpc_reference_parity.py can send the same raw
// requests to both and compare what tRPC itself answers with what the API answers.
//
//   node reference_server.mjs <port> <maxBodyBytes>
import { initTRPC, TRPCError } from "@trpc/server";
import { createHTTPServer } from "@trpc/server/adapters/standalone";

const [port, maxBodySize] = process.argv.slice(2).map(Number);
const t = initTRPC.create({ isDev: false });

// Like the API's Pydantic input: an object with string fields, BAD_REQUEST otherwise.
const loginInput = (value) => {
  const ok = value && typeof value === "object" && !Array.isArray(value)
    && typeof value.email === "string" && typeof value.password === "string";
  if (!ok) throw new TRPCError({ code: "BAD_REQUEST", message: "Invalid input" });
  return value;
};
const unauthorized = () => {
  throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first" });
};

const router = t.router({
  system: t.router({
    ping: t.procedure.query(() => ({ pong: true })),
    version: t.procedure.query(() => ({ version: "reference", api: "trpc-v11" })),
  }),
  auth: t.router({
    login: t.procedure.input(loginInput).mutation(unauthorized),
    session: t.procedure.query(unauthorized),
    listApiKeys: t.procedure.query(unauthorized),
  }),
});

createHTTPServer({ router, maxBodySize, basePath: "/api/rpc/" }).listen(port, "127.0.0.1");
