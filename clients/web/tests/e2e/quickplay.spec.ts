/**
 * Quick play: a lone newcomer presses "Play now" as it comes (bots after 10 s) and plays bots;
 * two people press "Play now" for a two-seat Flip Over Frog table (people only),
 * land in the same room, play it to the end and see their new ratings (a rated game: two
 * humans, no bots). Before that, one of them queues and cancels. Then accounts: claiming a name,
 * signing in elsewhere, the ☰ menu's "Your sessions" signing other devices out, and an
 * account's Flash 8 solo score on the leaderboard page and the player's page.
 */
import { expect, type Page, test } from "@playwright/test";
import { createRoom, player, shot, start } from "./helpers";

/** Press Play now for a two-seat Flip Over Frog table of people. What follows is the
 *  caller's to check: the waiting line when nobody else is queued, the room when someone is
 *  (a match may come before the waiting line is ever drawn). */
async function playNow(page: Page): Promise<void> {
  const panel = page.getByTestId("quick-play");
  await page.getByTestId("quick-game").selectOption("flip_over_frog");
  await page.getByTestId("quick-seats").selectOption("2");
  await page.getByTestId("quick-bots").selectOption({ label: "Only people" });
  await panel.getByTestId("quick-play-now").click();
}

/** The page whose turn it is (null once both show the summary). */
async function whoseTurn(pages: Page[]): Promise<Page | null> {
  let found: Page | null | undefined;
  await expect
    .poll(
      async () => {
        for (const page of pages) {
          if (await page.locator(".board-root.my-turn").isVisible()) {
            found = page;
            return true;
          }
        }
        const over = await Promise.all(pages.map((page) => page.getByTestId("summary").isVisible()));
        if (over.every(Boolean)) {
          found = null;
          return true;
        }
        return false;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return found ?? null;
}

test("a lone newcomer who presses Play now as it comes is told when bots come, and plays them", async ({ browser }) => {
  // Neon Hex's three seats: no other test queues for that table.
  const cy = await player(browser, "Quick Cy");
  const panel = cy.page.getByTestId("quick-play");
  await cy.page.getByTestId("quick-game").selectOption("neon_hex");
  await cy.page.getByTestId("quick-seats").selectOption("3");
  await expect(cy.page.getByTestId("quick-bots")).toHaveValue("0");
  await expect(cy.page.getByTestId("quick-bots").locator("option:checked")).toHaveText("Bots after 10 s");
  await panel.getByTestId("quick-play-now").click();
  await expect(cy.page.getByTestId("quick-waiting")).toContainText(/Bots fill the empty seats in \d+ s\./);
  await shot(cy.page, "quickplay-waiting-for-bots");
  await expect(cy.page.locator("[data-page=room]")).toBeVisible({ timeout: 30_000 });
  await expect(cy.page.locator(".seat.me")).toHaveCount(1);
  await expect(cy.page.locator(".seat")).toHaveCount(3);
  await expect(cy.page.locator(".board-root")).toBeVisible();
  expect(cy.errors).toEqual([]);
  await cy.context.close();
});

test("two people press Play now, land in one room, finish the game and see their new ratings", async ({ browser }) => {
  const ada = await player(browser, "Quick Ada");
  const bob = await player(browser, "Quick Bob");

  // Queue, then change one's mind.
  const waiting = ada.page.getByTestId("quick-waiting");
  await playNow(ada.page);
  await expect(waiting).toContainText("Looking for players for Flip Over Frog with 2 seats");
  await ada.page.getByTestId("quick-cancel").click();
  await expect(ada.page.getByTestId("quick-play-now")).toBeVisible();

  // Ada waits alone; Bob, pressing after her, is matched with her at once.
  await playNow(ada.page);
  await expect(waiting).toContainText("Looking for players for Flip Over Frog with 2 seats");
  await playNow(bob.page);
  for (const { page } of [ada, bob]) await expect(page.locator("[data-page=room]")).toBeVisible();
  const room = await ada.page.locator("[data-page=room]").getAttribute("data-room");
  expect(room).toBeTruthy();
  await expect(bob.page.locator("[data-page=room]")).toHaveAttribute("data-room", room!);
  for (const { page } of [ada, bob]) {
    await expect(page.locator(".board-root")).toBeVisible();
    await expect(page.locator(".seat.me")).toHaveCount(1);
  }

  const pages = [ada.page, bob.page];
  let turns = 0;
  for (let page = await whoseTurn(pages); page !== null; page = await whoseTurn(pages)) {
    const before = await page.locator(".fof-pile").textContent();
    await page.locator(".fof-hand-tile.playable").first().click();
    const discard = page.getByTestId("fof-discard");
    if (await discard.isVisible()) await discard.click();
    else await page.locator(".fof-space.lit").first().click();
    await expect.poll(() => page.locator(".fof-pile").textContent(), { timeout: 15_000 }).not.toBe(before);
    turns += 1;
    expect(turns).toBeLessThan(80);
  }

  for (const { page } of [ada, bob]) {
    await expect(page.getByTestId("summary")).toContainText("Game over");
    const mine = page.getByTestId("my-rating");
    // One minus sign for the rating and its change alike (−0.8, never -0.8 beside (−0.8)).
    await expect(mine).toContainText(/Your rating: 0\.0 → −?\d+\.\d \([+−±]\d+\.\d\) after 1 rated game/);
    await expect(page.getByTestId("rating-change")).toHaveCount(1);
    await expect(page.getByTestId("ratings")).not.toContainText("-");
  }
  await shot(ada.page, "quickplay-ratings");

  // Their ratings now stand beside their names: in the lobby's finished game, and in its room.
  const shown = (await ada.page.getByTestId("my-rating").textContent())!.match(/→ (−?\d+\.\d)/)![1];
  await ada.page.goto("/#/");
  const card = ada.page.locator(`.room-card[data-room="${room}"]`);
  await expect(card.getByTestId("seat-rating")).toHaveCount(2);
  await expect(card.locator(".seat-chip", { hasText: "Quick Ada" })).toContainText(`★ ${shown}`);
  await ada.page.goto(`/#/room/${room}`);
  await expect(ada.page.locator(".seat.me")).toContainText(`★ ${shown}`);
  await expect(ada.page.locator(".seat").getByTestId("seat-rating")).toHaveCount(2);

  // The game's leaderboard has them both; Ada's page lists the game, linked to its replay.
  await ada.page.getByTestId("nav-leaderboard").click();
  const board = ada.page.getByTestId("leaderboard");
  // Both are on it (other tests' rated games share the suite's server and its board).
  for (const name of ["Quick Ada", "Quick Bob"]) await expect(board.locator("tbody tr", { hasText: name })).toHaveCount(1);
  await expect(board.locator("tr.me")).toContainText(shown);
  await board.locator("tr.me a").click();
  await expect(ada.page.locator("[data-page=player] h2")).toHaveText("Your games");
  const game = ada.page.getByTestId("history").locator(`li[data-room="${room}"]`);
  await expect(game).toContainText(/Flip Over Frog: Quick Ada (won|finished 2nd); rating 0\.0 → /);
  await game.getByRole("link", { name: "Replay" }).click();
  await expect(ada.page.locator("[data-page=replay]")).toBeVisible();
  expect(ada.errors).toEqual([]);
  expect(bob.errors).toEqual([]);
  await ada.context.close();
  await bob.context.close();
});

test("a guest claims their name, signs in from another browser, and signs out", async ({ browser }) => {
  const cy = await player(browser, "Cy Claims");
  const menu = cy.page.getByTestId("account");
  await menu.getByTestId("account-toggle").click();
  await expect(menu.getByTestId("account-name")).toHaveValue("Cy Claims");
  await menu.getByTestId("account-password").fill("short");
  await menu.getByTestId("account-submit").click();
  await expect(menu.getByTestId("account-name")).toBeVisible(); // the browser refused it: too short
  await menu.getByTestId("account-password").fill("correct horse battery");
  await menu.getByTestId("account-submit").click();
  await expect(menu.getByTestId("account-state")).toHaveText("Signed in as Cy Claims.");
  const user = await cy.page.evaluate(() => (window as unknown as { __lumin: { session: { user: string } } }).__lumin.session.user);

  // Another browser: a wrong password is refused in words, the right one signs in as Cy.
  const other = await player(browser, "Someone");
  const second = other.page.getByTestId("account");
  await second.getByTestId("account-toggle").click();
  await second.getByTestId("account-switch").click();
  await second.getByTestId("account-name").fill("cy claims");
  await second.getByTestId("account-password").fill("wrong password");
  await second.getByTestId("account-submit").click();
  await expect(second.getByTestId("account-problem")).not.toBeEmpty();
  await second.getByTestId("account-password").fill("correct horse battery");
  await second.getByTestId("account-submit").click();
  await expect(second.getByTestId("account-state")).toHaveText("Signed in as Cy Claims.");
  await expect(other.page.getByTestId("player-name")).toHaveValue("Cy Claims");
  await expect.poll(() => other.page.evaluate(() => (window as unknown as { __lumin: { session: { user: string } } }).__lumin.session.user)).toBe(user);
  const token = await other.page.evaluate(() => localStorage.getItem("lumin.token"));

  // Signing out there makes a new guest; the old session's token is no longer stored.
  await second.getByTestId("sign-out").click();
  await expect(second.getByTestId("account-toggle")).toHaveText("Sign in");
  await expect.poll(() => other.page.evaluate(() => (window as unknown as { __lumin: { session: { user: string } } }).__lumin.session.user)).not.toBe(user);
  await expect.poll(() => other.page.evaluate(() => localStorage.getItem("lumin.token"))).not.toBe(token);
  await cy.page.reload();
  await expect(cy.page.getByTestId("account-toggle")).toHaveText("✓ Cy Claims");

  // "Your sessions": a third browser signs in; Cy signs that device out from the list, then,
  // once it is back, signs out everywhere else. Each time the third browser is a guest again.
  const third = await player(browser, "Third");
  const thirdMenu = third.page.getByTestId("account");
  const signIn = async () => {
    if (!(await thirdMenu.evaluate((menu) => (menu as HTMLDetailsElement).open))) await thirdMenu.getByTestId("account-toggle").click();
    if ((await thirdMenu.getByTestId("account-switch").textContent()) === "I have an account") await thirdMenu.getByTestId("account-switch").click();
    await thirdMenu.getByTestId("account-name").fill("cy claims");
    await thirdMenu.getByTestId("account-password").fill("correct horse battery");
    await thirdMenu.getByTestId("account-submit").click();
    await expect(thirdMenu.getByTestId("account-state")).toHaveText("Signed in as Cy Claims.");
  };
  await signIn();
  const mine = cy.page.getByTestId("account");
  await mine.getByTestId("account-toggle").click();
  await mine.getByTestId("sessions-toggle").click();
  await expect(mine.getByTestId("this-session")).toHaveCount(1);
  await expect(mine.getByTestId("this-session")).toContainText("(this device)");
  await expect(mine.getByTestId("other-session")).toHaveCount(1);
  await shot(cy.page, "sessions-1280");
  await mine.getByTestId("other-session").getByTestId("revoke-session").click();
  await expect(mine.getByTestId("other-session")).toHaveCount(0);
  await expect(thirdMenu.getByTestId("account-toggle")).toHaveText("Sign in");
  await signIn();
  await mine.getByTestId("sessions-toggle").click(); // closed, then opened again: a fresh list
  await mine.getByTestId("sessions-toggle").click();
  await expect(mine.getByTestId("other-session")).toHaveCount(1);
  await mine.getByTestId("revoke-others").click();
  await expect(mine.getByTestId("other-session")).toHaveCount(0);
  await expect(mine).toContainText("No other device is signed in.");
  await expect(thirdMenu.getByTestId("account-toggle")).toHaveText("Sign in");
  await expect(mine.getByTestId("account-state")).toHaveText("Signed in as Cy Claims.");

  // A five-second Flash 8 solo game: its score is on the leaderboard page's solo high
  // scores, linked to Cy's page, which lists the account's own best scores.
  await createRoom(cy.page, "flash8", ["me"], { mode: "solo", countdown: "0", solo_seconds: "5" });
  await start(cy.page);
  await expect(cy.page.locator(".f8-solo[data-phase=over]")).toBeVisible({ timeout: 20_000 });
  await cy.page.goto("/#/leaderboard/flash8");
  const best = cy.page.getByTestId("high-score-table").locator("tbody tr").filter({ hasText: "Cy Claims" });
  await expect(best.first()).toBeVisible();
  await expect(best.first()).toContainText(/just now|min ago/);
  await shot(cy.page, "leaderboard-flash8-1280");
  await best.first().getByRole("link", { name: "Cy Claims" }).click();
  await expect(cy.page.locator("[data-page=player]")).toBeVisible();
  await expect(cy.page.getByTestId("player-high-scores").locator("tbody tr")).toHaveCount(1);
  expect(cy.errors).toEqual([]);
  expect(other.errors).toEqual([]);
  await cy.context.close();
  await other.context.close();
  await third.context.close();
});
