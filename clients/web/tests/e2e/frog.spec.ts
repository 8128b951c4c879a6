/**
 * A person plays a whole Flip Over Frog game against two bots through the page: the form,
 * the board (mouse and keyboard), the turn alerts, the final reveal and the summary with the
 * seed check, its replay (which says "you" only from Ada's own seat); and a tile with nowhere to
 * go, which says why. Screenshots: the board at the start, in the middle, and the reveal.
 */
import { expect, test } from "@playwright/test";
import { createRoom, frogTurn, player, shot, start } from "./helpers";

test("a full Flip Over Frog game against bots", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  await createRoom(page, "flip_over_frog", ["me", "bot:bot", "bot:random"]);
  await expect(page.getByTestId("waiting")).toContainText("start the game");
  await start(page);
  await expect(page.getByTestId("fof-colour")).toContainText(/Red|Blue|Green|Yellow/);
  await expect(page.locator(".fof-hand-tile")).toHaveCount(3);
  await shot(page, "flip_over_frog-start");

  await expect(page).toHaveTitle(/Your turn/);
  let turns = 0;
  while (await frogTurn(page, turns % 2 === 0 ? "keyboard" : "mouse")) {
    turns += 1;
    if (turns === 4) await shot(page, "flip_over_frog-middle");
    expect(turns).toBeLessThan(40);
  }
  expect(turns).toBeGreaterThan(3);

  const summary = page.getByTestId("summary");
  await expect(summary).toContainText("Game over");
  await expect(summary.locator("tbody tr")).toHaveCount(3);
  await expect(page.getByTestId("fof-reveal")).toBeVisible();
  await expect(page.getByTestId("fof-reveal").locator("li")).toHaveCount(3);
  await expect(page.getByTestId("verdict")).toContainText("matches the commitment");
  await expect(page.getByTestId("room-state")).toHaveText("finished");
  await shot(page, "flip_over_frog-reveal");

  // A rematch: same game and seats, a fresh room where Ada holds her seat again.
  const finished = await page.locator("[data-page=room]").getAttribute("data-room");
  await page.getByTestId("rematch").click();
  await expect(page.locator("[data-page=room]")).not.toHaveAttribute("data-room", finished!);
  await expect(page.getByTestId("room-state")).toHaveText("waiting");
  await expect(page.locator(".seat.me")).toContainText("Ada");
  await expect(page.locator(".seat")).toHaveCount(3);

  // Its replay speaks as Ada only from her own seat: from a bot's seat nothing says "you".
  await page.goto(`/#/replay/${finished}?viewer=1`);
  const position = page.getByTestId("replay-position");
  await expect(position).toHaveText(/^0 \/ \d+$/);
  await page.getByTestId("replay-end").click();
  await expect(page.getByTestId("summary")).toBeVisible();
  await expect(page.locator(".fof-hand")).toBeVisible();
  await expect(page.locator("main")).not.toContainText(/\b(you|your)\b/i);
  await shot(page, "flip_over_frog-replay-seen-by-a-bot");
  await page.getByTestId("replay-viewer").selectOption("0");
  await expect(page.getByTestId("summary")).toContainText("Ada (you)");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("a tile that can go nowhere says why", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  // A deal where Ada moves first on the empty board holding a Snake and a Frog: the Snake has
  // no face-up Frog to go on (about one deal in seven; the others are left to the bot).
  const snake = page.locator('.fof-hand-tile[data-tile^="S"]');
  let found = false;
  for (let deal = 0; deal < 60 && !found; deal++) {
    await createRoom(page, "flip_over_frog", ["me", "bot:bot"]);
    await start(page);
    await expect(page.locator(".fof-hand-tile")).toHaveCount(3);
    await expect(page.locator(".board-root.my-turn").or(page.locator(".fof-space:not(.empty)")).first()).toBeVisible();
    found =
      (await page.locator(".board-root.my-turn").isVisible()) &&
      (await page.locator(".fof-space:not(.empty)").count()) === 0 &&
      (await snake.count()) > 0 &&
      (await page.locator('.fof-hand-tile.playable[data-tile^="S"]').count()) === 0;
    if (!found) await page.getByTestId("leave").click();
  }
  expect(found, "a first turn with an unplayable Snake in hand").toBe(true);
  const hint = page.getByTestId("fof-hint");
  await snake.first().click();
  await expect(page.locator(".fof-space.lit")).toHaveCount(0);
  await expect(hint).toHaveText(/^\w+ cannot go anywhere: a Snake goes only on a face-up Frog, and none is on the board\.$/);
  await shot(page, "flip_over_frog-snake-nowhere");
  // Picking a tile that can go somewhere lights its spaces again.
  await page.locator(".fof-hand-tile.playable").first().click();
  await expect(page.locator(".fof-space.lit").first()).toBeVisible();
  await expect(hint).not.toContainText("cannot go anywhere");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
