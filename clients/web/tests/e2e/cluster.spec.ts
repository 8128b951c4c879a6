/**
 * The browser client against a two-node cluster (cluster-setup.ts: PostgreSQL, Redis, nodes
 * node-a and node-b, `--lease-ttl 2`, the default origin policy). A page served by one node
 * follows `moved` to the other and opens its socket there: a two-player Flip Over Frog game
 * with the second player arriving on node B and sent on to node A; then a failover, node A
 * killed in the middle of a game whose page came from node B, the room taken over by node B
 * from its log and the game finished there. The page's own websockets (page.on("websocket"))
 * show which node it talked to, in order. Screenshots: cluster-moved, cluster-failover.
 */
import { expect, type Page, test } from "@playwright/test";
import { LuminCluster, type NodePlayer, nodePlayer } from "./cluster-setup";
import { createRoom, frogTurn, shot, start } from "./helpers";

const cluster = new LuminCluster();

// Both tests play on the one cluster the file starts: they run together, on one worker.
test.describe.configure({ mode: "default" });

test.beforeAll(async () => {
  test.setTimeout(60_000);
  await cluster.start(["node-a", "node-b"], 2);
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await cluster.stop();
});

/** Whose turn it is among the pages (an index), "over" once a page shows the summary, else null. */
async function turnNow(pages: Page[]): Promise<number | "over" | null> {
  for (const page of pages) if (await page.getByTestId("summary").isVisible()) return "over";
  for (const [index, page] of pages.entries()) {
    if (await page.locator(".board-root.my-turn").isVisible()) return index;
  }
  return null;
}

/** What a Flip Over Frog page shows of the game: plays and stack, board, hand, colour, discards. */
async function frogState(page: Page): Promise<Record<string, unknown>> {
  return {
    pile: await page.locator(".fof-pile").textContent(),
    board: await page.locator(".fof-space").evaluateAll((spaces) =>
      spaces.map((space) => {
        const tile = space.querySelector(".fof-tile");
        const face = tile === null ? "" : tile.classList.contains("back") ? "back" : (tile.querySelector(".fof-id")?.textContent ?? "?");
        return `${face}${space.querySelector(".fof-height")?.textContent ?? ""}`;
      }),
    ),
    hand: await page.locator(".fof-hand-tile").evaluateAll((tiles) => tiles.map((tile) => tile.getAttribute("data-tile"))),
    colour: await page.getByTestId("fof-colour").textContent(),
    discards: await page.locator(".fof-discards .fof-tile").count(),
  };
}

/** The epoch of the page's copy of the room (it changes when the room's history is rebuilt). */
function epochOf(page: Page, room: string): Promise<string | null> {
  return page.evaluate(
    (id) => (window as unknown as { __lumin: { session: { view(room: string): { epoch: string } | null } } }).__lumin.session.view(id)?.epoch ?? null,
    room,
  );
}

/** Ports in the order the page opened sockets, one entry per run of the same port. */
const hops = (player: NodePlayer): number[] => player.sockets.filter((port, i, all) => i === 0 || all[i - 1] !== port);

test("a game through moved: the second player comes in on node B and plays on node A", async ({ browser }) => {
  const a = cluster.node("node-a");
  const b = cluster.node("node-b");
  const ada = await nodePlayer(browser, "Ada", a);
  const bob = await nodePlayer(browser, "Bob", b);
  const room = await createRoom(ada.page, "flip_over_frog", ["me", "open"]);
  const link = await ada.page.locator("#share-link").inputValue();
  expect(link).toContain(`${a.http}/#/room/${room}`);
  expect(cluster.sql(`SELECT node FROM leases WHERE room = '${room}'`)).toBe("node-a");

  // Bob's page is node B's: he pastes the link into its join form; node B answers the seat
  // with `moved` and his page follows to node A (the corner says "reconnecting…" at most).
  await expect(bob.page.getByTestId("net")).toHaveAttribute("data-status", "open");
  await bob.page.locator("#join-code").fill(link);
  await bob.page.locator(".join-form button[type=submit]").click();
  await expect(bob.page.locator(`[data-page=room][data-room="${room}"] .seat.me`)).toContainText("Bob");
  await expect(ada.page.locator(".seat[data-seat='1']")).toContainText("Bob");
  await expect(bob.page.getByTestId("net")).toHaveAttribute("data-status", "open");
  expect(new URL(bob.page.url()).port).toBe(String(b.port));
  expect(hops(bob)).toEqual([b.port, a.port]);
  expect(hops(ada)).toEqual([a.port]);

  await bob.page.getByTestId("ready").click();
  await expect(ada.page.locator(".seat[data-seat='1'] .tag.ready")).toBeVisible();
  await start(ada.page);
  await expect(bob.page.getByTestId("fof-board")).toBeVisible();
  await expect(bob.page.locator(".fof-hand-tile")).toHaveCount(3);

  const pages = [ada.page, bob.page];
  const turns = [0, 0];
  for (;;) {
    let turn: number | "over" | null = null;
    await expect.poll(async () => (turn = await turnNow(pages)), { timeout: 30_000 }).not.toBeNull();
    if (turn === "over" || turn === null) break;
    expect(await frogTurn(pages[turn]!)).toBe(true);
    turns[turn]! += 1;
    expect(turns[0]! + turns[1]!).toBeLessThan(80);
  }
  expect(Math.min(...turns)).toBeGreaterThan(3);

  for (const page of pages) {
    await expect(page.getByTestId("summary")).toContainText("Game over");
    await expect(page.getByTestId("summary").locator("tbody tr")).toHaveCount(2);
    await expect(page.getByTestId("fof-reveal").locator("li")).toHaveCount(2);
    await expect(page.getByTestId("verdict")).toContainText("matches the commitment");
    await expect(page.getByTestId("room-state")).toHaveText("finished");
    await expect(page.getByTestId("error-line")).toBeHidden();
  }
  // Bob played the whole game on node A's socket, with his page still node B's.
  expect(hops(bob)).toEqual([b.port, a.port]);
  expect(new URL(bob.page.url()).port).toBe(String(b.port));
  await shot(bob.page, "cluster-moved");
  expect([...ada.errors, ...bob.errors]).toEqual([]);
  await ada.context.close();
  await bob.context.close();
});

test("a failover: node A is killed mid-game and node B takes the room over from its log", async ({ browser }) => {
  const a = cluster.node("node-a");
  const b = cluster.node("node-b");
  // Two rooms waiting on node B make node A the lighter node: Cleo's room, created from her
  // node-B page, is answered `moved` and made on node A, while her page's first URL stays B.
  const dora = await nodePlayer(browser, "Dora", b);
  for (let i = 0; i < 2; i += 1) await createRoom(dora.page, "flip_over_frog", ["me", "open"]);
  expect(hops(dora)).toEqual([b.port]);
  await dora.context.close();

  const cleo = await nodePlayer(browser, "Cleo", b);
  const room = await createRoom(cleo.page, "flip_over_frog", ["me", "bot:bot"]);
  expect(hops(cleo)).toEqual([b.port, a.port]);
  expect(cluster.sql(`SELECT node FROM leases WHERE room = '${room}'`)).toBe("node-a");
  await start(cleo.page);
  for (let i = 0; i < 3; i += 1) expect(await frogTurn(cleo.page)).toBe(true);
  await expect(cleo.page.locator(".board-root.my-turn")).toBeVisible();
  const before = await frogState(cleo.page);
  expect(before.pile).toMatch(/ [67] plays/); // 3 of Cleo's, 3 or 4 of the bot's
  const epoch = await epochOf(cleo.page, room);
  expect(epoch).toBeTruthy();

  // SIGKILL: the socket drops, the page reconnects to node B (its first URL) with backoff, and
  // once node A's lease lapses (2 s) node B rebuilds the room from the log (a new epoch) and
  // answers Cleo's resume with a snapshot of it, which must show every play made before.
  const killed = Date.now();
  const sockets = cleo.sockets.length;
  await cluster.kill("node-a");
  // The page opens a new socket (the drop itself may be over before anyone looks at the
  // corner: the outcome, a new connection and a new epoch, is what is checked).
  await expect.poll(() => cleo.sockets.length, { timeout: 30_000 }).toBeGreaterThan(sockets);
  await expect.poll(() => epochOf(cleo.page, room), { timeout: 30_000 }).not.toBe(epoch);
  const resumed = Date.now() - killed;
  await expect(cleo.page.getByTestId("net")).toHaveAttribute("data-status", "open");
  await expect(cleo.page.locator(".board-root.my-turn")).toBeVisible();
  expect(hops(cleo).at(-1)).toBe(b.port);
  expect(await frogState(cleo.page)).toEqual(before);
  console.log(`failover: resumed on node B ${resumed} ms after the kill; sockets to ${hops(cleo).join(" → ")} (A ${a.port}, B ${b.port})`);
  await expect.poll(() => cluster.sql(`SELECT node FROM leases WHERE room = '${room}'`)).toBe("node-b");
  await expect.poll(async () => ((await (await fetch(`${b.http}/healthz`)).json()) as { nodes: string[] }).nodes).toEqual(["node-b"]);

  let turns = 3;
  while (await frogTurn(cleo.page)) {
    turns += 1;
    expect(turns).toBeLessThan(40);
  }
  await expect(cleo.page.getByTestId("summary")).toContainText("Game over");
  await expect(cleo.page.getByTestId("fof-reveal").locator("li")).toHaveCount(2);
  await expect(cleo.page.getByTestId("verdict")).toContainText("matches the commitment");
  await expect(cleo.page.getByTestId("room-state")).toHaveText("finished");
  expect(hops(cleo).at(-1)).toBe(b.port);
  await shot(cleo.page, "cluster-failover");
  // The only errors allowed: Chromium's own lines for sockets to the dead node, if any.
  const dead = new RegExp(`WebSocket connection to 'ws://127\\.0\\.0\\.1:${a.port}/ws' failed`);
  expect(cleo.errors.filter((error) => !dead.test(error))).toEqual([]);
  await cleo.context.close();
});
