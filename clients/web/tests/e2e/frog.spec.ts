/**
 * A person plays a whole Flip Over Frog game against two bots through the page: the form,
 * the board (mouse and keyboard), the turn alerts, the final reveal and the summary with the
 * seed check. Screenshots: the board at the start, in the middle, and the reveal.
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
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
