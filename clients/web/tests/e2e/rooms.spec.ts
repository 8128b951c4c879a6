/**
 * Two people in a private room: the code and the shareable link, joining through the lobby's
 * join form, the error line showing the server's refusal (start before everyone is ready),
 * ready and start, both boards, and chat between the players.
 */
import { expect, test } from "@playwright/test";
import { createRoom, player, shot } from "./helpers";

test("a private room joined by link, with an error line, ready, start and chat", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const bob = await player(browser, "Bob");
  const room = await createRoom(ada.page, "flip_over_frog", ["me", "open"], {}, { private: true });
  const code = await ada.page.getByTestId("room-code").textContent();
  expect(code).toMatch(/^[A-Z0-9]{6}$/);
  const link = await ada.page.locator("#share-link").inputValue();
  expect(link).toContain(`#/room/${room}?code=${code}`);

  // Private rooms are never listed.
  await expect(bob.page.locator(`[data-room="${room}"]`)).toHaveCount(0);
  await bob.page.locator("#join-code").fill(link);
  await bob.page.locator(".join-form button[type=submit]").click();
  await expect(bob.page.locator(".seat.me")).toContainText("Bob");
  await expect(ada.page.locator(".seat[data-seat='1']")).toContainText("Bob");

  // Starting before Bob is ready: the server refuses, and the error line says why.
  await ada.page.getByTestId("start").click();
  await expect(ada.page.getByTestId("error-line")).toHaveAttribute("data-code", "not_ready");
  await expect(ada.page.getByTestId("error-line")).toContainText("Bob (seat 2) is not ready.");
  await shot(ada.page, "room-waiting-error");

  // The host frees Bob's seat; Bob is told, and sits down again.
  await ada.page.locator(".seat[data-seat='1']").getByRole("button", { name: "Kick" }).click();
  await expect(bob.page.getByTestId("room-notice")).toHaveText("The host freed your seat. You are watching now.");
  await expect(ada.page.locator(".seat[data-seat='1']")).toContainText("open");
  await bob.page.getByTestId("sit-1").click();
  await expect(bob.page.locator(".seat.me")).toContainText("Bob");

  await bob.page.getByTestId("ready").click();
  await expect(ada.page.locator(".seat[data-seat='1'] .tag.ready")).toBeVisible();
  await ada.page.getByTestId("start").click();
  await expect(ada.page.getByTestId("fof-board")).toBeVisible();
  await expect(bob.page.getByTestId("fof-board")).toBeVisible();
  await expect(bob.page.locator(".fof-hand-tile")).toHaveCount(3);

  await bob.page.locator(".chat-input").fill("good luck!");
  await bob.page.locator(".chat-form button").click();
  await expect(ada.page.locator(".chat-log")).toContainText("good luck!");
  await expect(ada.page.locator(".chat-log")).toContainText("Bob");
  // Ada mutes Bob: his next line never reaches her.
  await ada.page.locator(".chat-line", { hasText: "good luck!" }).getByRole("button", { name: "mute" }).click();
  await expect(ada.page.locator(".chat-line .mute[aria-pressed=true]")).toHaveCount(1);
  await bob.page.locator(".chat-input").fill("can you hear me?");
  await bob.page.locator(".chat-form button").click();
  await expect(bob.page.locator(".chat-log")).toContainText("can you hear me?");
  await ada.page.locator(".chat-input").fill("hello?");
  await ada.page.locator(".chat-form button").click();
  await expect(bob.page.locator(".chat-log")).toContainText("hello?");
  await expect(ada.page.locator(".chat-log")).not.toContainText("can you hear me?");

  // Whoever moves first plays; the other sees the tile land.
  const first = (await ada.page.locator(".my-turn").count()) ? ada.page : bob.page;
  const other = first === ada.page ? bob.page : ada.page;
  await expect(first.locator(".my-turn")).toBeVisible();
  await first.locator(".fof-hand-tile.playable").first().click();
  await first.locator(".fof-space.lit").first().click();
  await expect(other.locator(".fof-space:not(.empty)")).toHaveCount(1);
  await expect(other.getByTestId("turn-status")).toContainText("Your turn");
  await shot(bob.page, "room-private-playing");
  expect([...ada.errors, ...bob.errors]).toEqual([]);
  await ada.context.close();
  await bob.context.close();
});
