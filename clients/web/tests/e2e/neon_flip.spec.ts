/**
 * Neon Flip through its own board against a real `lumin serve` (tests/e2e/global-setup.ts):
 * a two-player Classic game (one round) against the `bot` played to its final tally, and a
 * Cyber-Solitaire game against PROTO-ZERO to its end. The person plays as one would: the
 * objective by keyboard, the first card by keyboard (a number, the arrows to a lit tile with
 * its preview, Enter), then by mouse: buys from the market, one card a turn with whatever
 * target it needs (a lit tile, an edge arrow, a button, a confirm), cascades, discards, and
 * End turn. Screenshots go to the harness's screens folder.
 */
import { expect, type Page, test } from "@playwright/test";
import { createRoom, player, shot, start } from "./helpers";

const BOARD = ".board-root .nf-board";

/** What the board shows now, in one round trip. */
interface Seen {
  frame: string;
  phase: string;
  mine: boolean;
  cascade: boolean;
  discard: boolean;
  buyable: number;
  playable: number;
}

function seen(page: Page): Promise<Seen> {
  return page.evaluate((selector) => {
    const board = document.querySelector<HTMLElement>(selector);
    return {
      frame: board?.dataset.frame ?? "",
      phase: board?.dataset.phase ?? "",
      mine: board?.classList.contains("nf-my-turn") ?? false,
      cascade: document.querySelector("[data-testid=nf-stop-cascade]") !== null,
      discard: document.querySelector(".nf-card.discardable") !== null,
      buyable: document.querySelectorAll(".nf-market .nf-card.buyable").length,
      playable: document.querySelectorAll(".nf-hand .nf-card.playable").length,
    };
  }, BOARD);
}

/** Wait until the board drew a new frame since `frame` (a command's answer arrived). */
async function moved(page: Page, frame: string): Promise<void> {
  await page
    .waitForFunction(([selector, was]) => document.querySelector<HTMLElement>(selector!)?.dataset.frame !== was, [BOARD, frame], { timeout: 10_000 })
    .catch(() => undefined);
}

/** Pick a playable card and finish its targets by mouse; false when it could not be played. */
async function playCard(page: Page, index: number): Promise<boolean> {
  const cards = page.locator(".nf-hand .nf-card.playable");
  if ((await cards.count()) <= index) return false;
  await cards.nth(index).click();
  for (let step = 0; step < 3; step++) {
    const target = page.locator(".nf-actionbar .nf-confirm, .nf-actionbar .nf-choice, .nf-tile.lit, .nf-edge.lit").first();
    if (!(await target.isVisible().catch(() => false))) break;
    const before = (await seen(page)).frame;
    await target.hover();
    await target.click();
    // A tile that completes the play sends it; a first tile of a swap asks for the second.
    if (!(await page.locator(".nf-actionbar .nf-cancel").isVisible())) return true;
    await moved(page, before);
    if (!(await page.locator(".nf-actionbar .nf-cancel").isVisible())) return true;
  }
  await page.keyboard.press("Escape");
  await page.keyboard.press("Escape");
  return false;
}

/** The objective, by keyboard: focus the first offer and press Enter. */
async function chooseObjective(page: Page): Promise<void> {
  const offer = page.locator(".nf-objective-offer").first();
  await expect(offer).toBeVisible();
  await offer.focus();
  await page.keyboard.press("Enter");
  await expect(page.locator("[data-testid=nf-objective] strong")).toBeVisible();
}

/** Cancel a half-chosen card by keyboard: Escape steps back one target at a time. */
async function cancelByKeyboard(page: Page): Promise<void> {
  for (let i = 0; i < 3 && (await page.locator(".nf-actionbar .nf-cancel").isVisible()); i++) await page.keyboard.press("Escape");
}

/** The first card of the game by keyboard: its number, then arrows and Enter on a lit tile
 *  whose effect is outlined. A card with two tile targets (Node Swap) outlines nothing until
 *  its first tile is picked, with Enter; a card aimed at the grid's edges is skipped. */
async function keyboardPlay(page: Page): Promise<boolean> {
  const hand = page.locator(".nf-hand .nf-card");
  const preview = page.locator(".nf-tile.nf-preview, .nf-tile.nf-cascade-next");
  const lit = page.locator(".nf-tile.lit");
  const hint = page.getByTestId("nf-hint");
  const count = await hand.count();
  for (let i = 0; i < count; i++) {
    const card = hand.nth(i);
    if (!(await card.evaluate((el) => el.classList.contains("playable")))) continue;
    await page.keyboard.press(String(i + 1));
    const focused = await page.evaluate(() => document.activeElement?.className ?? "");
    if (!focused.includes("nf-tile") || !focused.includes("lit")) {
      await cancelByKeyboard(page);
      continue;
    }
    // Move along the grid and back: the preview follows the focus. (A lit tile on the right
    // edge does not move right, so the way back can land on an unlit one: focus a lit one.)
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowLeft");
    for (let step = 0; step < 2 && (await preview.count()) === 0; step++) {
      // A target whose effect changes no tile outlines nothing: try the lit tiles in turn.
      const tiles = await lit.count();
      for (let t = 0; t < tiles && (await preview.count()) === 0; t++) await lit.nth(t).focus();
      if ((await preview.count()) > 0 || !(await hint.textContent())?.includes("then pick the next target")) break;
      await page.keyboard.press("Enter");
    }
    if ((await preview.count()) === 0) {
      await cancelByKeyboard(page);
      continue;
    }
    await expect(preview.first()).toBeVisible();
    await expect(hint).toContainText("Enter or click to play");
    await shot(page, "neon_flip-preview");
    const before = (await seen(page)).frame;
    await page.keyboard.press("Enter");
    await moved(page, before);
    return true;
  }
  return false;
}

/** Play one whole turn of ours; returns what it did. */
async function ourTurn(page: Page, turn: number, plan = { buys: 2, play: true, keyboard: true }): Promise<string[]> {
  const did: string[] = [];
  let buys = 0;
  let played = !plan.play;
  for (let guard = 0; guard < 12; guard++) {
    const now = await seen(page);
    if (!now.mine || now.phase === "over") return did;
    if (now.cascade) {
      // Take the first cascade flip on even turns, stop on odd ones.
      if (turn % 2 === 0) await page.locator(".nf-tile.lit").first().click();
      else await page.getByTestId("nf-stop-cascade").click();
      did.push("cascade");
    } else if (now.discard) {
      await page.locator(".nf-card.discardable").first().click();
      did.push("discard");
    } else if (turn === 0 && !played && plan.keyboard) {
      played = true;
      if (await keyboardPlay(page)) did.push("keyboard play");
      continue;
    } else if (now.buyable && buys < plan.buys) {
      await page.locator(".nf-market .nf-card.buyable").first().click();
      buys += 1;
      did.push("buy");
    } else if (!played && now.playable) {
      played = true;
      if (await playCard(page, turn % Math.max(1, now.playable))) did.push("play");
      await moved(page, now.frame);
      continue;
    } else {
      await page.getByTestId("nf-end-turn").click();
      did.push("end");
    }
    await moved(page, now.frame);
  }
  return did;
}

/** Wait for our turn or the end (polled every frame); false at the end. */
async function waitTurn(page: Page): Promise<boolean> {
  const handle = await page.waitForFunction(
    (selector) => {
      const board = document.querySelector<HTMLElement>(selector);
      if (!board) return null;
      if (board.dataset.phase === "over") return "over";
      return board.classList.contains("nf-my-turn") ? "mine" : null;
    },
    BOARD,
    { timeout: 30_000 },
  );
  return (await handle.jsonValue()) === "mine";
}

test("a two-player Neon Flip game against the bot, to the final tally", async ({ browser }) => {
  test.setTimeout(120_000);
  const started = Date.now();
  const ada = await player(browser, "Ada");
  const { page } = ada;
  await createRoom(page, "neon_flip", ["me", "bot:bot"], { rounds: "1" });
  await start(page);
  await expect(page.locator(BOARD)).toBeVisible();
  await expect(page.locator(".nf-tile")).toHaveCount(36);
  // Every tile carries its colour's symbol as well as its hue.
  const symbols = await page.locator(".nf-tile .nf-symbol").allTextContents();
  expect(new Set(symbols)).toEqual(new Set(["◆", "●"]));
  await chooseObjective(page);
  await shot(page, "neon_flip-start");
  // However large the hand grows mid-turn (10 cards here, copies of one), the market and the
  // turn's controls stay on the 1280x800 screen and the page does not scroll.
  const fits = await page.locator(".nf-hand").evaluate((hand) => {
    const first = hand.querySelector(".nf-card")!;
    while (hand.querySelectorAll(".nf-card").length < 10) hand.append(Object.assign(first.cloneNode(true) as Element, { className: `${first.className} e2e-copy` }));
    const bottom = (selector: string) => document.querySelector(selector)!.getBoundingClientRect().bottom;
    const seen = { market: bottom(".nf-market") <= window.innerHeight, controls: bottom(".nf-controls") <= window.innerHeight, scrolled: window.scrollY };
    for (const copy of hand.querySelectorAll(".e2e-copy")) copy.remove();
    return seen;
  });
  expect(fits).toEqual({ market: true, controls: true, scrolled: 0 });

  let turns = 0;
  const log: string[] = [];
  while (await waitTurn(page)) {
    // A card on the first turns and every other turn after; buys run the deck down quicker.
    log.push(...(await ourTurn(page, turns, { buys: 2, play: turns < 2 || turns % 2 === 0, keyboard: true })));
    if (turns === 1) await shot(page, "neon_flip-playing");
    turns += 1;
    expect(turns).toBeLessThan(60);
  }
  console.log(`neon_flip duel: ${turns} turns of ours (${log.join(", ")}) in ${Date.now() - started} ms`);
  expect(log).toContain("keyboard play");
  expect(log).toContain("end");

  const tally = page.getByTestId("nf-tally");
  await expect(tally).toBeVisible();
  await expect(tally.locator("tbody tr")).toHaveCount(2);
  await expect(tally.locator("h3")).toHaveText(/You win!|You finish 2nd|You share the victory!/);
  await expect(page.getByTestId("summary")).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "neon_flip-end");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("Cyber-Solitaire against PROTO-ZERO, to the end, on a phone", async ({ browser }) => {
  test.setTimeout(120_000);
  const started = Date.now();
  const ada = await player(browser, "Ada", { width: 390, height: 844 });
  const { page } = ada;
  await createRoom(page, "neon_flip", ["me"], { mode: "solo" });
  await start(page);
  await expect(page.locator(BOARD)).toBeVisible();
  await expect(page.getByTestId("nf-mode")).toContainText("PROTO-ZERO");
  // The grid fits the phone: nothing scrolls sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await chooseObjective(page);
  // A hand of 7 or 8 cards (mid-turn, before the discard) stays on one row, each card a
  // target of 44 px at least: drawn here by adding copies of a card to the hand.
  await page.locator(".nf-hand").evaluate((hand) => {
    const first = hand.querySelector(".nf-card")!;
    while (hand.querySelectorAll(".nf-card").length < 8) hand.append(Object.assign(first.cloneNode(true) as Element, { className: `${first.className} e2e-copy` }));
  });
  await shot(page, "neon-flip-hand-of-8-390", false);
  const row = await page.locator(".nf-hand").evaluate((hand) => {
    const cards = [...hand.querySelectorAll(".nf-card")].map((card) => card.getBoundingClientRect());
    const seen = { tops: new Set(cards.map((box) => Math.round(box.top))).size, narrowest: Math.min(...cards.map((box) => box.width)), page: document.documentElement.scrollWidth };
    for (const copy of hand.querySelectorAll(".e2e-copy")) copy.remove();
    return seen;
  });
  expect(row).toEqual({ tops: 1, narrowest: expect.any(Number), page: 390 });
  expect(row.narrowest).toBeGreaterThanOrEqual(44);

  let turns = 0;
  let sawAi = false;
  const live = page.locator(".nf-ai-banner.nf-live");
  while (await waitTurn(page)) {
    // A card on every sixth turn, else just the end of the turn: PROTO-ZERO's deck runs the
    // clock. Its card shows while its turn plays out.
    await ourTurn(page, turns, { buys: 0, play: turns % 6 === 0, keyboard: false });
    if (!sawAi && (await live.isVisible().catch(() => false))) {
      sawAi = true;
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, "neon_flip-solo-proto-zero");
    }
    turns += 1;
    expect(turns).toBeLessThan(40);
  }
  console.log(`neon_flip solo: ${turns} turns in ${Date.now() - started} ms`);
  expect(sawAi).toBe(true);
  await expect(page.getByTestId("nf-tally").locator("h3")).toHaveText(/You beat PROTO-ZERO!|PROTO-ZERO wins/);
  await expect(page.getByTestId("nf-proto")).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "neon_flip-solo-end");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
