/**
 * A replay of a finished game: a bots-only room plays itself out; its replay is opened from
 * the room and from the lobby's finished list, then stepped, scrubbed with the slider, jumped
 * to the end (the summary shows), and seen through a seat's eyes (its hand appears). A bots-only
 * Neon Flip game's replay, seen from a seat, never says "you" (no one watching played it).
 */
import { expect, test } from "@playwright/test";
import { createRoom, player, shot } from "./helpers";

test("a replay with step, scrub and viewer", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  const room = await createRoom(page, "flip_over_frog", ["bot:random", "bot:bot"]);
  await expect(page.getByTestId("summary")).toBeVisible();
  await page.getByTestId("replay").click();
  await expect(page.locator("[data-page=replay]")).toBeVisible();

  const position = page.getByTestId("replay-position");
  await expect(position).toHaveText(/^0 \/ [1-9]\d*$/);
  const length = Number((await position.textContent())!.split("/")[1]);
  expect(length).toBeGreaterThan(10);
  await expect(page.locator(".fof-space:not(.empty)")).toHaveCount(0);

  // The first move is a tile placed, or a Snake discarded when no Frog is face up (the
  // bots' draw decides which): one of them, never both or neither.
  const placed = page.locator(".fof-space:not(.empty)");
  const discarded = page.locator(".fof-discards .fof-tile");
  await page.getByTestId("replay-forward").click();
  await expect(position).toHaveText(`1 / ${length}`);
  await expect.poll(async () => (await placed.count()) + (await discarded.count())).toBe(1);
  // The move log tells it in words, in a replay too (never "you": nobody watching played).
  await expect(page.getByTestId("move-log")).toContainText(/(Random bot 1|Bot 2) (played|discarded)/);
  await expect(page.getByTestId("move-log")).not.toContainText(/\bYou\b/);
  await page.getByTestId("replay-forward").click();
  await expect(position).toHaveText(`2 / ${length}`);
  await page.getByTestId("replay-back").click();
  await expect(position).toHaveText(`1 / ${length}`);
  await page.keyboard.press("ArrowRight");
  await expect(position).toHaveText(`2 / ${length}`);

  // Scrub: the slider to the middle.
  const middle = Math.floor(length / 2);
  await page.getByTestId("replay-slider").fill(String(middle));
  await expect(position).toHaveText(`${middle} / ${length}`);
  await expect(page.locator(".fof-pile")).toContainText(`${middle} plays`);
  await shot(page, "replay-middle");

  // Through seat 1's eyes: a hand appears.
  await page.getByTestId("replay-viewer").selectOption("1");
  await expect(page.locator(".fof-hand")).toBeVisible();
  await expect(page.getByTestId("fof-colour")).toContainText(/Red|Blue|Green|Yellow/);

  await page.getByTestId("replay-end").click();
  await expect(position).toHaveText(`${length} / ${length}`);
  await expect(page.getByTestId("summary")).toBeVisible();
  await expect(page.getByTestId("fof-reveal")).toBeVisible();
  await shot(page, "replay-end");

  // The lobby lists the finished game with its result in words, linked to the replay, and a
  // replay button.
  await page.goto("/#/");
  const card = page.locator(`.finished .room-card[data-room="${room}"]`);
  const result = card.getByTestId("result-line");
  await expect(result).toHaveText(/^(Random bot 1|Bot 2|Random bot 1 and Bot 2) (won|shared the win|tied) · \d+–\d+ · (just now|\d+ min ago)$/);
  await expect(result).toHaveAttribute("href", `#/replay/${room}`);
  await shot(page, "lobby-finished-result");
  await card.getByRole("button", { name: "Replay" }).click();
  await expect(page.getByTestId("replay-position")).toHaveText(`0 / ${length}`);

  // A replay link opened in a fresh page, seen from seat 0.
  await page.goto("about:blank");
  await page.goto(`/#/replay/${room}?viewer=0`);
  await expect(page.getByTestId("replay-position")).toHaveText(`0 / ${length}`);
  await expect(page.getByTestId("replay-viewer")).toHaveValue("0");
  await expect(page.locator(".fof-hand-tile")).toHaveCount(3);
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("a replay seen from a seat the viewer did not play never says you", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  const room = await createRoom(page, "neon_flip", ["bot:bot", "bot:bot"], { rounds: "1" });
  await expect(page.getByTestId("summary")).toBeVisible({ timeout: 60_000 });
  await page.goto(`/#/replay/${room}?viewer=0`);
  await expect(page.getByTestId("replay-position")).toHaveText(/^0 \/ \d+$/);
  // From the first step (the objectives on offer) to the end (the tally and the summary).
  await expect(page.locator(".nf-offers")).toBeVisible();
  await expect(page.locator("main")).not.toContainText(/\b(you|your)\b/i);
  await page.getByTestId("replay-end").click();
  await expect(page.getByTestId("nf-tally")).toBeVisible();
  await expect(page.getByTestId("summary")).toBeVisible();
  await expect(page.locator("main")).not.toContainText(/\b(you|your)\b/i);
  await shot(page, "neon_flip-replay-seen-by-a-bot");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
