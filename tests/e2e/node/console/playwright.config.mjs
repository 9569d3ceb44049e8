// Playwright for the web console (tests/e2e/test_make_up.py runs it on a running `launcher.cli up`).
// The browser is Debian's Chromium (CHROMIUM, default /usr/bin/chromium): Playwright downloads none.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.mjs$/,
  workers: 1,
  retries: 0,
  timeout: 300_000,
  expect: { timeout: 30_000 },
  reporter: [["line"], ["json", { outputFile: process.env.CONSOLE_REPORT ?? "console-report.json" }]],
  outputDir: process.env.CONSOLE_ARTIFACTS ?? "test-results",
  use: {
    baseURL: process.env.CONSOLE_BASE_URL,
    viewport: { width: 1280, height: 900 },
    launchOptions: { executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" },
    actionTimeout: 30_000,
    navigationTimeout: 60_000,
    trace: "off",
    screenshot: "only-on-failure",
  },
});
