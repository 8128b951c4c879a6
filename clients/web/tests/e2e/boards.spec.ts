/**
 * Every game opens its own board in a real room against bots, with a screenshot of each (the
 * full games are in each game's own spec). Also the time from load to the lobby, and the
 * lobby and a board on a phone-sized screen.
 */
import { expect, test } from "@playwright/test";
import { createRoom, player, shot, start, URL } from "./helpers";

test("time from load to the lobby", async ({ browser }) => {
  // A fresh browser context: nothing cached, no identity yet.
  const context = await browser.newContext({ baseURL: URL() });
  const page = await context.newPage();
  const started = Date.now();
  await page.goto("/");
  await expect(page.locator(".rooms-panel .room-list").first()).toBeVisible();
  await page.waitForFunction(() => performance.getEntriesByName("lumin:lobby-shown").length > 0);
  const wall = Date.now() - started;
  const mark = await page.evaluate(() => performance.getEntriesByName("lumin:lobby-shown")[0]!.startTime);
  const at = await page.evaluate(() => {
    const time = (name: string) => Math.round(performance.getEntriesByName(name)[0]?.startTime ?? -1);
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    return { dom: Math.round(nav.domContentLoadedEventEnd), open: time("lumin:socket-open"), welcome: time("lumin:welcome") };
  });
  console.log(
    `time to lobby: ${mark.toFixed(0)} ms from navigation start to the room list drawn ` +
      `(DOMContentLoaded ${at.dom} ms, socket open ${at.open} ms, welcome ${at.welcome} ms; ${wall} ms wall clock in the test)`,
  );
  expect(mark).toBeLessThan(5000);
  await expect(page.getByTestId("create-game").locator("option")).toHaveCount(4);
  await shot(page, "lobby");
  await context.close();
});

test("Neon Hex and Neon Flip open their own boards", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  await createRoom(page, "neon_hex", ["me", "bot:easy"]);
  await start(page);
  await expect(page.locator(".board-root .nh-board")).toBeVisible();
  await expect(page.locator(".generic-board")).toHaveCount(0);
  await shot(page, "neon_hex-board");

  await createRoom(page, "neon_flip", ["me", "bot:bot"], { rounds: "1" });
  await start(page);
  await expect(page.locator(".board-root .nf-board")).toBeVisible();
  await page.locator(".nf-objective-offer").first().click();
  await expect(page.locator("[data-testid=nf-objective] strong")).toBeVisible();
  await shot(page, "neon_flip-board");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("Flash 8 race board", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  await createRoom(page, "flash8", ["me", "bot:bot"], { countdown: "0" });
  await start(page);
  await expect(page.locator(".board-root.board-flash8")).toBeVisible();
  await expect(page.locator(".f8-race[data-phase=running] .f8-tablet-large")).toBeVisible();
  await shot(page, "flash8-race");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("phone-sized lobby and board", async ({ browser }) => {
  const ada = await player(browser, "Ada", { width: 390, height: 844 });
  const { page } = ada;
  await shot(page, "phone-lobby");
  await createRoom(page, "flip_over_frog", ["me", "bot:bot"]);
  await start(page);
  await expect(page.locator(".fof-hand-tile")).toHaveCount(3);
  // The board fits the screen: no sideways scrolling.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, "phone-flip_over_frog");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("how-to pages and the sound settings", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(size);
    for (const game of ["flip_over_frog", "neon_hex", "flash8", "neon_flip"]) {
      await page.goto(`/#/howto/${game}`);
      await expect(page.locator(`.rules[data-game="${game}"] h3`).first()).toBeVisible();
      // Each game's tab keeps its name off its rounded edge.
      const tabs = page.locator("[data-page=howto] nav .tab");
      await expect(tabs).toHaveCount(4);
      for (const tab of await tabs.all()) {
        const inset = await tab.evaluate((el) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          const text = range.getBoundingClientRect();
          const box = el.getBoundingClientRect();
          return Math.min(text.left - box.left, box.right - text.right);
        });
        expect(inset, `the inset of a how-to tab's name`).toBeGreaterThanOrEqual(8);
      }
      expect(await page.locator(".rules section").count()).toBeGreaterThanOrEqual(4);
      // A board diagram, before and after, readable: inside the page's width, text >= 14 px.
      const diagram = page.getByTestId("howto-diagram");
      await expect(diagram.locator("svg")).toHaveCount(2);
      const fit = await diagram.evaluate((figure) => {
        const svgs = [...figure.querySelectorAll("svg")];
        const smallest = Math.min(...svgs.flatMap((drawn) => [...drawn.querySelectorAll("text")].map((text) => Number(text.getAttribute("font-size")) * (drawn.getBoundingClientRect().width / 260))));
        const right = Math.max(...svgs.map((drawn) => drawn.getBoundingClientRect().right));
        return { smallest, right, width: document.documentElement.clientWidth };
      });
      expect(fit.smallest).toBeGreaterThanOrEqual(14);
      expect(fit.right).toBeLessThanOrEqual(fit.width);
      await shot(page, `howto-${game}-${size.width}`, false);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  // Sound and music settings persist across reloads.
  await page.getByTestId("sound-toggle").click();
  await page.getByTestId("music-toggle").click();
  await page.reload();
  await expect(page.getByTestId("sound-toggle")).toHaveAttribute("aria-pressed", "false");
  await expect(page.getByTestId("music-toggle")).toHaveAttribute("aria-pressed", "true");
  await page.getByTestId("music-toggle").click();
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
