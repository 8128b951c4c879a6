/**
 * Starts a real `lumin serve` for the e2e tests: a free port, a temporary data folder, this
 * build as its static files, bots with no delay, and a fixed admin token for the admin page's
 * tests. The URL goes to the tests in LUMIN_URL, the token in LUMIN_ADMIN_TOKEN; the returned
 * function stops the server and removes the folder.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const WEB = resolve(import.meta.dirname, "../..");
const ROOT = resolve(WEB, "../..");
export const SCREENS = join(WEB, "test-results", "screens");
/** The e2e server's admin token (the admin API is off without one). */
export const ADMIN_TOKEN = "e2e-admin-token-0123456789abcdef";

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export async function waitHealthy(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`lumin serve exited with ${server.exitCode}:\n${log()}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((wait) => setTimeout(wait, 150));
  }
  throw new Error(`lumin serve did not come up at ${url}:\n${log()}`);
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const lumin = process.env.LUMIN_BIN ?? join(ROOT, ".venv", "bin", "lumin");
  const dist = join(WEB, "dist");
  if (!existsSync(lumin)) throw new Error(`${lumin} is missing: run \`make setup\` first.`);
  if (!existsSync(join(dist, "index.html"))) throw new Error(`${dist} has no build: run \`npm run build\` first.`);
  mkdirSync(SCREENS, { recursive: true });
  const data = mkdtempSync(join(tmpdir(), "lumin-e2e-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = "";
  // Every test page connects from this one loopback address, which gets no exemption from
  // the server's limits: they are raised for the suite, and printed.
  const limits = [
    "--address-rate", "100000", "--address-burst", "100000", "--connect-rate", "1000",
    "--connect-burst", "1000", "--connections-per-address", "10000", "--rooms-per-identity", "1000",
    "--rooms-per-address", "10000", "--http-rate", "100000", "--http-burst", "100000",
  "--opening-per-address", "10000", "--quick-play-per-address", "10000",
  ];
  // A fixed test token on the command line (a real server's belongs in LUMIN_ADMIN_TOKEN); one
  // rated game puts a player on a leaderboard (quickplay.spec.ts plays one).
  const server = spawn(
    lumin,
    ["serve", "--port", String(port), "--data", data, "--static", dist, "--bot-delay", "0", "--log-level", "warning", "--admin-token", ADMIN_TOKEN, "--leaderboard-games", "1", ...limits],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout?.on("data", (chunk) => (output += chunk));
  server.stderr?.on("data", (chunk) => (output += chunk));
  await waitHealthy(url, server, () => output);
  process.env.LUMIN_URL = url;
  process.env.LUMIN_ADMIN_TOKEN = ADMIN_TOKEN;
  process.env.LUMIN_SCREENS = SCREENS;
  console.log(`e2e: lumin serve at ${url} (data ${data}), limits ${limits.join(" ")}`);
  console.log(`e2e: screenshots go to ${SCREENS}`);
  return async () => {
    server.kill("SIGTERM");
    await new Promise((done) => {
      const timer = setTimeout(() => {
        server.kill("SIGKILL");
        done(null);
      }, 8000);
      server.once("exit", () => {
        clearTimeout(timer);
        done(null);
      });
    });
    rmSync(data, { recursive: true, force: true });
    if (/Traceback|ERROR|"level": "error"/.test(output)) console.log(`e2e: server log:\n${output}`);
  };
}
