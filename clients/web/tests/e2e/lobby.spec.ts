/**
 * The lobby read closely, on a desktop (1280x800) and a phone (390x844): with 24 rooms listed,
 * "Create a room" is on the first screen; every text of the lobby and of the create form (each
 * game, each mode) is readable (tests/e2e/screen.ts: 14 px at least, nothing cut, no word
 * broken); the "Create room" button ends the form and never lies over a field; choices read as
 * words;
 * the games' icons are drawn, not left to an emoji font.
 */
import { type Browser, expect, type Page, test } from "@playwright/test";
import { type BusyLobby, busyLobby } from "./busy";
import { shot, URL } from "./helpers";
import { textProblems } from "./screen";

const SCREENS = [
  { name: "desktop", width: 1280, height: 800, touch: false },
  { name: "phone", width: 390, height: 844, touch: true },
];

let busy: BusyLobby;

// The tests share the busy lobby the file makes: they run together, on one worker.
test.describe.configure({ mode: "default" });

test.beforeAll(async () => {
  busy = await busyLobby(24);
});

test.afterAll(async () => {
  await busy?.close();
});

/** A visitor's lobby page once it lists the busy rooms; the page's errors are checked when
 *  `done` closes it. */
async function visitor(browser: Browser, screen: (typeof SCREENS)[number]): Promise<{ page: Page; done: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: screen.width, height: screen.height }, hasTouch: screen.touch, isMobile: screen.touch, baseURL: URL() });
  await context.addInitScript(() => localStorage.setItem("lumin.name", "Lobby Ada"));
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto("/");
  for (const room of busy.rooms) await expect(page.locator(`.room-card[data-room="${room}"]`)).toHaveCount(1);
  await expect(page.getByTestId("create-form")).toBeVisible();
  const done = async () => {
    expect(errors).toEqual([]);
    await context.close();
  };
  return { page, done };
}

/** The form set to a game, a seat count and a mode (when the game has one). */
async function setForm(page: Page, game: string, seats: number, mode?: string): Promise<void> {
  await page.getByTestId("create-game").selectOption(game);
  if (mode) await page.locator('[data-option="mode"]').first().selectOption(mode);
  const count = page.getByTestId("create-seats");
  await count.fill(String(seats));
  await count.dispatchEvent("change");
  await expect(page.locator(".seat-row")).toHaveCount(seats);
}

for (const screen of SCREENS) {
  test(`a busy lobby on a ${screen.name}: Create a room on the first screen, every text readable`, async ({ browser }) => {
    const { page, done } = await visitor(browser, screen);
    expect(await page.locator(".rooms-panel .room-card").count()).toBeGreaterThanOrEqual(24);
    // The panel's heading is on the screen the lobby opens on, whatever the room list's length.
    const heading = await page.locator("#create-title").boundingBox();
    expect(heading, "the Create a room heading").not.toBeNull();
    expect(heading!.y + heading!.height).toBeLessThanOrEqual(screen.height);
    await shot(page, `lobby-busy-${screen.width}`);
    expect(await textProblems(page), "the busy lobby's text").toEqual([]);
    // The create form of every game and mode, at its largest table.
    const forms: [string, number, string?][] = [
      ["flip_over_frog", 4],
      ["neon_hex", 5],
      ["flash8", 2, "race"],
      ["flash8", 1, "solo"],
      ["neon_flip", 4, "classic"],
      ["neon_flip", 2, "overdrive"],
      ["neon_flip", 1, "solo"],
    ];
    for (const [game, seats, mode] of forms) {
      await setForm(page, game, seats, mode);
      expect(await textProblems(page), `the create form of ${game} ${mode ?? ""} with ${seats} seats`).toEqual([]);
    }
    await done();
  });

  test(`the Create room button on a ${screen.name} never lies over the form's fields`, async ({ browser }) => {
    const { page, done } = await visitor(browser, screen);
    await setForm(page, "neon_hex", 5);
    const button = page.getByTestId("create-submit");
    // Wherever the page is scrolled (at rest, a seat's picker at the screen's bottom, the
    // button itself in view), nothing of the form lies under the button.
    const covered = () =>
      button.evaluate((submit) => {
        const b = submit.getBoundingClientRect();
        const fields = submit.closest("form")!.querySelectorAll("label, select, input, small, legend");
        return [...fields].filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top;
        }).length;
      });
    await page.evaluate(() => window.scrollTo(0, 0));
    expect(await covered(), "at rest").toBe(0);
    await page.locator(".seat-row").nth(2).evaluate((row) => row.scrollIntoView({ block: "end" }));
    expect(await covered(), "the third seat's picker at the screen's bottom").toBe(0);
    await button.scrollIntoViewIfNeeded();
    await expect(button).toBeInViewport();
    expect(await covered(), "the button in view").toBe(0);
    // It comes after the form's last field, where a person filling the form arrives.
    const last = await page.locator(".create-form fieldset").last().boundingBox();
    expect((await button.boundingBox())!.y).toBeGreaterThanOrEqual(last!.y + last!.height);
    await shot(page, `create-button-${screen.width}`, false);
    await done();
  });
}

test("the create form names each choice in words, and the lobby draws each game's icon", async ({ browser }) => {
  const { page, done } = await visitor(browser, SCREENS[0]!);
  await page.getByTestId("create-game").selectOption("neon_flip");
  await expect(page.locator('[data-option="mode"] option')).toHaveText(["Classic", "Overdrive", "Solo"]);
  await page.getByTestId("create-game").selectOption("flash8");
  await expect(page.locator('[data-option="mode"] option')).toHaveText(["Race", "Solo"]);
  // Flip Over Frog's frog is a drawing (no emoji font needed), beside its name.
  const frog = page.locator(".pitch-games li", { hasText: "Flip Over Frog" }).locator("svg");
  await expect(frog).toBeVisible();
  const size = (await frog.boundingBox())!;
  expect(Math.min(size.width, size.height)).toBeGreaterThanOrEqual(14);
  await expect(page.locator(".pitch-games")).not.toContainText("🐸");
  await done();
});
