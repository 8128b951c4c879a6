/**
 * Neon Hex Strategy through its own board against a real `lumin serve`
 * (tests/e2e/global-setup.ts, bots with no delay): a person plays a whole game against two AI
 * factions by mouse and keyboard — Safe expansions by clicking a lit hex and its Safe button,
 * by arrow / Tab focus, Enter and S, a Risk roll by R (and a bonus pair), ending turns with E
 * or the button — while the bots' turns play out on the map; then the result. And the board
 * on a phone-sized screen. Screenshots go to the harness's screens folder.
 */
import { expect, type Page, test } from "@playwright/test";
import { createRoom, player, shot, start } from "./helpers";

const steps = async (page: Page): Promise<number> => Number((await page.locator(".nh-board").getAttribute("data-steps")) ?? 0);

/** Wait until the board has shown something new since `before`. */
async function moved(page: Page, before: number): Promise<void> {
  await expect.poll(() => steps(page), { timeout: 15_000 }).toBeGreaterThan(before);
}

test("a whole Neon Hex game against two AI factions, by mouse and keyboard", async ({ browser }) => {
  test.setTimeout(90_000);
  const ada = await player(browser, "Ada");
  const { page } = ada;
  await createRoom(page, "neon_hex", ["me", "bot:easy", "bot:medium"]);
  await start(page);
  const board = page.locator(".board-root.board-neon_hex .nh-board");
  await expect(board, "the Neon Hex board is registered in src/boards/index.ts").toBeVisible();
  await expect(page.locator(".nh-hex")).toHaveCount(37);
  await expect(page.locator(".nh-faction")).toHaveCount(3);
  await expect(page.locator(".nh-faction.me")).toContainText("Ada");
  await shot(page, "neon_hex-start");

  const mineOrOver = page.locator(".board-root.my-turn, [data-testid=nh-result]:not([hidden])").first();
  const result = page.getByTestId("nh-result");
  let moves = 0;
  let rolled = false;
  let sawBots = false;
  const deadline = Date.now() + 70_000;
  while (Date.now() < deadline) {
    await expect(mineOrOver).toBeVisible({ timeout: 30_000 });
    if (await result.isVisible()) break;
    const before = await steps(page);
    const lit = page.locator(".nh-hex.nh-target");
    if ((await lit.count()) === 0) {
      // No Energy left for an expansion: end the turn (the button, or E).
      if (moves % 2) await page.getByTestId("nh-end-turn").click({ timeout: 10_000 });
      else await page.keyboard.press("e");
    } else if (!rolled && (await page.locator(`[data-testid=nh-energy-0]`).textContent())!.match(/⚡ ([2-9]|\d\d)/)) {
      // One Risk by keyboard: focus a lit hex, Enter, R (and the first bonus pair if asked).
      await lit.first().focus();
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("nh-risk")).toContainText("10/36 (28%)");
      await page.keyboard.press("r");
      if (await page.locator(".nh-pair").first().isVisible()) {
        await shot(page, "neon_hex-bonus-choice");
        await page.keyboard.press("1");
      }
      await expect(page.locator(".nh-dice[data-state]")).toBeVisible();
      await shot(page, "neon_hex-dice", false);
      await expect(page.locator(".nh-dice[data-state=success], .nh-dice[data-state=fail]")).toBeVisible();
      rolled = true;
    } else if (moves % 2 === 0) {
      // By mouse: a lit hex, then Safe.
      await lit.first().click({ timeout: 10_000 });
      await page.getByTestId("nh-safe").click({ timeout: 10_000 });
    } else {
      // By keyboard: arrow from a lit hex to the next lit one if there is one, Enter, S.
      await lit.last().focus();
      await page.keyboard.press("Enter");
      await expect(page.locator(".nh-hex.nh-selected")).toHaveCount(1);
      await page.keyboard.press("s");
    }
    moves += 1;
    await moved(page, before);
    if (!sawBots && (await page.locator(".nh-log li:not(.turn)[data-seat='1'], .nh-log li:not(.turn)[data-seat='2']").count()) > 0) {
      sawBots = true;
      await shot(page, "neon_hex-bots-played");
    }
  }
  await expect(result).toBeVisible();
  console.log(`neon hex: ${moves} moves by Ada; ${await page.getByTestId("nh-result-title").textContent()}`);
  await expect(page.getByTestId("nh-result-title")).toHaveText(/You win!|You finish \d(st|nd|rd|th)|You share the victory!/);
  await expect(page.locator(".nh-standings li")).toHaveCount(3);
  await expect(page.getByTestId("summary")).toBeVisible();
  expect(rolled).toBe(true);
  expect(sawBots).toBe(true);
  await shot(page, "neon_hex-end");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("the Neon Hex board on a phone-sized screen", async ({ browser }) => {
  const ada = await player(browser, "Ada", { width: 390, height: 844 });
  const { page } = ada;
  await createRoom(page, "neon_hex", ["me", "bot:easy", "bot:easy", "bot:easy", "bot:easy"]);
  await start(page);
  await expect(page.locator(".board-root.my-turn")).toBeVisible();
  const map = await page.locator(".nh-map").boundingBox();
  expect(map?.width ?? 0).toBeGreaterThan(300);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const before = await steps(page);
  await page.locator(".nh-hex.nh-target").first().tap().catch(() => page.locator(".nh-hex.nh-target").first().click());
  await page.getByTestId("nh-safe").click();
  await moved(page, before);
  // The map just below the shell's sticky header.
  await page.evaluate(() => {
    const header = document.querySelector("header")?.getBoundingClientRect().height ?? 0;
    window.scrollTo(0, document.querySelector(".nh-map")!.getBoundingClientRect().top + window.scrollY - header - 8);
  });
  await shot(page, "neon_hex-phone", false);
  await shot(page, "neon_hex-phone-full");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
