/**
 * A spectator: found in the lobby's live list, watching the public view (no hand, no colour),
 * seeing the player's moves as they happen, counted in the room, and chatting on the
 * spectators' channel, which players do not read.
 */
import { expect, test } from "@playwright/test";
import { createRoom, frogTurn, player, shot, start } from "./helpers";

test("a spectator watches a live game", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const room = await createRoom(ada.page, "flip_over_frog", ["me", "bot:bot"]);
  await start(ada.page);

  const eve = await player(browser, "Eve");
  const card = eve.page.locator(`.room-card[data-room="${room}"]`);
  await expect(card).toHaveAttribute("data-state", "playing");
  await shot(eve.page, "lobby-rooms");
  await card.getByRole("button", { name: "Watch" }).click();
  await expect(eve.page.getByTestId("fof-board")).toBeVisible();
  await expect(eve.page.locator(".fof-mine")).toContainText("public view");
  await expect(eve.page.locator(".fof-hand-tile")).toHaveCount(0);
  await expect(ada.page.locator(".seat-list")).toContainText("1 watching");

  const before = await eve.page.locator(".fof-pile").textContent();
  await frogTurn(ada.page);
  await expect.poll(() => eve.page.locator(".fof-pile").textContent()).not.toBe(before);

  await eve.page.locator(".chat-input").fill("nice move");
  await eve.page.locator(".chat-form button").click();
  await expect(eve.page.locator(".chat-log")).toContainText("nice move");
  await ada.page.locator(".chat-input").fill("thanks");
  await ada.page.locator(".chat-form button").click();
  await expect(eve.page.locator(".chat-log")).toContainText("thanks");
  await expect(ada.page.locator(".chat-log")).not.toContainText("nice move");
  await shot(eve.page, "spectator");

  // Leaving the page stops watching.
  await eve.page.goto("/#/");
  await expect(ada.page.locator(".seat-list")).not.toContainText("watching");
  expect([...ada.errors, ...eve.errors]).toEqual([]);
  await ada.context.close();
  await eve.context.close();
});
