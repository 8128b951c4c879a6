/**
 * Helpers for the e2e tests: players in their own browser contexts (so each is its own
 * identity), the create-room form driven as a person would, Flip Over Frog turns, and
 * screenshots into LUMIN_SCREENS.
 */
import { type Browser, type BrowserContext, expect, type Page } from "@playwright/test";
import { join } from "node:path";

export const URL = (): string => {
  const url = process.env.LUMIN_URL;
  if (!url) throw new Error("LUMIN_URL is not set: the global setup starts the server.");
  return url;
};

export interface Player {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/** A new person: a fresh browser context (own storage, own token) with a chosen name, its
 *  page served from `baseURL` (the suite's server unless given); `watch` may add listeners
 *  to the page before it loads. */
export async function player(
  browser: Browser,
  name: string,
  viewport = { width: 1280, height: 900 },
  baseURL = URL(),
  watch: (page: Page) => void = () => {},
): Promise<Player> {
  const context = await browser.newContext({ viewport, baseURL });
  await context.addInitScript((chosen) => {
    try {
      if (!localStorage.getItem("lumin.name")) localStorage.setItem("lumin.name", chosen);
    } catch {
      /* about:blank has no storage */
    }
  }, name);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  watch(page);
  await page.goto("/");
  await expect(page.locator("[data-testid=net]")).toHaveAttribute("data-status", "open");
  return { context, page, errors };
}

/** Save a screenshot under the screens folder. */
export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  const folder = process.env.LUMIN_SCREENS ?? "test-results/screens";
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage, animations: "disabled" });
}

export type SeatSpec = "me" | "open" | `bot:${string}`;

/** Create a room through the lobby form; returns its id once the room page shows. */
export async function createRoom(
  page: Page,
  game: string,
  seats: SeatSpec[],
  options: Record<string, string | boolean> = {},
  extra: { private?: boolean } = {},
): Promise<string> {
  await page.goto("/#/");
  const form = page.getByTestId("create-form");
  await expect(form).toBeVisible();
  await page.getByTestId("create-game").selectOption(game);
  const count = page.getByTestId("create-seats");
  // The seat count first, then the options (the form shows only those that apply to the mode
  // and seat count, e.g. Neon Flip's teams at 4 seats), then the count again (a mode may
  // change the seats allowed).
  await count.fill(String(seats.length));
  await count.dispatchEvent("change");
  for (const [name, value] of Object.entries(options)) {
    const control = form.locator(`[data-option="${name}"]`).first();
    if (typeof value === "boolean") await control.setChecked(value);
    else if ((await control.evaluate((el) => el.tagName)) === "SELECT") await control.selectOption(value);
    else await control.fill(value);
  }
  await count.fill(String(seats.length));
  await count.dispatchEvent("change");
  for (const [index, seat] of seats.entries()) {
    await page.getByTestId(`seat-${index}-who`).selectOption(seat);
  }
  if (extra.private) await page.locator("#create-private").check();
  await page.getByTestId("create-submit").click();
  await expect(page.locator("[data-page=room]")).toBeVisible();
  const room = await page.locator("[data-page=room]").getAttribute("data-room");
  if (!room) throw new Error("no room id on the room page");
  return room;
}

/** Start the room (host) and wait for the board. */
export async function start(page: Page): Promise<void> {
  await page.getByTestId("start").click();
  await expect(page.locator(".board-root")).toBeVisible();
}

/** The number of plays so far, as the Flip Over Frog board shows it. */
async function plays(page: Page): Promise<string> {
  return (await page.locator(".fof-pile").textContent()) ?? "";
}

/**
 * Play one Flip Over Frog turn as a person would (pick a tile, then a lit space), by mouse or
 * by keyboard; returns false when the game ended instead.
 */
export async function frogTurn(page: Page, by: "mouse" | "keyboard" = "mouse"): Promise<boolean> {
  const summary = page.getByTestId("summary");
  const mine = page.locator(".board-root.board-flip_over_frog .my-turn, .board-root.my-turn");
  await expect(summary.or(mine)).toBeVisible({ timeout: 30_000 });
  if (await summary.isVisible()) return false;
  const before = await plays(page);
  const discard = page.getByTestId("fof-discard");
  const tiles = page.locator(".fof-hand-tile.playable");
  if (by === "keyboard") {
    const index = await page.locator(".fof-hand-tile").evaluateAll((all) => all.findIndex((el) => el.classList.contains("playable")));
    await page.locator("body").press(String(index + 1));
  } else await tiles.first().click();
  if (await discard.isVisible()) {
    await discard.click();
  } else {
    const lit = page.locator(".fof-space.lit").first();
    await expect(lit).toBeVisible();
    if (by === "keyboard") {
      await lit.focus();
      await page.keyboard.press("Enter");
    } else await lit.click();
  }
  await expect.poll(() => plays(page), { timeout: 15_000 }).not.toBe(before);
  return true;
}
