/**
 * The move log in the browser: after a bot's move in Flip Over Frog, the board's "What
 * happened" list says in words what the bot did.
 */
import { expect, test } from "@playwright/test";
import { createRoom, frogTurn, player, start } from "./helpers";

test("a bot's Flip Over Frog move leaves a line in the move log", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  await createRoom(page, "flip_over_frog", ["me", "bot:bot", "bot:random"]);
  await start(page);
  const log = page.getByTestId("move-log");
  await expect(log).toBeVisible();
  await frogTurn(page, "mouse");
  const byBot = log.locator("li[data-seat='1'], li[data-seat='2']").filter({ hasText: /played|discarded/ });
  await expect(byBot.first()).toBeVisible();
  await expect(byBot.first()).toHaveText(/ (played (\w+ Frog \w+|Snake \w+) on space \d+|discarded Snake \w+)/);
  await expect(log.locator("li").first()).toHaveCSS("font-size", "14px");
  await expect(log.locator("li").filter({ hasText: /^You played/ }).first()).toBeVisible();

  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
