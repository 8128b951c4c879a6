/**
 * The admin page: an operator logs in (a wrong token is refused in a sentence), sees the live
 * rooms, kicks a player out of a game in play (a bot takes the seat and moves; the player
 * watches on and is told why), closes another room with a reason (its players are told why
 * and find their way back to the lobby), mutes a player in a room's chat, and bans and unbans
 * an identity (the banned page says so and stops reconnecting). The page also fits a phone.
 */
import { type Browser, expect, type Page, test } from "@playwright/test";
import { createRoom, frogTurn, player, shot, start, URL } from "./helpers";

const TOKEN = (): string => {
  const token = process.env.LUMIN_ADMIN_TOKEN;
  if (!token) throw new Error("LUMIN_ADMIN_TOKEN is not set: the global setup starts the server with it.");
  return token;
};

async function operator(browser: Browser): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: URL() });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    // The browser logs every refused request itself: the wrong token's 401 (the test's point)
    // and a refresh in flight while the room closed (409, not live); the page says both.
    if (message.type() === "error" && !/status of (401|409)\b/.test(message.text())) errors.push(message.text());
  });
  return { page, errors, close: () => context.close() };
}

/** A room row of the admin table. */
const row = (page: Page, room: string) => page.locator(`.admin-rooms tr[data-room="${room}"]`);

/** Plays so far, as the Flip Over Frog board counts them ("Stack: 27 tiles · 3 plays"). */
async function plays(page: Page): Promise<number> {
  const text = (await page.locator(".fof-pile").textContent()) ?? "";
  return Number(/(\d+) plays?/.exec(text)?.[1] ?? 0);
}

test("an operator logs in, sees live rooms, kicks a player (a bot takes over), closes another room; the players see why", async ({ browser }) => {
  // Room 1: Ada and Bob play Flip Over Frog.
  const ada = await player(browser, "Ada");
  const bob = await player(browser, "Bob");
  const game = await createRoom(ada.page, "flip_over_frog", ["me", "open"]);
  await bob.page.goto(`/#/room/${game}`);
  await bob.page.getByTestId("sit-1").click();
  await expect(bob.page.locator(".seat.me")).toContainText("Bob");
  await bob.page.getByTestId("ready").click();
  await expect(ada.page.locator(".seat[data-seat='1'] .tag.ready")).toBeVisible();
  await start(ada.page);
  await expect(bob.page.getByTestId("fof-board")).toBeVisible();

  // Room 2: Cara and Dan wait for a game.
  const cara = await player(browser, "Cara");
  const dan = await player(browser, "Dan");
  const waiting = await createRoom(cara.page, "flip_over_frog", ["me", "open"]);
  await dan.page.goto(`/#/room/${waiting}`);
  await dan.page.getByTestId("sit-1").click();
  await expect(cara.page.locator(".seat[data-seat='1']")).toContainText("Dan");

  // The operator: a wrong token is refused in a sentence, the right one lets them in.
  const op = await operator(browser);
  await op.page.goto("/admin");
  await expect(op.page.getByLabel("Admin token")).toBeFocused();
  await op.page.getByLabel("Admin token").fill("not-the-admin-token-at-all");
  await op.page.keyboard.press("Enter");
  await expect(op.page.getByTestId("login-error")).toContainText("The server refused this token");
  await expect(op.page.getByTestId("login-error")).not.toContainText("bad_admin_token");
  await shot(op.page, "admin-login-refused");
  await op.page.getByLabel("Admin token").fill(TOKEN());
  await op.page.getByTestId("admin-login").click();
  await expect(op.page.locator(".admin-rooms")).toBeVisible();
  expect(await op.page.evaluate(() => [sessionStorage.getItem("lumin.admin-token") !== null, localStorage.length])).toEqual([true, 0]);

  // Both rooms are listed live; the state filter narrows the table.
  await expect(row(op.page, game)).toContainText("playing");
  await expect(row(op.page, waiting)).toContainText("waiting");
  await expect(row(op.page, game).locator("td").nth(2)).toHaveText("2"); // players
  await op.page.getByLabel("State").selectOption("playing");
  await expect(row(op.page, waiting)).toHaveCount(0);
  await expect(row(op.page, game)).toBeVisible();
  await op.page.getByLabel("State").selectOption("");
  await expect(row(op.page, waiting)).toBeVisible();

  // The game's detail: both seats connected, one of them to move.
  await op.page.getByTestId(`open-${game}`).click();
  const detail = op.page.getByTestId("room-detail");
  await expect(detail.locator("h2")).toHaveText(`Room ${game}`);
  await expect(detail.locator("tr[data-seat='0']")).toContainText("Ada");
  await expect(detail.locator("tr[data-seat='1']")).toContainText("Bob");
  await expect(detail.locator("tr[data-seat='1']")).toContainText("connected");
  await expect(detail.getByText("▶ to move")).toHaveCount(1);
  await shot(op.page, "admin-dashboard", false);

  // A mute: Ada can no longer chat in this room, and her chat says why.
  const adaUser = await detail.locator("#mute-user option", { hasText: /^Ada \(/ }).getAttribute("value");
  await detail.getByLabel("Person").selectOption(adaUser!);
  await detail.getByTestId("mute").click();
  await expect(op.page.getByTestId("room-answer")).toContainText("can no longer chat");
  await expect(detail.getByTestId("muted-list")).toContainText("Ada");
  await ada.page.locator(".chat-input").fill("hello?");
  await ada.page.locator(".chat-form button").click();
  await expect(ada.page.getByTestId("chat-notice")).toHaveText("The server's operator muted you in this room's chat.");
  await expect(ada.page.getByTestId("error-line")).toBeHidden();
  await detail.getByTestId("unmute").click();
  await expect(op.page.getByTestId("room-answer")).toContainText("can chat in room");

  // The kick: Bob's seat goes to a bot, which plays on; Bob is told why and watches.
  await detail.getByLabel("Reason (the players are shown it)").fill("abusive chat");
  await detail.getByTestId("kick-1").click();
  await expect(op.page.getByTestId("room-answer")).toContainText("seat 1");
  await expect(op.page.getByTestId("room-answer")).toContainText("bot plays the seat on");
  const notice = bob.page.getByTestId("room-notice");
  await expect(notice).toBeVisible();
  await expect(notice).toContainText("The server's operator removed you from seat 2: abusive chat.");
  await expect(notice).toContainText("A bot plays on.");
  await expect(notice).toContainText("You are watching now.");
  await expect(bob.page.locator(".seat.me")).toHaveCount(0);
  await expect(bob.page.locator(".seat[data-seat='1']")).toHaveClass(/kind-bot/);
  await expect(bob.page.getByTestId("turn-status")).toContainText("Watching");
  await expect(bob.page.locator(".chat-channel")).toContainText("spectators");
  await expect(detail.locator("tr[data-seat='1']")).toContainText("bot playing");
  await shot(bob.page, "admin-kicked-player");
  // The bot moves: Ada plays, and her turn comes back after the bot's play.
  const myTurn = ada.page.locator(".board-root.my-turn");
  await expect(myTurn).toBeVisible({ timeout: 30_000 });
  const before = await plays(ada.page);
  await frogTurn(ada.page);
  await expect(myTurn).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => plays(ada.page)).toBeGreaterThanOrEqual(before + 2);
  await expect.poll(() => plays(bob.page)).toBe(await plays(ada.page));

  // Closing the waiting room with a reason: a second click confirms.
  await row(op.page, waiting).getByRole("button").click();
  await expect(detail.locator("h2")).toHaveText(`Room ${waiting}`);
  await detail.getByLabel("Reason (the players are shown it)").fill("server maintenance");
  const close = detail.getByTestId("close-room");
  await close.click();
  await expect(close).toHaveText("Click again to close it");
  await close.click();
  await expect(op.page.getByTestId("room-answer")).toContainText(`Room ${waiting} is closed`);
  await expect(op.page.getByTestId("room-answer")).toContainText("server maintenance");
  await expect(row(op.page, waiting)).toHaveCount(0);
  for (const someone of [cara, dan]) {
    await expect(someone.page.getByTestId("closed-sentence")).toHaveText("The server's operator closed this room: server maintenance.");
    await expect(someone.page.getByTestId("error-line")).toBeHidden();
  }
  await shot(cara.page, "admin-closed-room");
  await cara.page.getByTestId("back-to-lobby").click();
  await expect(cara.page.locator("[data-page=lobby]")).toBeVisible();

  // A ban of Dan's identity: his page says so and stops reconnecting; then it is lifted.
  const danRow = op.page.locator(".admin-connections tr", { hasText: "Dan (" });
  await expect(danRow).toHaveCount(1);
  await danRow.getByRole("button", { name: "Ban identity…" }).click();
  await expect(op.page.getByLabel("Reason (shown to them)")).toBeFocused();
  await op.page.getByLabel("Reason (shown to them)").fill("spamming");
  await op.page.getByTestId("ban-submit").click();
  await expect(op.page.getByTestId("ban-answer")).toContainText("1 open connection was closed");
  await expect(dan.page.getByTestId("ended-sentence")).toHaveText("The server's operator banned this identity: spamming");
  await expect(dan.page.locator("[data-testid=net]")).toHaveAttribute("data-status", "closed");
  await shot(dan.page, "admin-banned-player");
  const banRow = op.page.locator(".admin-bans tr", { hasText: "spamming" });
  await banRow.getByRole("button", { name: "Unban" }).click();
  await expect(op.page.getByTestId("ban-answer")).toContainText("Lifted the ban");
  await expect(banRow).toHaveCount(0);
  // Dan stayed away (no reconnect loop) until he reloads; then he is back.
  await dan.page.reload();
  await expect(dan.page.locator("[data-testid=net]")).toHaveAttribute("data-status", "open");

  // The page on a phone: one column, still usable.
  await op.page.setViewportSize({ width: 390, height: 844 });
  await expect(op.page.getByTestId("admin-logout")).toBeVisible();
  const overflow = await op.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await op.page.evaluate(() => window.scrollTo(0, 0));
  await shot(op.page, "admin-phone", false);
  await op.page.getByTestId("admin-logout").click();
  await expect(op.page.getByLabel("Admin token")).toBeVisible();
  expect(await op.page.evaluate(() => sessionStorage.getItem("lumin.admin-token"))).toBeNull();

  expect([...ada.errors, ...bob.errors, ...cara.errors, ...op.errors]).toEqual([]);
  for (const someone of [ada, bob, cara, dan]) await someone.context.close();
  await op.close();
});
