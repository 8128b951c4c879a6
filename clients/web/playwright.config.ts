import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests: Debian's Chromium (never a downloaded browser) against a real
 * `lumin serve` that tests/e2e/global-setup.ts starts on a free port with a temporary data
 * folder and this build (dist/). Screenshots go to test-results/screens/ (printed at start).
 * Two workers, each test on its own (a file's tests may run on either; a file whose tests share
 * a `beforeAll` keeps them together), so the games' waits (bots, clocks, animations) overlap;
 * LUMIN_E2E_WORKERS sets another number (1 for a machine with one core to spare).
 */
export default defineConfig({
  testDir: "tests/e2e",
  globalSetup: "./tests/e2e/global-setup.ts",
  outputDir: "test-results/playwright",
  timeout: 120_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: Number(process.env.LUMIN_E2E_WORKERS ?? 2),
  retries: 0,
  reporter: [["list"]],
  use: {
    browserName: "chromium",
    headless: true,
    viewport: { width: 1280, height: 900 },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
