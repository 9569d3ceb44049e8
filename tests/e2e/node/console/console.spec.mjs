// The console's main flows in Chromium, as two people: a specialist works a denied case from the worklist
// to an appeal packet, a second person approves its submission, the specialist submits it and records the
// payer's decision. Every screen is screenshotted (CONSOLE_SHOTS) and checked with axe-core (WCAG 2.1 A/AA:
// no serious or critical violation). tests/e2e/test_make_up.py starts the platform, creates the two
// members, and checks afterwards through the API what the browser did.
import { writeFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (tests/e2e/test_make_up.py sets it)`);
  return value;
};
const SHOTS = env("CONSOLE_SHOTS");
const SPECIALIST = { email: env("CONSOLE_SPECIALIST_EMAIL"), password: env("CONSOLE_SPECIALIST_PASSWORD") };
const APPROVER = { email: env("CONSOLE_APPROVER_EMAIL"), password: env("CONSOLE_APPROVER_PASSWORD") };
const ADMIN = { email: env("CONSOLE_ADMIN_EMAIL"), password: env("CONSOLE_ADMIN_PASSWORD") };
const EVIDENCE = env("CONSOLE_EVIDENCE_PDF");
const UPLOAD_CSV = env("CONSOLE_UPLOAD_CSV");
const TABLET = { width: 820, height: 1180 };

const summary = { screens: {}, violations: {}, urls: [], storage: [], consoleErrors: [] };
test.afterAll(() => writeFileSync(env("CONSOLE_SUMMARY"), JSON.stringify(summary, null, 1)));

/** Waits for the screen's first answers, screenshots it, and records axe's serious/critical findings. */
async function look(page, name) {
  await expect(page.locator('main[aria-busy="false"]')).toBeVisible();
  await expect(page.locator("progress")).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  summary.violations[name] = axe.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
  summary.screens[name] = await page.locator("h1").first().innerText();
  summary.urls.push(new URL(page.url()).hash);
  summary.storage.push(
    await page.evaluate(() => ({
      session: Object.keys(sessionStorage),
      local: Object.keys(localStorage),
    })),
  );
}

async function signIn(page, who) {
  await page.goto("/");
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
}

function watchErrors(page, who) {
  page.on("pageerror", (err) => summary.consoleErrors.push(`${who}: ${err.message}`));
  page.on("console", (msg) => msg.type() === "error" && summary.consoleErrors.push(`${who}: ${msg.text()}`));
}

test("a specialist appeals a denial, a second person approves it, the outcome closes the case", async ({ browser }) => {
  const specialistContext = await browser.newContext();
  const page = await specialistContext.newPage();
  watchErrors(page, "specialist");

  // Sign in (the form is a screen of its own).
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Sign in to the denial console" })).toBeVisible();
  await look(page, "01-sign-in");
  await page.getByLabel("Email").fill(SPECIALIST.email);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toContainText(/UNAUTHORIZED/);
  await page.getByLabel("Password").fill(SPECIALIST.password);
  await page.getByRole("button", { name: "Sign in" }).click();

  // The worklist: filtered to open cases; the rank's explanation on demand.
  await expect(page.getByRole("heading", { name: "Worklist" })).toBeVisible();
  await page.getByLabel("State").selectOption("open");
  await page.getByRole("button", { name: "Apply filters" }).click();
  const firstRow = page.locator("table.grid tbody tr").first();
  await expect(firstRow).toBeVisible();
  await firstRow.getByText("Why?").click();
  await expect(firstRow.locator(".why li").first()).toBeVisible();
  await look(page, "02-worklist");

  // Open the case.
  const caseLink = firstRow.getByRole("link", { name: /^Case \d+$/ });
  const caseId = Number((await caseLink.innerText()).replace("Case ", ""));
  summary.caseId = caseId;
  await caseLink.click();
  await expect(page.getByRole("heading", { name: `Case ${caseId}` })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Deadlines" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Remittance history" })).toBeVisible();
  await look(page, "03-case");

  // Add evidence: a PDF, as the first missing kind the completeness check names.
  const evidence = page.getByRole("form", { name: "Add evidence" });
  await evidence.getByLabel("Document file").setInputFiles(EVIDENCE);
  await evidence.getByLabel("Document title").fill("Signed physician letter");
  await evidence.getByLabel("Document kind").selectOption("physician_letter");
  await evidence.getByRole("button", { name: "Attach document" }).click();
  await expect(evidence.getByRole("status")).toContainText("Attached “Signed physician letter”");
  await expect(page.getByRole("table", { name: "Documents" })).toContainText("Signed physician letter");

  // A note and a payer call.
  await page.getByLabel("New note").fill("Called provider relations; letter on file.");
  await page.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByRole("region", { name: "Notes" })).toContainText("Called provider relations; letter on file.");
  await page.getByLabel("What the payer said").fill("Representative confirmed an appeal is required.");
  await page.getByLabel("Outcome of the contact").selectOption("appeal_required");
  await page.getByLabel("Call reference").fill("REF-4417");
  await page.getByRole("button", { name: "Log contact" }).click();
  await expect(page.getByRole("region", { name: "Payer calls" })).toContainText(
    "Representative confirmed an appeal is required.",
  );

  // Draft the appeal: the letter written by the specialist becomes a draft and the packet's letter.
  await page.getByRole("button", { name: "Write my own letter" }).click();
  await page.getByLabel("Appeal letter").fill("We appeal the denial of this claim. The physician's letter is enclosed.");
  await page.getByRole("button", { name: /assemble appeal packet/i }).click();
  await expect(page.locator(".packet")).toContainText("assembled");
  await expect(page.locator(".packet")).toContainText("your draft");

  // The packet as a PDF: the rendered bytes the preview shows are a PDF.
  const rendered = page.waitForResponse((r) => r.url().includes("appealAssembly.render"));
  await page.getByRole("button", { name: "Preview packet PDF" }).click();
  const answer = await (await rendered).json();
  const body = Array.isArray(answer) ? answer[0] : answer;
  summary.pdfMagic = Buffer.from(body.result.data.contentBase64, "base64").subarray(0, 5).toString("latin1");
  await expect(page.getByTitle("Appeal packet preview (PDF)")).toBeVisible();
  await expect(page.getByRole("link", { name: /^Download .+\.pdf$/ })).toBeVisible();
  await look(page, "04-appeal-packet");

  // Approval: the specialist requests it and cannot approve it.
  await page.getByRole("button", { name: "Request approval to submit" }).click();
  await expect(page.locator(".approval")).toContainText("pending approval");
  await expect(page.getByRole("note")).toContainText("separation of duties");
  await expect(page.getByRole("button", { name: "Approve submission" })).toHaveCount(0);

  // A second person approves it in their own session.
  const approverContext = await browser.newContext({ viewport: TABLET });
  const approver = await approverContext.newPage();
  watchErrors(approver, "approver");
  await signIn(approver, APPROVER);
  await approver.goto(`/#/cases/${caseId}`);
  await approver.getByLabel("Reason for your decision").fill("Letter and evidence complete");
  await look(approver, "05-approval-tablet");
  await approver.getByRole("button", { name: "Approve submission" }).click();
  await expect(approver.locator(".approval")).toContainText("approved");
  await approverContext.close();

  // The specialist submits it (sandbox clearinghouse) and records the payer's decision.
  await page.reload();
  await page.getByRole("button", { name: "Submit to the payer (sandbox clearinghouse)" }).click();
  await expect(page.locator(".packet")).toContainText("submitted");
  await page.getByLabel("Decision").selectOption("won");
  await page.getByLabel("Payer reference").fill("APL-20931");
  await page.getByRole("button", { name: "Record outcome" }).click();
  await expect(page.getByRole("region", { name: "Outcome" })).toContainText("won");
  await expect(page.getByRole("region", { name: "Case summary" })).toContainText(/won/i);
  await look(page, "06-outcome");
  await specialistContext.close();
});

test("an upload with a bad row is reviewed, repaired and confirmed", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  watchErrors(page, "uploader");
  await signIn(page, SPECIALIST);
  await page.goto("/#/uploads");
  await page.getByLabel("File to upload").setInputFiles(UPLOAD_CSV);
  await page.getByLabel("Kind of file").selectOption({ label: "CSV export (claims, payments, denials, deposits, contract terms)" });
  await page.getByRole("button", { name: "Upload file" }).click();
  await expect(page).toHaveURL(/#\/uploads\/\d+$/);
  summary.batchId = Number(new URL(page.url()).hash.split("/").pop());
  // Row 3's due date (2026-13-40) is no date: the row is invalid until repaired.
  await page.getByRole("button", { name: "Repair row 3" }).click();
  const repair = page.getByRole("form", { name: "Repair row 3" });
  await repair.getByLabel("Appeal deadline", { exact: true }).fill("2026-04-15");
  await look(page, "13-upload-review");
  await repair.getByRole("button", { name: "Save repair" }).click();
  await expect(page.getByRole("row", { name: /Row 3/ })).toContainText("Repaired");
  await expect(page.getByText("Every included row is valid: confirm to post it.")).toBeVisible();
  await page.getByRole("button", { name: "Confirm import" }).click();
  await expect(page.getByText(/Posted 3 financial entries/)).toBeVisible();
  await look(page, "14-upload-posted");
  await context.close();
});

test("every other screen, as an administrator, at 1280 px and on a tablet", async ({ browser }) => {
  for (const [suffix, viewport] of [
    ["", { width: 1280, height: 900 }],
    ["-tablet", TABLET],
  ]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    watchErrors(page, `admin${suffix}`);
    await signIn(page, ADMIN);
    for (const [name, route] of [
      ["07-uploads", "#/uploads"],
      ["08-kpis", "#/kpis"],
      ["09-payers", "#/payers"],
      ["10-patterns", "#/patterns"],
      ["11-onboarding", "#/onboarding"],
      ["12-worklist", "#/worklist"],
    ]) {
      await page.goto(`/${route}`);
      await look(page, `${name}${suffix}`);
    }
    // Keyboard: on a fresh load the skip link is the first stop and moves focus to the screen.
    await page.reload();
    await expect(page.locator('main[aria-busy="false"]')).toBeVisible();
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.locator("main")).toBeFocused();
    await context.close();
  }
});
