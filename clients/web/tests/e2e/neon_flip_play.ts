/**
 * Neon Flip played as a person would, for the e2e tests: the first card by keyboard (its
 * number, the arrows to a lit tile whose effect is outlined, Enter), and the checks of a hand
 * grown large mid-turn. one_screen.spec.ts plays every mode with these, on a phone and a
 * desktop.
 */
import { expect, type Page } from "@playwright/test";
import { shot } from "./helpers";

export const BOARD = ".board-root .nf-board";

/** The board's frame count now (it grows with every view drawn). */
export function frameOf(page: Page): Promise<string> {
  return page.evaluate((selector) => document.querySelector<HTMLElement>(selector)?.dataset.frame ?? "", BOARD);
}

/** Wait until the board drew a new frame since `frame` (a command's answer arrived). */
export async function moved(page: Page, frame: string): Promise<void> {
  await page
    .waitForFunction(([selector, was]) => document.querySelector<HTMLElement>(selector!)?.dataset.frame !== was, [BOARD, frame], { timeout: 10_000 })
    .catch(() => undefined);
}

/** Cancel a half-chosen card by keyboard: Escape steps back one target at a time. */
async function cancelByKeyboard(page: Page): Promise<void> {
  for (let i = 0; i < 3 && (await page.locator(".nf-actionbar .nf-cancel").isVisible()); i++) await page.keyboard.press("Escape");
}

/** A card played by keyboard: its number, then arrows and Enter on a lit tile whose effect
 *  is outlined (with the hint saying how to play it). A card with two tile targets (Node
 *  Swap) outlines nothing until its first tile is picked, with Enter; a card aimed at the
 *  grid's edges is skipped. False when no card in hand could be played so. */
export async function keyboardPlay(page: Page): Promise<boolean> {
  const hand = page.locator(".nf-hand .nf-card");
  const preview = page.locator(".nf-tile.nf-preview, .nf-tile.nf-cascade-next");
  const lit = page.locator(".nf-tile.lit");
  const hint = page.getByTestId("nf-hint");
  const count = await hand.count();
  for (let i = 0; i < count && i < 9; i++) {
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
    await shot(page, "neon_flip-preview", false); // the screen as the player sees it
    const before = await frameOf(page);
    await page.keyboard.press("Enter");
    await moved(page, before);
    return true;
  }
  return false;
}

/** Copies of the first card grow the hand to `size` cards for a moment (as mid-turn, before
 *  the discard); returns what the page looked like then: the hand's rows, its narrowest
 *  card, whether the market and the turn's controls stayed on screen, and the page's width
 *  and scroll. */
export async function withHandOf(page: Page, size: number) {
  return page.locator(".nf-hand").evaluate((hand, size) => {
    const first = hand.querySelector(".nf-card")!;
    while (hand.querySelectorAll(".nf-card").length < size) hand.append(Object.assign(first.cloneNode(true) as Element, { className: `${first.className} e2e-copy` }));
    const cards = [...hand.querySelectorAll(".nf-card")].map((card) => card.getBoundingClientRect());
    const bottom = (selector: string) => document.querySelector(selector)!.getBoundingClientRect().bottom;
    const seen = {
      rows: new Set(cards.map((box) => Math.round(box.top))).size,
      narrowest: Math.min(...cards.map((box) => box.width)),
      market: bottom(".nf-market") <= window.innerHeight,
      controls: bottom(".nf-controls") <= window.innerHeight,
      width: document.documentElement.scrollWidth,
      scrolled: window.scrollY,
    };
    for (const copy of hand.querySelectorAll(".e2e-copy")) copy.remove();
    return seen;
  }, size);
}
