import { type FormEvent, useState } from "react";
import { describe, mutate, setSession } from "../rpc";
import { ErrorNote } from "../ui";

export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await mutate("auth.login", { email, password });
      setSession(session.token);
      onSignedIn();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="sign-in" aria-labelledby="screen-title" aria-busy={false}>
      <h1 id="screen-title">Sign in to the denial console</h1>
      <form onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor="email">Email</label>
          <input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </div>
        <button type="submit" className="primary" disabled={busy} aria-busy={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        {busy ? <progress aria-label="Signing in" className="inline" /> : null}
        <ErrorNote error={error} />
      </form>
    </main>
  );
}
