/**
 * Flash 8 through its own board against a real `lumin serve` (tests/e2e/global-setup.ts):
 * a race between two browser players played to its end, and a solo game to its end with the
 * high score list. The players follow the room's hints as a person would: ask (H or the
 * button), slide the electron the arrow points at (Ada by mouse, Bob by the arrow keys),
 * and FLASH (space bar) or claim the line (its number, then a shape) when the hint says the
 * tablet matches. Short options keep it quick: a 0.2 s countdown, a 20 s time limit on the race,
 * a 12 s solo clock. Screenshots go to the harness's screens folder.
 */
import { expect, type Page, test } from "@playwright/test";
import { createRoom, player, shot, start } from "./helpers";

/** What the Flash 8 board shows now, read in one round trip. */
interface BoardState {
  phase: string | null;
  tablet: string;
  hint: string;
  src: number | null;
  dst: number | null;
  canHint: boolean;
  line: number | null;
}

function boardState(page: Page): Promise<BoardState> {
  return page.evaluate(() => {
    const cell = (selector: string): number | null => {
      const element = document.querySelector(`.f8-tablet-large ${selector}`);
      return element ? Number(element.getAttribute("data-cell")) : null;
    };
    const line = document.querySelector(".f8-line.f8-hinted");
    return {
      phase: document.querySelector(".f8-race, .f8-solo")?.getAttribute("data-phase") ?? null,
      tablet: document.querySelector(".f8-tablet-large")?.getAttribute("data-tablet") ?? "",
      hint: document.querySelector(".f8-hint-text")?.textContent ?? "",
      src: cell(".f8-hint-src"),
      dst: cell(".f8-hint-dst"),
      canHint: document.querySelector(".f8-hint-button:not([disabled]):not([hidden])") !== null,
      line: line ? Number(line.getAttribute("data-line")) : null,
    };
  });
}

/** Wait until the board changed since `before` (tablet, hint or phase), or a moment passed. */
async function changed(page: Page, before: BoardState): Promise<void> {
  await page
    .waitForFunction(
      (was) =>
        document.querySelector(".f8-race, .f8-solo")?.getAttribute("data-phase") !== was.phase ||
        document.querySelector(".f8-tablet-large")?.getAttribute("data-tablet") !== was.tablet ||
        (document.querySelector(".f8-hint-text")?.textContent ?? "") !== was.hint,
      before,
      { timeout: 1500 },
    )
    .catch(() => undefined);
}

/** The arrow key that slides the electron on `src` into the free cell `dst`: the key of the
 *  side of the free space where the electron stands. */
function arrow(src: number, dst: number): string {
  return src === dst - 3 ? "ArrowUp" : src === dst + 3 ? "ArrowDown" : src === dst - 1 ? "ArrowLeft" : "ArrowRight";
}

/** One slide along the hint: a click, a drag, or an arrow key. */
async function slide(page: Page, state: BoardState, by: "mouse" | "keyboard", drag: boolean): Promise<void> {
  if (by === "keyboard") {
    await page.keyboard.press(arrow(state.src!, state.dst!));
    return;
  }
  const from = page.locator(`.f8-tablet-large [data-cell="${state.src}"]`);
  if (!drag) {
    await from.click({ timeout: 2000 }).catch(() => undefined); // the hint may have gone stale
    return;
  }
  const a = await from.boundingBox();
  const b = await page.locator(`.f8-tablet-large [data-cell="${state.dst}"]`).boundingBox();
  if (!a || !b) return;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 6 });
  await page.mouse.up();
}

/** Race until the end by following hints; returns how many gestures it took. */
async function race(page: Page, by: "mouse" | "keyboard", deadline: number): Promise<number> {
  let gestures = 0;
  while (Date.now() < deadline) {
    const state = await boardState(page);
    if (state.phase === "over") return gestures;
    if (state.phase !== "running") {
      await page.waitForTimeout(50);
      continue;
    }
    if (state.hint.includes("matches now")) {
      if (by === "keyboard") await page.keyboard.press("Space");
      else await page.locator(".f8-flash").click({ timeout: 2000 }).catch(() => undefined);
    } else if (state.src !== null && state.dst !== null) {
      await slide(page, state, by, by === "mouse" && gestures % 7 === 3);
    } else if (state.canHint) {
      if (by === "keyboard") await page.keyboard.press("h");
      else await page.locator(".f8-hint-button").click({ timeout: 2000 }).catch(() => undefined);
    } else {
      await page.waitForTimeout(50); // locked out, or waiting for an answer
      continue;
    }
    gestures += 1;
    await changed(page, state);
  }
  throw new Error("the race did not end in time");
}

test("a Flash 8 race between two browser players, to the end", async ({ browser }) => {
  test.setTimeout(150_000);
  const ada = await player(browser, "Ada");
  const bob = await player(browser, "Bob");
  const room = await createRoom(ada.page, "flash8", ["me", "open"], {
    countdown: "0.2",
    hints: true,
    lockout: "1",
    time_limit: "20",
  });
  await bob.page.goto(`/#/room/${room}`);
  await bob.page.getByTestId("sit-1").click();
  await expect(bob.page.getByTestId("ready")).toBeVisible();
  await bob.page.getByTestId("ready").click();
  await expect(ada.page.locator(".seat[data-seat='1'] .tag.ready")).toBeVisible();
  await start(ada.page);
  for (const page of [ada.page, bob.page]) {
    await expect(page.locator(".f8-race[data-phase=running]")).toBeVisible();
    // Each player's own tablet is the large one; the other's is small and live.
    await expect(page.locator(".f8-tablet-large")).toHaveCount(1);
    await expect(page.locator(".f8-seat .f8-tablet-small")).toHaveCount(1);
  }
  await expect(ada.page.locator(".f8-frame")).toContainText("south");
  await expect(bob.page.locator(".f8-frame")).toContainText("north");

  // Bob calls FLASH at once: almost surely no match, so he is locked out (or, by luck, scores).
  await bob.page.keyboard.press("Space");
  await expect(
    bob.page.locator(".f8-tablet-large .f8-lock:not([hidden])").or(bob.page.locator(".f8-toast-good")),
  ).toBeVisible();
  await shot(bob.page, "flash8-race-bob-flash");
  // Ada sees Bob's tablet move when he slides.
  const bobsTablet = await ada.page.locator(".f8-seat .f8-tablet-small").getAttribute("data-tablet");

  const deadline = Date.now() + 120_000;
  const racing = Promise.all([race(ada.page, "mouse", deadline), race(bob.page, "keyboard", deadline)]);
  await expect(ada.page.locator(".f8-seat .f8-tablet-small")).not.toHaveAttribute("data-tablet", bobsTablet ?? "");
  await expect(ada.page.locator(".f8-score-points").filter({ hasNotText: /^0$/ }).first()).toBeVisible({ timeout: 45_000 });
  await shot(ada.page, "flash8-race-ada-playing");
  await shot(bob.page, "flash8-race-bob-playing");
  const [adaGestures, bobGestures] = await racing;
  console.log(`flash8 race: Ada ${adaGestures} gestures (mouse), Bob ${bobGestures} (keyboard)`);

  for (const page of [ada.page, bob.page]) {
    const report = page.locator(".f8-report");
    await expect(report).toBeVisible();
    await expect(report.locator(".f8-report-players tbody tr")).toHaveCount(2);
    await expect(report.locator(".f8-report-reason")).toContainText(/Time is up|Every stack is empty/);
    await expect(page.getByTestId("summary")).toBeVisible();
  }
  // Both reports agree on the scores, and the titles on who won.
  const scores = async (page: Page) => page.locator(".f8-report-players tbody tr td:nth-of-type(1)").allTextContents();
  expect(await scores(ada.page)).toEqual(await scores(bob.page));
  const [a, b] = (await scores(ada.page)).map(Number) as [number, number];
  expect(a + b).toBeGreaterThan(0);
  const title = (page: Page) => page.locator(".f8-report-title").textContent();
  if (a === b) {
    expect(await title(ada.page)).toBe("You share the victory!");
  } else {
    expect(await title(a > b ? ada.page : bob.page)).toBe("You win!");
    expect(await title(a > b ? bob.page : ada.page)).toBe("You finish 2nd");
  }
  await shot(ada.page, "flash8-race-ada-end");
  await shot(bob.page, "flash8-race-bob-end");
  expect([...ada.errors, ...bob.errors]).toEqual([]);
  await ada.context.close();
  await bob.context.close();
});

test("a Flash 8 solo game to the end, with the high scores", async ({ browser }) => {
  test.setTimeout(90_000);
  const ada = await player(browser, "Ada");
  const { page } = ada;
  await createRoom(page, "flash8", ["me"], { mode: "solo", countdown: "0.2", hints: true, solo_seconds: "12" });
  await start(page);
  await expect(page.locator(".f8-solo[data-phase=running]")).toBeVisible();
  await expect(page.locator(".f8-grid-cell .f8-solo-card")).toHaveCount(9);
  await expect(page.locator(".f8-line")).toHaveCount(6);

  let claims = 0;
  let chooserShot = false;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const state = await boardState(page);
    if (state.phase === "over") break;
    if (state.phase !== "running") {
      await page.waitForTimeout(50);
      continue;
    }
    if (state.hint.includes("claim it") && state.line !== null) {
      // The line's key opens the shape choice; take the shape that covers the most cards.
      await page.keyboard.press(String(state.line + 1));
      const choices = page.locator(".f8-chooser .f8-shape-choice");
      // The shape choice opens, unless the game's clock ran out just before the key.
      await expect
        .poll(async () => (await choices.count()) === 4 || (await boardState(page)).phase === "over", { timeout: 15_000 })
        .toBe(true);
      if ((await choices.count()) !== 4) break;
      if (!chooserShot) {
        await shot(page, "flash8-solo-choose-shape");
        chooserShot = true;
      }
      const counts = await choices.locator(".f8-shape-count").allTextContents();
      const covers = counts.map((text) => Number(/\d+/.exec(text)?.[0] ?? 0));
      await page.keyboard.press(String(covers.indexOf(Math.max(...covers)) + 1));
      claims += 1;
    } else if (state.src !== null && state.dst !== null) {
      await page.keyboard.press(arrow(state.src, state.dst));
    } else if (state.canHint) {
      await page.keyboard.press("h");
    } else {
      await page.waitForTimeout(50);
      continue;
    }
    await changed(page, state);
  }
  console.log(`flash8 solo: ${claims} lines claimed`);
  expect(claims).toBeGreaterThan(0);
  const result = page.locator(".f8-result");
  await expect(result).toBeVisible();
  const score = Number(await result.locator(".f8-result-score").textContent());
  await expect(page.locator(".f8-solo-score")).toContainText(`Reserve ${score}`);
  // The server keeps the result: the list shows this game, marked as the player's.
  await expect(result.locator(".f8-highscore-list li.f8-me")).toContainText("Ada", { timeout: 10_000 });
  await expect(result.locator(".f8-highscore-list li.f8-me .f8-hs-score")).toHaveText(String(score));
  await shot(page, "flash8-solo-end");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("a Flash 8 race on a phone-sized screen", async ({ browser }) => {
  const ada = await player(browser, "Ada", { width: 390, height: 844 });
  const { page } = ada;
  await createRoom(page, "flash8", ["me", "bot:bot", "bot:bot"], { countdown: "0.2" });
  await start(page);
  await expect(page.locator(".f8-race[data-phase=running]")).toBeVisible();
  // The tablet scales to the width, and nothing scrolls sideways.
  const box = await page.locator(".f8-tablet-large").boundingBox();
  expect(box?.width ?? 0).toBeGreaterThan(250);
  expect(box?.width ?? 999).toBeLessThanOrEqual(390);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const tablet = page.locator(".f8-tablet-large");
  const before = await tablet.getAttribute("data-tablet");
  await page.locator(".f8-tablet-large .f8-movable").first().click();
  await expect(tablet).not.toHaveAttribute("data-tablet", before ?? "");
  await page.locator(".f8-board").scrollIntoViewIfNeeded();
  await shot(page, "flash8-race-phone", false);
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
