/**
 * A two-node (or more) Lumin cluster for cluster.spec.ts, started by the spec itself so the
 * global setup's single server stays as it is for the other specs: one fresh PostgreSQL
 * database, one Redis key prefix of its own, and one `lumin serve` per node on a free port
 * with its `--node-id` and `--public-url`, this build as static files, bots with no delay and
 * the raised limits of global-setup.ts. `stop()` ends every node still running (SIGTERM, then
 * SIGKILL), drops the database and deletes the prefix's keys; it is safe to call after a
 * failed `start()`, and a process exit kills any node left behind.
 *
 * PostgreSQL and Redis: `LUMIN_TEST_POSTGRES` (a server URL, no database; default
 * `postgresql://postgres@127.0.0.1:5432`) and `LUMIN_TEST_REDIS` (default
 * `redis://127.0.0.1:6379/0`), as for the Python tests (docs/operating.md).
 */
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join, resolve } from "node:path";
import { player } from "./helpers";

const WEB = resolve(import.meta.dirname, "../..");
const ROOT = resolve(WEB, "../..");
const POSTGRES = (process.env.LUMIN_TEST_POSTGRES ?? "postgresql://postgres@127.0.0.1:5432").replace(/\/+$/, "");
const REDIS = process.env.LUMIN_TEST_REDIS ?? "redis://127.0.0.1:6379/0";

/** The same raised limits as global-setup.ts: every page comes from one loopback address. */
const LIMITS = [
  "--address-rate", "100000", "--address-burst", "100000", "--connect-rate", "1000",
  "--connect-burst", "1000", "--connections-per-address", "10000", "--rooms-per-identity", "1000",
  "--rooms-per-address", "10000", "--http-rate", "100000", "--http-burst", "100000",
  "--opening-per-address", "10000", "--quick-play-per-address", "10000",
];

export interface LuminNode {
  id: string;
  port: number;
  /** `http://127.0.0.1:PORT`: the page and `/healthz`. */
  http: string;
  /** `ws://127.0.0.1:PORT/ws`: its `--public-url`. */
  ws: string;
  process: ChildProcess;
  output: string;
}

/** Free ports, all held open together so no two are the same. */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const server = createServer();
      servers.push(server);
      ports.push(
        await new Promise<number>((done, fail) => {
          server.once("error", fail);
          server.listen(0, "127.0.0.1", () => {
            const address = server.address();
            done(typeof address === "object" && address ? address.port : 0);
          });
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  }
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 20_000 });
  if (result.error) throw new Error(`${command} ${args.join(" ")}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

const alive = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

function exited(child: ChildProcess, timeout: number): Promise<boolean> {
  if (!alive(child)) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => done(false), timeout);
    child.once("exit", () => {
      clearTimeout(timer);
      done(true);
    });
  });
}

export class LuminCluster {
  readonly database = `lumin_e2e_${process.pid}_${Date.now().toString(36)}`;
  readonly prefix = `lumin-e2e:${process.pid}:${Date.now().toString(36)}:`;
  readonly nodes = new Map<string, LuminNode>();
  private databaseMade = false;
  private readonly backstop = (): void => {
    for (const node of this.nodes.values()) if (alive(node.process)) node.process.kill("SIGKILL");
  };

  /** `postgresql://.../<database>`: the nodes' `--store`, and where `sql()` asks. */
  get store(): string {
    return `${POSTGRES}/${this.database}`;
  }

  node(id: string): LuminNode {
    const node = this.nodes.get(id);
    if (!node) throw new Error(`no node ${id}`);
    return node;
  }

  /** Make the database, start one node per id, and wait until every node's `/healthz` lists all. */
  async start(ids: string[], leaseTtl = 2): Promise<void> {
    const lumin = process.env.LUMIN_BIN ?? join(ROOT, ".venv", "bin", "lumin");
    const dist = join(WEB, "dist");
    if (!existsSync(lumin)) throw new Error(`${lumin} is missing: run \`make setup\` first.`);
    if (!existsSync(join(dist, "index.html"))) throw new Error(`${dist} has no build: run \`npm run build\` first.`);
    run("psql", [`${POSTGRES}/postgres`, "-v", "ON_ERROR_STOP=1", "-qc", `CREATE DATABASE "${this.database}"`]);
    this.databaseMade = true;
    process.once("exit", this.backstop);
    const ports = await freePorts(ids.length);
    for (const [index, id] of ids.entries()) {
      const port = ports[index]!;
      const node: LuminNode = {
        id,
        port,
        http: `http://127.0.0.1:${port}`,
        ws: `ws://127.0.0.1:${port}/ws`,
        process: spawn(
          lumin,
          [
            "serve", "--port", String(port), "--store", this.store, "--redis", REDIS, "--redis-prefix", this.prefix,
            "--node-id", id, "--public-url", `ws://127.0.0.1:${port}/ws`, "--lease-ttl", String(leaseTtl),
            "--static", dist, "--bot-delay", "0", "--log-level", "warning", ...LIMITS,
          ],
          { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
        ),
        output: "",
      };
      node.process.stdout?.on("data", (chunk) => (node.output += chunk));
      node.process.stderr?.on("data", (chunk) => (node.output += chunk));
      this.nodes.set(id, node);
    }
    await Promise.all([...this.nodes.values()].map((node) => this.waitKnows(node, ids)));
    console.log(`e2e cluster: ${[...this.nodes.values()].map((n) => `${n.id} at ${n.http}`).join(", ")}; ${this.store}, ${REDIS} prefix ${this.prefix}`);
  }

  /** The node's `/healthz`, once it lists every one of `ids` as a live node. */
  async waitKnows(node: LuminNode, ids: string[], timeout = 30_000): Promise<void> {
    const deadline = Date.now() + timeout;
    let last = "";
    while (Date.now() < deadline) {
      if (!alive(node.process)) throw new Error(`${node.id} exited with ${node.process.exitCode}:\n${node.output}`);
      try {
        const health = (await (await fetch(`${node.http}/healthz`)).json()) as { nodes?: string[] };
        last = JSON.stringify(health);
        if (ids.every((id) => health.nodes?.includes(id))) return;
      } catch {
        /* not up yet */
      }
      await new Promise((wait) => setTimeout(wait, 150));
    }
    throw new Error(`${node.id} did not list ${ids.join(", ")} within ${timeout} ms (last /healthz ${last}):\n${node.output}`);
  }

  /** SIGKILL one node and wait for it to be gone. */
  async kill(id: string): Promise<void> {
    const node = this.node(id);
    node.process.kill("SIGKILL");
    if (!(await exited(node.process, 5000))) throw new Error(`${id} did not die`);
  }

  /** One value from the cluster's database (psql, unaligned). */
  sql(query: string): string {
    return run("psql", [this.store, "-v", "ON_ERROR_STOP=1", "-tAc", query]).trim();
  }

  /** Stop every node still running, drop the database, delete the Redis keys. Never throws. */
  async stop(): Promise<void> {
    const problems: string[] = [];
    await Promise.all(
      [...this.nodes.values()].map(async (node) => {
        if (!alive(node.process)) return;
        node.process.kill("SIGTERM");
        if (!(await exited(node.process, 8000))) {
          node.process.kill("SIGKILL");
          await exited(node.process, 5000);
        }
      }),
    );
    process.removeListener("exit", this.backstop);
    if (this.databaseMade) {
      try {
        run("psql", [`${POSTGRES}/postgres`, "-v", "ON_ERROR_STOP=1", "-qc", `DROP DATABASE IF EXISTS "${this.database}" WITH (FORCE)`]);
      } catch (error) {
        problems.push(String(error));
      }
    }
    try {
      const keys = run("redis-cli", ["-u", REDIS, "--scan", "--pattern", `${this.prefix}*`]).split("\n").filter(Boolean);
      for (let i = 0; i < keys.length; i += 500) run("redis-cli", ["-u", REDIS, "del", ...keys.slice(i, i + 500)]);
    } catch (error) {
      problems.push(String(error));
    }
    for (const node of this.nodes.values()) {
      if (/Traceback|"level": "error"/.test(node.output)) console.log(`e2e cluster: ${node.id} log:\n${node.output}`);
    }
    if (problems.length) console.log(`e2e cluster: cleaning up: ${problems.join("; ")}`);
  }
}

export interface NodePlayer {
  context: BrowserContext;
  page: Page;
  errors: string[];
  /** The port of every websocket the page opened, in order. */
  sockets: number[];
}

/** A new person (own browser context, own token) whose page is served by `node`. */
export async function nodePlayer(browser: Browser, name: string, node: LuminNode): Promise<NodePlayer> {
  const sockets: number[] = [];
  const opened = await player(browser, name, undefined, node.http, (page) =>
    page.on("websocket", (socket) => sockets.push(Number(new URL(socket.url()).port))),
  );
  return { ...opened, sockets };
}
