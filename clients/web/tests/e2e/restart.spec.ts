/**
 * After a server restart the lobby lists no dead room: waiting rooms whose people left before
 * the restart are rebuilt from the store, but nobody is in them, so the lobby a player opens
 * afterwards leaves them out (they had been listed while their host was there). The test runs
 * a `lumin serve` of its own on a data folder it restarts, not the suite's server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { busyLobby } from "./busy";
import { freePort, waitHealthy } from "./global-setup";
import { player, shot } from "./helpers";

const ROOT = resolve(import.meta.dirname, "../../../..");

interface Server {
  url: string;
  stop(): Promise<void>;
}

async function serve(data: string, port: number): Promise<Server> {
  const lumin = join(ROOT, ".venv", "bin", "lumin");
  const child: ChildProcess = spawn(
    lumin,
    ["serve", "--port", String(port), "--data", data, "--static", join(ROOT, "clients", "web", "dist"), "--bot-delay", "0", "--log-level", "warning"],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, child, () => output);
  return {
    url,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}

test("after a restart the lobby leaves out the waiting rooms nobody came back to", async ({ browser }) => {
  const data = mkdtempSync(join(tmpdir(), "lumin-restart-"));
  const port = await freePort();
  let server = await serve(data, port);
  try {
    // Three waiting rooms, listed while their host is in them.
    const busy = await busyLobby(3, "Gone Host", `ws://127.0.0.1:${port}/ws`);
    const ada = await player(browser, "Ada", undefined, server.url);
    for (const room of busy.rooms) await expect(ada.page.locator(`.room-card[data-room="${room}"]`)).toBeVisible();
    await busy.close();
    await ada.context.close();

    // The host is gone; the server restarts and rebuilds the rooms from its store.
    await server.stop();
    server = await serve(data, port);
    const bea = await player(browser, "Bea", undefined, server.url);
    await expect(bea.page.locator("[data-page=lobby]")).toBeVisible();
    await expect(bea.page.getByText("No open rooms yet: create one.")).toBeVisible();
    for (const room of busy.rooms) await expect(bea.page.locator(`.room-card[data-room="${room}"]`)).toHaveCount(0);
    await shot(bea.page, "restart-lobby");
    // The rooms are still there for a link: one opens as a waiting room.
    await bea.page.goto(`/#/room/${busy.rooms[0]}`);
    await expect(bea.page.locator(`[data-page=room][data-room="${busy.rooms[0]}"]`)).toBeVisible();
    expect(bea.errors).toEqual([]);
    await bea.context.close();
  } finally {
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
});
