/**
 * Coming back: a reload in the middle of a game resumes it (same seat, same hand, same board);
 * the held seat is one click from the lobby; a dropped connection reconnects and resumes by
 * itself (the session's reconnect and resume are also unit-tested over a fake socket).
 */
import { expect, test } from "@playwright/test";
import { createRoom, frogTurn, player } from "./helpers";

test("a reload mid-game resumes it", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  const room = await createRoom(page, "flip_over_frog", ["me", "bot:bot", "bot:bot"]);
  await page.getByTestId("start").click();
  expect(await frogTurn(page)).toBe(true);
  expect(await frogTurn(page)).toBe(true);
  await expect(page.locator(".my-turn")).toBeVisible();
  const hand = await page.locator(".fof-hand-tile").evaluateAll((tiles) => tiles.map((tile) => tile.getAttribute("data-tile")));
  const pile = await page.locator(".fof-pile").textContent();
  const colour = await page.getByTestId("fof-colour").textContent();

  await page.reload();
  await expect(page.locator(`[data-page=room][data-room="${room}"]`)).toBeVisible();
  await expect(page.locator(".fof-hand-tile")).toHaveCount(hand.length);
  expect(await page.locator(".fof-hand-tile").evaluateAll((tiles) => tiles.map((tile) => tile.getAttribute("data-tile")))).toEqual(hand);
  await expect(page.locator(".fof-pile")).toHaveText(pile!);
  await expect(page.getByTestId("fof-colour")).toHaveText(colour!);
  await expect(page.locator(".seat.me")).toContainText("Ada");
  expect(await frogTurn(page)).toBe(true);

  // From the lobby, the seat is one click away.
  await page.goto("/#/");
  await page.reload();
  await page.getByTestId("held-room").click();
  await expect(page.locator(`[data-page=room][data-room="${room}"] .fof-hand-tile`)).toHaveCount(3);

  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

// A dropped connection: the session lets go of the socket at once, so the status leaves "open"
// before the test waits for it to come back, and the first play after the resume is sent on
// the new connection (it used to be queued on the closing one and lost, one run in six).
test("a dropped connection reconnects by itself and resumes the room", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  const room = await createRoom(page, "flip_over_frog", ["me", "bot:bot", "bot:bot"]);
  await page.getByTestId("start").click();
  expect(await frogTurn(page)).toBe(true);
  await page.goto("/#/");
  await page.reload();
  await page.getByTestId("held-room").click();
  await expect(page.locator(`[data-page=room][data-room="${room}"] .fof-hand-tile`)).toHaveCount(3);
  await page.evaluate(() => (window as unknown as { __lumin: { session: { restart(): void } } }).__lumin.session.restart());
  await expect(page.getByTestId("net")).toHaveAttribute("data-status", "open");
  expect(await frogTurn(page)).toBe(true);
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
