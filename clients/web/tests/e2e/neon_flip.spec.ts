/**
 * Neon Flip's turn line: the board says whose turn it is, and the room's own turn line stays
 * out of the way, from the first view on (the objectives on offer), for both players and a
 * spectator. The whole games, every mode to its end by keyboard, mouse and touch on a desktop
 * and a phone, are one_screen.spec.ts's (with neon_flip_play.ts).
 */
import { expect, type Page, test } from "@playwright/test";
import { createRoom, player, shot, start } from "./helpers";

test("the turn is said once from the start, to both players and to a spectator", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const bob = await player(browser, "Bob");
  const cy = await player(browser, "Cy");
  const room = await createRoom(ada.page, "neon_flip", ["me", "open"], { rounds: "1" });
  await bob.page.goto(`/#/room/${room}`);
  await bob.page.getByTestId("sit-1").click();
  await bob.page.getByTestId("ready").click();
  await expect(ada.page.locator(".seat[data-seat='1'] .tag.ready")).toBeVisible();
  await cy.page.goto(`/#/room/${room}`);
  await expect(cy.page.getByTestId("waiting")).toBeVisible();
  await start(ada.page);
  // Nobody has chosen an objective yet, so nothing else changes the page: the board's own
  // status line is the only turn line each of them reads.
  const says: [Page, string][] = [
    [ada.page, "Choose your secret objective."],
    [bob.page, "Choose your secret objective."],
    [cy.page, "Waiting for everyone to choose an objective…"],
  ];
  for (const [page, status] of says) {
    await expect(page.getByTestId("nf-status")).toHaveText(status);
    await expect(page.getByTestId("turn-status")).toBeHidden();
  }
  await shot(ada.page, "neon_flip-objectives-one-turn-line");
  // And once the turns begin, still one line each.
  await ada.page.locator(".nf-objective-offer").first().click();
  await bob.page.locator(".nf-objective-offer").first().click();
  for (const page of [ada.page, bob.page, cy.page]) {
    await expect(page.getByTestId("nf-status")).toHaveText(/Your turn\.|'s turn\./);
    await expect(page.getByTestId("turn-status")).toBeHidden();
  }
  expect([...ada.errors, ...bob.errors, ...cy.errors]).toEqual([]);
  for (const person of [ada, bob, cy]) await person.context.close();
});
