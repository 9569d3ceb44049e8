// Drives the live API with the real, unmodified @trpc/client (vanilla client, httpBatchLink).
//
//   node trpc_e2e.mjs <baseUrl> <email> <password>
//
// Prints one JSON summary on stdout; tests/e2e/test_trpc_client.py asserts every value.
// Anything unexpected (a call that should succeed failing, or the reverse) exits 1
// with the reason on stderr, so a failure here is never silent.
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";

const [baseUrl, email, password] = process.argv.slice(2);
if (!baseUrl || !email || !password) {
  console.error("usage: node trpc_e2e.mjs <baseUrl> <email> <password>");
  process.exit(2);
}

// Every HTTP request the links make goes through here, so the test can prove batching.
const requests = [];
const countingFetch = async (url, init) => {
  const res = await fetch(url, init);
  requests.push({ method: init?.method ?? "GET", path: new URL(String(url)).pathname, status: res.status });
  return res;
};

function clientFor({ token, clientId } = {}) {
  return createTRPCClient({
    links: [
      httpBatchLink({
        url: `${baseUrl}/api/rpc`,
        fetch: countingFetch,
        headers() {
          const h = {};
          if (token) h.authorization = `Bearer ${token}`;
          if (clientId !== undefined) h["x-client-id"] = String(clientId);
          return h;
        },
      }),
    ],
  });
}

function describeError(err) {
  if (!(err instanceof TRPCClientError)) {
    throw new Error(`expected a TRPCClientError, got ${err?.constructor?.name}: ${err?.message}`);
  }
  return {
    code: err.data?.code ?? null,
    httpStatus: err.data?.httpStatus ?? null,
    path: err.data?.path ?? null,
    message: err.message,
    issues: err.data?.issues ?? null,
    // tRPC's shape.code: the JSON-RPC number.
    jsonRpcCode: err.shape?.code ?? null,
  };
}

async function expectError(promise, what) {
  try {
    const value = await promise;
    throw new Error(`${what}: expected an error, got ${JSON.stringify(value)}`);
  } catch (err) {
    if (err instanceof TRPCClientError) return describeError(err);
    throw err;
  }
}

const summary = {};
const anonymous = clientFor();

// A query without input.
summary.ping = await anonymous.system.ping.query();

// A mutation with input: sign in with the bootstrap admin.
const before = requests.length;
const login = await anonymous.auth.login.mutate({ email, password });
summary.login = {
  tokenPrefix: String(login.token).slice(0, 4),
  userId: login.userId,
  expiresAt: login.expiresAt,
  request: requests[before],
};

// Authenticated queries.
const admin = clientFor({ token: login.token });
summary.session = await admin.auth.session.query();
summary.securityContext = await admin.securityContext.current.query();
const clientId = summary.securityContext.clientId;
const inClient = clientFor({ token: login.token, clientId });

// A batch: several queries in one tick travel as one HTTP request.
const beforeBatch = requests.length;
const [version, session, clients, security] = await Promise.all([
  inClient.system.version.query(),
  inClient.auth.session.query(),
  inClient.organizations.listClients.query(),
  inClient.securityContext.current.query(),
]);
summary.batch = {
  requests: requests.slice(beforeBatch),
  version,
  sessionEmail: session.email,
  clientIds: clients.map((c) => c.id),
  securityClientId: security.clientId,
};

// A mixed batch: one call succeeds, one fails; still one request (HTTP 207), each call settles alone.
const beforeMixed = requests.length;
const mixed = await Promise.allSettled([
  inClient.system.ping.query(),
  inClient.nothing.here.query(),
]);
summary.mixedBatch = {
  requests: requests.slice(beforeMixed),
  outcomes: mixed.map((m) => (m.status === "fulfilled" ? { ok: true } : { ok: false, ...describeError(m.reason) })),
};

// A mutation with input, in the selected client.
const name = `E2E Facility ${Date.now()}`;
summary.addClient = { requestedName: name, result: await inClient.organizations.addClient.mutate({ name }) };
summary.clientsAfter = (await inClient.organizations.listClients.query()).map((c) => c.name);

// Error cases, as a tRPC app sees them.
summary.errors = {
  unknownProcedure: await expectError(inClient.claims.doesNotExist.query(), "unknown procedure"),
  invalidInput: await expectError(inClient.organizations.addClient.mutate({ name: 42 }), "invalid input"),
  unauthenticated: await expectError(anonymous.auth.session.query(), "unauthenticated call"),
  badToken: await expectError(clientFor({ token: "dps_not-a-real-session" }).auth.session.query(), "bad token"),
  wrongPassword: await expectError(anonymous.auth.login.mutate({ email, password: `${password}-wrong` }), "wrong password"),
};
summary.totalRequests = requests.length;

process.stdout.write(JSON.stringify(summary) + "\n");
