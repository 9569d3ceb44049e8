"""Another tenant's sign-in and write latency while one request of each issue-23 attack is in flight.

What: a real server (`launcher.cli migrate`, `bootstrap`, `serve`: uvicorn on 127.0.0.1, SQLite, a
fresh DATA_DIR in a temporary directory) and two tenants made through the API the way an operator
makes them: the bootstrap platform admin creates an attacker's organization and a victim's
organization and invites one person into each (the invitation token is taken from the answer of
`organizations.inviteMember` when it carries one, else from the newest mail file in DATA_DIR/outbox
addressed to that person), each accepts with `auth.acceptInvite` and signs in. Then, for each attack
of issue 23 at the issue's size, one request is sent by the attacker (anonymous for `system.contract`)
while two victim threads loop on the victim's sign-in (`auth.login`) and a cheap write of the
victim's own tenant (`cases.open`, a new claim key each time: a write transaction and an audit event).
The same two probes run first with nothing else in flight ("idle"), in the same run.

Attacks (sizes from the issue):

- `migrationFactory.planMigration` with a 60 KB header line (`,"a` repeated: csv.Sniffer's quote
  regex backtracks over the whole line at every quote);
- `evidenceControl.attach` of an 80 KB text file (`mrn-` repeated: the member-id look-ahead of the
  redaction scans the rest of the run after every label);
- `evidenceControl.attach` of a 2.7 MB PDF of 30,000 blank pages (written by hand as the smallest
  valid PDF: inherited MediaBox, one empty dictionary per page, so it stays under the object cap;
  pypdf reads all 30,000 pages);
- `evidenceControl.attach` of a ~1.7 MB DOCX whose document.xml is ~95 MiB of empty `<w:p/>` /
  `<w:r/>` elements (within the archive's entry, ratio and size caps);
- `drafts.diff` of two 48 KB versions (3-character lines; the second swaps every pair of lines, so
  difflib finds ~8,000 one-line matches, each after a scan of the rest);
- `appealAssembly.render` of a packet whose letter holds one 4,000-character word;
- an anonymous batch of `system.contract` x 20.

Each attack request has a bounded timeout (`--timeout`, 120 s); one that does not answer in time is
printed as "did not finish in N s" and the server is restarted (on the same DATA_DIR) before the
next attack, since the worker thread would go on holding the lock. An attack answered with an error
is fine: its code is printed (after the fixes most answer BAD_REQUEST at once). The ratio is the
victim's p50 under attack over its idle p50 (and max over idle max). Each victim thread takes at
least one sample under attack; a sample counts when it started while the attack was in flight.

    .venv/bin/python bench/attacks.py                       # every attack, 120 s cap each
    .venv/bin/python bench/attacks.py --only diff --only render --timeout 60
"""

from __future__ import annotations

import argparse
import email
import email.policy
import io
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
ADMIN_EMAIL = "admin@attacks.bench"
ADMIN_PASSWORD = "bench attacks correct horse battery"
ATTACKER_EMAIL = "attacker@attacks.bench"
VICTIM_EMAIL = "victim@attacks.bench"
PERSON_PASSWORD = "bench person correct horse battery"
INVITE_TOKEN = re.compile(r"dpi_[A-Za-z0-9_-]{20,}")


# --- the server --------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """`launcher.cli serve` in a subprocess on a fresh DATA_DIR; restartable on the same data."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATA_DIR", "PORT")}
        self.env.update(
            DATA_DIR=str(data_dir),
            BOOTSTRAP_ADMIN_EMAIL=ADMIN_EMAIL,
            BOOTSTRAP_ADMIN_PASSWORD=ADMIN_PASSWORD,
            PYTHONPATH=str(REPO),
        )
        self.proc: subprocess.Popen | None = None
        self.base = ""

    def setup(self) -> None:
        for command in ("migrate", "bootstrap"):
            done = subprocess.run(
                [sys.executable, "-m", "launcher.cli", command],
                check=False,
                cwd=REPO,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            if done.returncode != 0:
                raise SystemExit(f"launcher.cli {command} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")

    def start(self) -> None:
        port = _free_port()
        log = (self.data_dir / "server.log").open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "launcher.cli", "serve", "--port", str(port)],
            cwd=REPO,
            env=self.env,
            stdout=log,
            stderr=log,
        )
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/api/rpc/system.ping", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise SystemExit("the server did not start; see " + str(self.data_dir / "server.log"))

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # a worker thread still busy with an attack does not stop on SIGTERM
            self.proc.wait(timeout=20)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


# --- calling the API ---------------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    body: Any
    seconds: float
    size: int = 0

    @property
    def code(self) -> str:
        body = self.body[0] if isinstance(self.body, list) and self.body else self.body
        if isinstance(body, dict) and "error" in body:
            return str(body["error"]["data"]["code"])
        return "ok" if self.status == 200 else f"HTTP {self.status}"

    def ok(self) -> Any:
        """The answer's data; stops the bench with the error when the call failed."""
        if self.code != "ok":
            message = self.body["error"]["message"] if isinstance(self.body, dict) else self.body
            raise SystemExit(f"unexpected answer {self.code}: {str(message)[:300]}")
        return self.body["result"]["data"]


def _headers(token: str | None, client_id: int | None) -> dict[str, str]:
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if client_id is not None:
        headers["X-Client-Id"] = str(client_id)
    return headers


def call(
    http: httpx.Client,
    kind: str,
    name: str,
    payload: Any = None,
    *,
    token: str | None = None,
    client_id: int | None = None,
    files: dict[str, Any] | None = None,
    timeout: float = 120.0,
) -> Answer:
    """One procedure call: a query by GET (`?input=`), a mutation by POST (JSON, or multipart with files)."""
    headers = _headers(token, client_id)
    started = time.perf_counter()
    if kind == "query":
        params = {} if payload is None else {"input": json.dumps(payload)}
        r = http.get(f"/api/rpc/{name}", params=params, headers=headers, timeout=timeout)
    elif files is not None:
        form = {k: str(v) for k, v in (payload or {}).items()}
        r = http.post(f"/api/rpc/{name}", files=files, data=form, headers=headers, timeout=timeout)
    else:
        r = http.post(f"/api/rpc/{name}", json=payload or {}, headers=headers, timeout=timeout)
    seconds = time.perf_counter() - started
    try:
        body = r.json()
    except ValueError:
        body = r.text[:300]
    return Answer(r.status_code, body, seconds, len(r.content))


# --- the two tenants ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Person:
    email: str
    token: str
    client_id: int


def _outbox_token(data_dir: Path, address: str, wait_seconds: float = 30.0) -> str:
    """The invitation token in the newest mail file of DATA_DIR/outbox addressed to `address`."""
    outbox = data_dir / "outbox"
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        mails = sorted(outbox.rglob("*.eml"), key=lambda p: p.stat().st_mtime, reverse=True) if outbox.exists() else []
        for path in mails:
            message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            if address.lower() not in str(message.get("To", "")).lower():
                continue
            for part in message.walk():
                if part.get_content_maintype() == "text":
                    found = INVITE_TOKEN.search(part.get_content())
                    if found:
                        return found.group()
        time.sleep(0.2)
    raise SystemExit(f"no invitation token for {address} in the answer nor in {outbox}")


def _person(http: httpx.Client, data_dir: Path, admin: str, org: dict[str, Any], address: str, role: str) -> Person:
    invited = call(
        http,
        "mutation",
        "organizations.inviteMember",
        {"email": address, "role": role},
        token=admin,
        client_id=org["firstClientId"],
    ).ok()
    token = invited.get("inviteToken") or _outbox_token(data_dir, address)
    call(http, "mutation", "auth.acceptInvite", {"token": token, "password": PERSON_PASSWORD}).ok()
    session = call(http, "mutation", "auth.login", {"email": address, "password": PERSON_PASSWORD}).ok()
    return Person(address, session["token"], org["firstClientId"])


def make_tenants(http: httpx.Client, data_dir: Path) -> tuple[Person, Person]:
    admin = call(http, "mutation", "auth.login", {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}).ok()["token"]
    orgs = {}
    for who in ("Attacker", "Victim"):
        body = {"name": f"{who} Health System", "firstClientName": f"{who} General Hospital"}
        orgs[who] = call(http, "mutation", "organizations.create", body, token=admin).ok()
    attacker = _person(http, data_dir, admin, orgs["Attacker"], ATTACKER_EMAIL, "admin")
    victim = _person(http, data_dir, admin, orgs["Victim"], VICTIM_EMAIL, "specialist")
    return attacker, victim


def open_case(http: httpx.Client, who: Person, timeout: float = 120.0) -> Answer:
    body = {"claimKey": f"PCN-{uuid.uuid4().hex[:12]}", "payer": "NORTHWIND HEALTH PLAN", "amountAtStake": "125.00"}
    return call(http, "mutation", "cases.open", body, token=who.token, client_id=who.client_id, timeout=timeout)


# --- the attacks' payloads ---------------------------------------------------------------------------------


def migration_csv(header_bytes: int = 60_000) -> bytes:
    """A denials export whose header line is `header_bytes` long: the real columns, then `,"a` cells."""
    header = "Claim Number,Payer,Denied Amount,Billed Amount"
    header += ',"a' * ((header_bytes - len(header)) // 3)
    return (header + "\nPCN-1,Acme Health,10.00,100.00\n").encode()


def redaction_text(size: int = 80_000) -> bytes:
    """Plain text of `size` bytes that is one long run of member-id labels without a digit."""
    return ("mrn-" * (size // 4)).encode()


def blank_pdf(pages: int = 30_000) -> bytes:
    """A valid PDF of `pages` blank pages, as small as a PDF gets (about 90 bytes a page)."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []

    def obj(number: int, body: bytes) -> None:
        offsets.append(len(out))
        out.extend(b"%d 0 obj\n%s\nendobj\n" % (number, body))

    kids = b" ".join(b"%d 0 R" % (3 + i) for i in range(pages))
    obj(1, b"<</Type/Catalog/Pages 2 0 R>>")
    obj(2, b"<</Type/Pages/Count %d/MediaBox[0 0 612 792]/Kids[%s]>>" % (pages, kids))
    for i in range(pages):
        obj(3 + i, b"<</Type/Page/Parent 2 0 R/Resources<<>>>>")
    xref = len(out)
    out.extend(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
    out.extend(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.extend(b"trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
    return bytes(out)


_CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
    b'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    b'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/'
    b'document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.'
    b'main+xml"/></Types>'
)
_PACKAGE_RELS = (
    b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
    b'2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    b'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)


def docx_bomb(xml_bytes: int = 95 * 1_048_576, seed: int = 23) -> bytes:
    """A DOCX whose document.xml is `xml_bytes` of empty elements. A biased random mix of two elements keeps
    the entry's compression ratio (~56) under the archive check's 200 and the file near 1.7 MB."""
    rnd = random.Random(seed)
    tokens = (b"<w:p/>", b"<w:r/>")
    blocks = [b"".join(tokens[rnd.random() < 0.065] for _ in range(4096)) for _ in range(256)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _PACKAGE_RELS)
        with archive.open("word/document.xml", "w") as xml:
            xml.write(
                b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
                b'wordprocessingml/2006/main"><w:body>'
            )
            written = 0
            while written < xml_bytes:
                block = blocks[rnd.randrange(len(blocks))]
                xml.write(block)
                written += len(block)
            xml.write(b"</w:body></w:document>")
    return buffer.getvalue()


def diff_versions(size: int = 48_000) -> tuple[str, str]:
    """Two texts of `size` bytes: distinct 3-character lines, and the same lines with each pair swapped."""
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
    lines = [alphabet[i % 36] + alphabet[i // 36 % 36] + alphabet[i // 1296 % 36] + "\n" for i in range(size // 4)]
    swapped = [line for i in range(0, len(lines) - 1, 2) for line in (lines[i + 1], lines[i])]
    return "".join(lines), "".join(swapped)


# --- the attacks -------------------------------------------------------------------------------------------


@dataclass
class Attack:
    key: str
    label: str
    # Sets up what the attack needs (cases, drafts, packets; not measured) and returns the attack request.
    prepare: Callable[[httpx.Client, Person], Callable[[httpx.Client, float], Answer]]


def _prepare_migration(http: httpx.Client, who: Person) -> Callable[[httpx.Client, float], Answer]:
    data = migration_csv()
    fields = {"kind": "denials", "sourceSystem": "Legacy PM 4.2"}

    def send(client: httpx.Client, timeout: float) -> Answer:
        files = {"file": ("denials.csv", data, "text/csv")}
        return call(
            client,
            "mutation",
            "migrationFactory.planMigration",
            fields,
            token=who.token,
            client_id=who.client_id,
            files=files,
            timeout=timeout,
        )

    return send


def _prepare_file(
    make: Callable[[], bytes], filename: str, media: str
) -> Callable[[httpx.Client, Person], Callable[[httpx.Client, float], Answer]]:
    """An evidence attachment of the bytes `make()` builds, to a new case of the attacker's tenant."""

    def prepare(http: httpx.Client, who: Person) -> Callable[[httpx.Client, float], Answer]:
        data = make()
        case_id = open_case(http, who).ok()["case"]["id"]

        def send(client: httpx.Client, timeout: float) -> Answer:
            files = {"file": (filename, data, media)}
            fields = {"caseId": case_id, "title": "Supporting document"}
            return call(
                client,
                "mutation",
                "evidenceControl.attach",
                fields,
                token=who.token,
                client_id=who.client_id,
                files=files,
                timeout=timeout,
            )

        return send

    return prepare


def _prepare_diff(http: httpx.Client, who: Person) -> Callable[[httpx.Client, float], Answer]:
    first, second = diff_versions()
    case_id = open_case(http, who).ok()["case"]["id"]
    auth = {"token": who.token, "client_id": who.client_id}
    draft = call(http, "mutation", "drafts.create", {"caseId": case_id, "kind": "note", "content": first}, **auth).ok()
    call(http, "mutation", "drafts.update", {"id": draft["id"], "content": second}, **auth).ok()

    def send(client: httpx.Client, timeout: float) -> Answer:
        body = {"id": draft["id"], "fromVersion": 1, "toVersion": 2}
        return call(client, "query", "drafts.diff", body, timeout=timeout, **auth)

    return send


def _prepare_render(http: httpx.Client, who: Person) -> Callable[[httpx.Client, float], Answer]:
    case_id = open_case(http, who).ok()["case"]["id"]
    auth = {"token": who.token, "client_id": who.client_id}
    letter = "To whom it may concern,\n\n" + "A" * 4000 + "\n\nSincerely,\nBilling office\n"
    packet = call(
        http, "mutation", "appealAssembly.create", {"caseId": case_id, "letterText": letter, "documentIds": []}, **auth
    ).ok()

    def send(client: httpx.Client, timeout: float) -> Answer:
        return call(client, "query", "appealAssembly.render", {"id": packet["id"]}, timeout=timeout, **auth)

    return send


def _prepare_contract(http: httpx.Client, who: Person) -> Callable[[httpx.Client, float], Answer]:
    path = ",".join(["system.contract"] * 20)

    def send(client: httpx.Client, timeout: float) -> Answer:
        started = time.perf_counter()
        r = client.get(f"/api/rpc/{path}", params={"batch": "1"}, timeout=timeout)  # no token: anonymous
        return Answer(r.status_code, r.json(), time.perf_counter() - started, len(r.content))

    return send


ATTACKS: tuple[Attack, ...] = (
    Attack("migration", "planMigration, 60 KB header line", _prepare_migration),
    Attack("redaction", "attach 80 KB text (redaction)", _prepare_file(redaction_text, "notes.txt", "text/plain")),
    Attack("pdf", "attach 2.7 MB PDF, 30,000 pages", _prepare_file(blank_pdf, "scan.pdf", "application/pdf")),
    Attack(
        "docx",
        "attach 1.7 MB DOCX bomb",
        _prepare_file(
            docx_bomb, "letter.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        ),
    ),
    Attack("diff", "drafts.diff, two 48 KB versions", _prepare_diff),
    Attack("render", "render, one 4,000-char word", _prepare_render),
    Attack("contract", "anonymous system.contract x20", _prepare_contract),
)


# --- measuring ---------------------------------------------------------------------------------------------


@dataclass
class Samples:
    seconds: list[float] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)

    def p50(self) -> float:
        return statistics.median(self.seconds) if self.seconds else float("nan")

    def max(self) -> float:
        return max(self.seconds) if self.seconds else float("nan")

    def errors(self) -> str:
        bad = [c for c in self.codes if c != "ok"]
        return f" ({len(bad)} of {len(self.codes)} {'/'.join(sorted(set(bad)))})" if bad else ""


def _probe_loop(probe: Callable[[], Answer], out: Samples, running: Callable[[], bool], limit: int) -> None:
    """Samples while `running()` says so (at least one, at most `limit`)."""
    while len(out.seconds) < limit and (not out.seconds or running()):
        started = time.perf_counter()
        try:
            code = probe().code
        except httpx.TimeoutException:
            code = "timeout"
        out.seconds.append(time.perf_counter() - started)
        out.codes.append(code)


def victim_probes(base: str, victim: Person, timeout: float) -> tuple[Callable[[], Answer], Callable[[], Answer]]:
    sign_in_http = httpx.Client(base_url=base)
    write_http = httpx.Client(base_url=base)

    def sign_in() -> Answer:
        body = {"email": victim.email, "password": PERSON_PASSWORD}
        return call(sign_in_http, "mutation", "auth.login", body, timeout=timeout)

    def write() -> Answer:
        return open_case(write_http, victim, timeout=timeout)

    return sign_in, write


def measure(
    probes: tuple[Callable[[], Answer], Callable[[], Answer]], running: Callable[[], bool], limit: int
) -> tuple[Samples, Samples]:
    """The two probes looped side by side, each in its own thread, while `running()`."""
    results = (Samples(), Samples())
    threads = [
        threading.Thread(target=_probe_loop, args=(probe, out, running, limit), daemon=True)
        for probe, out in zip(probes, results, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@dataclass
class Outcome:
    attack: Attack
    answer: str
    seconds: float | None  # None: no answer within the timeout
    size: int
    idle: tuple[Samples, Samples]
    attacked: tuple[Samples, Samples]


def run_attack(server: Server, attack: Attack, attacker: Person, victim: Person, args: argparse.Namespace) -> Outcome:
    with httpx.Client(base_url=server.base, timeout=120) as http:
        send = attack.prepare(http, attacker)
    probes = victim_probes(server.base, victim, args.timeout)
    idle = measure(probes, lambda: True, args.idle_samples)
    result: dict[str, Any] = {}

    def attack_thread() -> None:
        with httpx.Client(base_url=server.base) as client:
            try:
                result["answer"] = send(client, args.timeout)
            except httpx.TimeoutException:
                result["timeout"] = True

    thread = threading.Thread(target=attack_thread, daemon=True)
    thread.start()
    time.sleep(args.head_start)  # the body is on its way and the server at work
    attacked = measure(probes, thread.is_alive, args.max_samples)
    thread.join()
    answer: Answer | None = result.get("answer")
    if answer is None:
        server.restart()  # the server's worker thread is still busy with the attack
        return Outcome(attack, f"did not finish in {args.timeout:.0f} s", None, 0, idle, attacked)
    return Outcome(attack, answer.code, answer.seconds, answer.size, idle, attacked)


def _ratio(attacked: float, idle: float) -> str:
    return f"{attacked / idle:.1f}x" if idle > 0 else "n/a"


def _cell(samples: Samples) -> str:
    return f"{samples.p50():.3f} / {samples.max():.3f}{samples.errors()}"


def report_line(o: Outcome) -> str:
    took = f"{o.seconds:.2f}" if o.seconds is not None else "> timeout"
    size = f", {o.size / 1e6:.1f} MB answer" if o.size > 100_000 else ""
    cells = [f"{o.attack.label}", f"{o.answer}{size}", took]
    for idle, attacked in zip(o.idle, o.attacked, strict=True):
        ratio = f"{_ratio(attacked.p50(), idle.p50())} / {_ratio(attacked.max(), idle.max())}"
        cells += [_cell(idle), _cell(attacked), f"{ratio} (n={len(attacked.seconds)})"]
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| attack | answer | attack s | sign-in p50 / max s, idle | sign-in under attack | ratio p50 / max"
    " | write p50 / max s, idle | write under attack | ratio p50 / max |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=[a.key for a in ATTACKS], help="run only these attacks")
    parser.add_argument("--timeout", type=float, default=120.0, help="cap of each attack request, seconds")
    parser.add_argument("--idle-samples", type=int, default=5, help="victim samples per probe with no attack")
    parser.add_argument("--max-samples", type=int, default=1000, help="victim samples per probe under attack, at most")
    parser.add_argument("--head-start", type=float, default=0.3, help="seconds between the attack and the probes")
    args = parser.parse_args()
    chosen = [a for a in ATTACKS if not args.only or a.key in args.only]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="attacks-bench-") as tmp:
        data_dir = Path(tmp) / "data"
        server = Server(data_dir)
        server.setup()
        server.start()
        try:
            with httpx.Client(base_url=server.base, timeout=120) as http:
                attacker, victim = make_tenants(http, data_dir)
            print(f"server {server.base} (SQLite, DATA_DIR {data_dir}); attack timeout {args.timeout:.0f} s")
            print("victim probes: auth.login and cases.open of another organization, side by side\n")
            print(HEADER, flush=True)
            for attack in chosen:
                print(report_line(run_attack(server, attack, attacker, victim, args)), flush=True)
        finally:
            server.stop()
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
