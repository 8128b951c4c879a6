/**
 * Every game and mode played to its end on a phone (390x844, touch) and on a desktop
 * (1280x800, mouse) without scrolling: at every move the board, the player's own pieces and
 * the action controls are on screen, with text at least 14 px and targets at least 44 px
 * (tests/e2e/screen.ts). Short games keep it quick: one round, short clocks, bots with no delay
 * (the suite's server). A screenshot of each game in play and at its end goes to the screens
 * folder (LUMIN_SHOTS overrides it), named `<width>x<height>-<game>-<mode>-<when>.png`.
 */
import { type Browser, expect, type Locator, type Page, test } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createRoom, type SeatSpec, start } from "./helpers";
import { keyboardPlay, withHandOf } from "./neon_flip_play";
import { checkScreen, type Parts, SOFT } from "./screen";

interface Screen {
  width: number;
  height: number;
  touch: boolean;
}

const PHONE: Screen = { width: 390, height: 844, touch: true };
const DESKTOP: Screen = { width: 1280, height: 800, touch: false };

/** One game as the test plays it: how to set the room up and how to play one move. */
interface Game {
  game: string;
  mode: string;
  seats: SeatSpec[];
  options: Record<string, string | boolean>;
  parts: Parts;
  /** A second person who sits and does nothing (a race needs two humans' worth of seats). */
  idle?: boolean;
  /** Wait for the player's move and make it; "over" once the game has ended. */
  move(page: Page, press: Press, count: number, screen: Screen): Promise<"moved" | "over" | "waiting">;
  /** Checks once the board is drawn, before the first move. */
  start?(page: Page, screen: Screen): Promise<void>;
  /** What must have happened in the whole game, checked at its end. */
  played?(page: Page, screen: Screen): Promise<void>;
}

/** A tap on a touch screen, a click with a mouse. */
type Press = (target: Locator) => Promise<void>;

const FROG: Game = {
  game: "flip_over_frog",
  mode: "classic",
  seats: ["me", "bot:bot"],
  options: {},
  parts: { board: ".fof-grid", mine: ".fof-hand", actions: "[data-testid=fof-discard], .fof-hand-tile.playable" },
  async move(page, press) {
    const summary = page.getByTestId("summary");
    await expect(summary.or(page.locator(".board-root.my-turn"))).toBeVisible({ timeout: 30_000 });
    if (await summary.isVisible()) return "over";
    const before = await page.locator(".fof-pile").textContent();
    await press(page.locator(".fof-hand-tile.playable").first());
    const discard = page.getByTestId("fof-discard");
    if (await discard.isVisible()) await press(discard);
    else await press(page.locator(".fof-space.lit").first());
    await expect.poll(() => page.locator(".fof-pile").textContent(), { timeout: 15_000 }).not.toBe(before);
    return "moved";
  },
};

const HEX: Game = {
  game: "neon_hex",
  mode: "classic",
  seats: ["me", "bot:easy"],
  options: {},
  // Ada holds seat 0: her own pieces are the hexes she owns on the map.
  parts: { board: ".nh-map", mine: ".nh-hex[data-owner='0']", actions: ".nh-actions button" },
  async move(page, press) {
    const result = page.locator("[data-testid=nh-result]:not([hidden])");
    await expect(page.locator(".board-root.my-turn").or(result).first()).toBeVisible({ timeout: 30_000 });
    if (await result.isVisible()) return "over";
    const steps = async () => Number((await page.locator(".nh-board").getAttribute("data-steps")) ?? 0);
    const before = await steps();
    const lit = page.locator(".nh-hex.nh-target");
    if ((await lit.count()) === 0) await press(page.getByTestId("nh-end-turn"));
    else {
      await press(lit.first());
      await press(page.getByTestId("nh-safe"));
    }
    await expect.poll(steps, { timeout: 15_000 }).toBeGreaterThan(before);
    return "moved";
  },
};

/** Flash 8: what the board shows now, in one round trip. */
async function flash8State(page: Page) {
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
      canHint: document.querySelector(".f8-hint-button:not([disabled]):not([hidden])") !== null,
      line: line ? Number(line.getAttribute("data-line")) : null,
    };
  });
}

async function flash8Changed(page: Page, before: Awaited<ReturnType<typeof flash8State>>): Promise<void> {
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

/** A press of a real-time game whose target may be gone by then: it is read again next time. */
async function soft(pressed: Promise<void>): Promise<void> {
  await pressed.catch(() => undefined);
}

const RACE: Game = {
  game: "flash8",
  mode: "race",
  seats: ["me", "open"],
  idle: true,
  options: { countdown: "0.2", hints: true, lockout: "1", time_limit: "8" },
  parts: { board: ".f8-stacks", mine: ".f8-tablet-large", actions: ".f8-flash, .f8-hint-button" },
  async move(page, press) {
    const state = await flash8State(page);
    if (state.phase === "over") return "over";
    if (state.phase !== "running") {
      await page.waitForTimeout(50);
      return "waiting";
    }
    // The hint may go stale between reading it and the press (the clock, a lockout).
    if (state.hint.includes("matches now")) await soft(press(page.locator(".f8-flash")));
    else if (state.src !== null) await soft(press(page.locator(`.f8-tablet-large [data-cell="${state.src}"]`)));
    else if (state.canHint) await soft(press(page.locator(".f8-hint-button")));
    else {
      await page.waitForTimeout(50);
      return "waiting";
    }
    await flash8Changed(page, state);
    return "moved";
  },
};

const SOLO: Game = {
  game: "flash8",
  mode: "solo",
  seats: ["me"],
  options: { mode: "solo", countdown: "0.2", hints: true, solo_seconds: "8" },
  parts: { board: ".f8-grid", mine: ".f8-tablet-large", actions: ".f8-hint-button, .f8-shape-choice" },
  async move(page, press) {
    const state = await flash8State(page);
    if (state.phase === "over") return "over";
    if (state.phase !== "running") {
      await page.waitForTimeout(50);
      return "waiting";
    }
    if (state.hint.includes("claim it") && state.line !== null) {
      await soft(press(page.locator(`.f8-line[data-line="${state.line}"]`)));
      const choices = page.locator(".f8-chooser .f8-shape-choice");
      await expect.poll(async () => (await choices.count()) === 4 || (await flash8State(page)).phase === "over", { timeout: 15_000 }).toBe(true);
      if ((await choices.count()) !== 4) return "over";
      const counts = (await choices.locator(".f8-shape-count").allTextContents()).map((text) => Number(/\d+/.exec(text)?.[0] ?? 0));
      await soft(press(choices.nth(counts.indexOf(Math.max(...counts)))));
    } else if (state.src !== null) await soft(press(page.locator(`.f8-tablet-large [data-cell="${state.src}"]`)));
    else if (state.canHint) await soft(press(page.locator(".f8-hint-button")));
    else {
      await page.waitForTimeout(50);
      return "waiting";
    }
    await flash8Changed(page, state);
    return "moved";
  },
};

const NF_BOARD = ".board-root .nf-board";

/** What each Neon Flip page did in its game: cards bought from the market, turns ended,
 *  whether its first card was played by keyboard, and whether its long hand was checked. */
const did = new WeakMap<Page, { bought: number; ended: number; keyboard: boolean; hand: boolean; sinceEnd: number }>();
const doneOn = (page: Page) => did.get(page) ?? did.set(page, { bought: 0, ended: 0, keyboard: false, hand: false, sinceEnd: 0 }).get(page)!;

async function boughtSome(page: Page): Promise<void> {
  expect(doneOn(page).bought, "cards bought from the market").toBeGreaterThan(0);
}

/** Neon Flip: one step of the player's turn (an objective, a cascade flip, a discard, a buy,
 *  a card and its targets, or the end of the turn). On the desktop the first card of the game
 *  is played by keyboard; at the first turn with a hand, the hand grows to 10 cards (desktop)
 *  or 8 (phone) for a moment, and must still fit (`handFits`). */
async function neonFlipMove(page: Page, press: Press, count: number, screen: Screen, perTurn = Infinity): Promise<"moved" | "over" | "waiting"> {
  const state = await page
    .waitForFunction(
      (selector) => {
        const board = document.querySelector<HTMLElement>(selector);
        if (!board) return null;
        if (board.dataset.phase === "over") return "over";
        const offer = document.querySelector(".nf-offers:not([hidden]) .nf-objective-offer:not([disabled])");
        return board.classList.contains("nf-my-turn") || offer ? (board.dataset.frame ?? "") : null;
      },
      NF_BOARD,
      { timeout: 30_000 },
    )
    .then((handle) => handle.jsonValue());
  if (state === "over") return "over";
  const frame = state as string;
  const mine = doneOn(page);
  const main = (await page.locator(NF_BOARD).getAttribute("data-phase")) === "main";
  if (main && !mine.hand && (await page.locator(".nf-hand .nf-card").count()) > 0) {
    mine.hand = true;
    await handFits(page, screen);
  }
  if (main && !screen.touch && !mine.keyboard && (await page.locator(".nf-hand .nf-card.playable").count()) > 0) {
    if (await keyboardPlay(page)) {
      mine.keyboard = true;
      return "moved";
    }
  }
  const first = async (selector: string) => {
    const found = page.locator(selector);
    return (await found.count()) > 0 ? found.first() : null;
  };
  const offer = await first(".nf-offers:not([hidden]) .nf-objective-offer:not([disabled])");
  const stop = await first("[data-testid=nf-stop-cascade]");
  const discard = await first(".nf-card.discardable");
  const buy = await first(".nf-market .nf-card.buyable");
  const card = await first(".nf-hand .nf-card.playable");
  // A target can go between reading the board and the press (a play that needed no more):
  // the next move reads the board again.
  if (offer) await soft(press(offer));
  else if (stop) await soft(press(count % 2 ? stop : page.locator(".nf-tile.lit").first()));
  else if (discard) await soft(press(discard));
  // A game whose length is its turns' (solo: PROTO-ZERO's 24 cards) ends each turn after a
  // few moves.
  else if (mine.sinceEnd >= perTurn) {
    await press(page.getByTestId("nf-end-turn"))
      .then(() => ((mine.ended += 1), (mine.sinceEnd = -1)))
      .catch(() => undefined);
  }
  // The first chance to buy takes it, and every third move after (a short game, Overdrive's,
  // may end within a few moves): on the phone as on the desktop, the market shares the screen.
  else if (buy && (mine.bought === 0 || count % 3 === 1)) {
    await press(buy)
      .then(() => (mine.bought += 1))
      .catch(() => undefined);
  }
  else if (card && count % 2 === 0) {
    await soft(press(card));
    for (let step = 0; step < 3; step++) {
      const target = page.locator(".nf-actionbar .nf-confirm, .nf-actionbar .nf-choice, .nf-tile.lit, .nf-edge.lit").first();
      if (!(await target.isVisible().catch(() => false))) break;
      await soft(press(target));
      if (!(await page.locator(".nf-actionbar .nf-cancel").isVisible())) break;
    }
    if (await page.locator(".nf-actionbar .nf-cancel").isVisible()) await soft(press(page.locator(".nf-actionbar .nf-cancel")));
  } else {
    await press(page.getByTestId("nf-end-turn"))
      .then(() => ((mine.ended += 1), (mine.sinceEnd = -1)))
      .catch(() => undefined);
  }
  mine.sinceEnd += 1;
  await page
    .waitForFunction(([selector, was]) => document.querySelector<HTMLElement>(selector!)?.dataset.frame !== was, [NF_BOARD, frame], { timeout: 1500 })
    .catch(() => undefined);
  return "moved";
}

/** A hand grown mid-turn (10 cards on a 1280x900 desktop, 8 on the phone) keeps the page
 *  unscrolled with the market and the turn's controls on screen; on the phone it stays one
 *  row of targets of 44 px at least, scrolling sideways rather than widening the page. (At
 *  1280x800 a hand of 10 wraps to a fourth row and pushes the market below the screen.) */
async function handFits(page: Page, screen: Screen): Promise<void> {
  if (!screen.touch) await page.setViewportSize({ width: screen.width, height: 900 });
  const seen = await withHandOf(page, screen.touch ? 8 : 10);
  if (!screen.touch) await page.setViewportSize({ width: screen.width, height: screen.height });
  expect(seen, `a hand of ${screen.touch ? 8 : 10} at ${screen.width}x${screen.touch ? screen.height : 900}`).toMatchObject({ market: true, controls: true, scrolled: 0 });
  if (screen.touch) {
    expect(seen.rows, "the rows of a hand of 8 on a phone").toBe(1);
    expect(seen.narrowest).toBeGreaterThanOrEqual(44);
    expect(seen.width, "the page's width with a hand of 8").toBe(screen.width);
  }
}

/** Every tile carries its colour's symbol as well as its hue. */
async function symbolsOnTiles(page: Page): Promise<void> {
  await expect(page.locator(".nf-tile")).toHaveCount(36);
  const symbols = new Set(await page.locator(".nf-tile .nf-symbol").allTextContents());
  expect([...symbols].every((symbol) => ["◆", "●", "▲", "★"].includes(symbol))).toBe(true);
}

/** A duel's end: the tally ranks both players and says how the player did, once they had
 *  played a card by keyboard (desktop) and ended turns. */
async function duelPlayed(page: Page, screen: Screen): Promise<void> {
  await boughtSome(page);
  expect(doneOn(page).ended, "turns ended").toBeGreaterThan(0);
  if (!screen.touch) expect(doneOn(page).keyboard, "a card played by keyboard").toBe(true);
  const tally = page.getByTestId("nf-tally");
  await expect(tally.locator("tbody tr")).toHaveCount(2);
  await expect(tally.locator("h3")).toHaveText(/You win!|You finish 2nd|You share the victory!/);
}

/** Solo: the status line said PROTO-ZERO's card while its turn played out, and the tally
 *  says who won; PROTO-ZERO's panel lists its cards. */
async function soloStart(page: Page): Promise<void> {
  await symbolsOnTiles(page);
  await expect(page.getByTestId("nf-mode")).toContainText("PROTO-ZERO");
  await page.getByTestId("nf-status").evaluate((status) => {
    const said = ((window as unknown as { statuses: string[] }).statuses = [status.textContent ?? ""]);
    new MutationObserver(() => said.push(status.textContent ?? "")).observe(status, { childList: true, characterData: true, subtree: true });
  });
}

async function soloPlayed(page: Page): Promise<void> {
  await boughtSome(page);
  const statuses = await page.evaluate(() => (window as unknown as { statuses: string[] }).statuses);
  expect(statuses.some((text) => text.startsWith("PROTO-ZERO plays ")), "PROTO-ZERO's card said while it plays").toBe(true);
  await expect(page.getByTestId("nf-tally").locator("h3")).toHaveText(/You beat PROTO-ZERO!|PROTO-ZERO wins/);
  await expect(page.getByTestId("nf-proto")).toBeVisible();
}

// The market counts with the player's own pieces: it must be on screen at every move too.
const NF_PARTS: Parts = { board: ".nf-grid", mine: ".nf-hand, .nf-market", actions: ".nf-actionbar button, [data-testid=nf-end-turn]" };

const NEON_FLIP: Game[] = [
  { game: "neon_flip", mode: "classic", seats: ["me", "bot:bot"], options: { rounds: "1" }, parts: NF_PARTS, move: neonFlipMove, start: symbolsOnTiles, played: duelPlayed },
  { game: "neon_flip", mode: "teams", seats: ["me", "bot:bot", "bot:bot", "bot:bot"], options: { rounds: "1", teams: true }, parts: NF_PARTS, move: neonFlipMove, played: boughtSome },
  { game: "neon_flip", mode: "overdrive", seats: ["me", "bot:bot"], options: { mode: "overdrive", rounds: "1", clock: "1" }, parts: NF_PARTS, move: neonFlipMove, played: boughtSome },
  {
    game: "neon_flip",
    mode: "solo",
    seats: ["me"],
    options: { mode: "solo" },
    parts: NF_PARTS,
    move: (page, press, count, screen) => neonFlipMove(page, press, count, screen, 2),
    start: soloStart,
    played: soloPlayed,
  },
];

// The longest games first: with two workers, the short ones fill in around them.
const GAMES: Game[] = [...NEON_FLIP.slice().reverse(), FROG, HEX, RACE, SOLO];

/** Anything a board or the shell shows once the game is over. */
const ENDED = "[data-testid=summary], [data-phase=over], .f8-report:not([hidden]), .f8-result:not([hidden]), [data-testid=nf-tally]:not([hidden]), [data-testid=nh-result]:not([hidden])";

async function person(browser: Browser, name: string, screen: Screen) {
  const context = await browser.newContext({
    viewport: { width: screen.width, height: screen.height },
    hasTouch: screen.touch,
    isMobile: screen.touch,
    baseURL: process.env.LUMIN_URL,
  });
  await context.addInitScript((chosen) => {
    try {
      localStorage.setItem("lumin.name", chosen);
    } catch {
      /* about:blank has no storage */
    }
  }, name);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto("/");
  await expect(page.locator("[data-testid=net]")).toHaveAttribute("data-status", "open");
  return { context, page, errors };
}

const shots = process.env.LUMIN_SHOTS ?? process.env.LUMIN_SCREENS ?? "test-results/screens";

/** Play one whole game of `game` on `screen`, checking the screen at every move. */
async function playOn(browser: Browser, game: Game, screen: Screen): Promise<void> {
  const size = `${screen.width}x${screen.height}`;
  const started = Date.now();
  const ada = await person(browser, "Ada", screen);
  const { page } = ada;
  // A person presses what has stopped moving: on Neon Flip's grid, where tiles flip in turn, a
  // press waits for the flips to land (Playwright would otherwise retry a press a turning tile
  // intercepts, scrolling the page to other alignments, which the screen check then reports).
  const settled = async () => {
    if (game.game !== "neon_flip") return;
    await page
      .waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== "running" || animation.effect?.getComputedTiming().iterations === Infinity), null, { timeout: 1500 })
      .catch(() => undefined);
  };
  const press: Press = screen.touch ? async (target) => (await settled(), target.tap({ timeout: 3000 })) : async (target) => (await settled(), target.click({ timeout: 3000 }));
  const room = await createRoom(page, game.game, game.seats, game.options);
  const idle = game.idle ? await person(browser, "Bob", screen) : null;
  if (idle) {
    await idle.page.goto(`/#/room/${room}`);
    await idle.page.getByTestId("sit-1").click();
    await idle.page.getByTestId("ready").click();
    await expect(page.locator(".seat[data-seat='1'] .tag.ready")).toBeVisible();
  }
  await start(page);
  await expect(page.locator(game.parts.board).first()).toBeVisible();
  await game.start?.(page, screen);
  const found = new Set<string>();
  let moves = 0;
  for (let guard = 0; guard < 400; guard++) {
    // During play only: the end's report and summary may take the screen.
    const over = async () => (await page.locator(ENDED).filter({ visible: true }).count()) > 0;
    if ((moves > 0 || guard > 0) && !(await over())) await checkScreen(page, game.parts, found, `${size}, move ${moves + 1}`, over);
    const step = await game.move(page, press, moves, screen);
    if (step === "over") break;
    if (step === "moved") moves += 1;
    if (moves === 3 && step === "moved") await page.screenshot({ path: join(shots, `${size}-${game.game}-${game.mode}-play.png`) });
  }
  await expect(page.getByTestId("summary")).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: join(shots, `${size}-${game.game}-${game.mode}-end.png`) });
  console.log(`${size} ${game.game} ${game.mode}: ${moves} moves in ${Date.now() - started} ms${SOFT ? `; found: ${[...found].join(" | ") || "nothing"}` : ""}`);
  expect(moves).toBeGreaterThan(0);
  await game.played?.(page, screen);
  expect(ada.errors).toEqual([]);
  await idle?.context.close();
  await ada.context.close();
}

// Each game is played on the phone and on the desktop at once (two people, two rooms): the
// two share the test's time, which keeps the whole set inside CI's budget.
for (const game of GAMES) {
  test(`${game.game} ${game.mode} on one screen, phone and desktop, to the end`, async ({ browser }) => {
    test.setTimeout(150_000);
    mkdirSync(shots, { recursive: true });
    await Promise.all([playOn(browser, game, PHONE), playOn(browser, game, DESKTOP)]);
  });
}
