import { defineConfig } from "@playwright/test";

/**
 * One game in Chromium on a page that an installed `lumin serve` serves by itself (no
 * --static): tests/packaging/test_installed_server.py builds the wheel, installs it, starts the
 * server and runs this config with LUMIN_URL set to the address the server printed. Debian's
 * Chromium, never a downloaded browser; no global setup (the server is the installed one).
 */
export default defineConfig({
  testDir: ".",
  testMatch: "served.spec.ts",
  outputDir: process.env.LUMIN_SERVED_OUTPUT ?? "../test-results/served",
  timeout: 180_000,
  expect: { timeout: 20_000 },
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    browserName: "chromium",
    headless: true,
    viewport: { width: 1280, height: 900 },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    },
  },
});
