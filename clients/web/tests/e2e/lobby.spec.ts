/**
 * The lobby read closely, on a desktop (1280x800) and a phone (390x844): with 24 rooms listed,
 * "Create a room" is on the first screen; every text of the lobby and of the create form (each
 * game, each mode) is readable (tests/e2e/screen.ts: 14 px at least, nothing cut, no word
 * broken); the sticky "Create room" button hides what scrolls under it; choices read as words;
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

  test(`the sticky Create room button on a ${screen.name} hides the seat picker under it`, async ({ browser }) => {
    const { page, done } = await visitor(browser, screen);
    await setForm(page, "neon_hex", 5);
    const button = page.getByTestId("create-submit");
    // Scroll until the third seat's picker lies under the button stuck to the screen's bottom.
    const row = page.locator(".seat-row").nth(2);
    await row.evaluate((element) => element.scrollIntoView({ block: "end" }));
    await page.mouse.move(0, 0);
    const box = (await button.boundingBox())!;
    const under = await page.locator(".seat-plan").evaluate(
      (plan, b) =>
        [...plan.querySelectorAll("label, select, small")].some((el) => {
          const r = el.getBoundingClientRect();
          return r.left < b.x + b.width && r.right > b.x && r.top < b.y + b.height && r.bottom > b.y;
        }),
      box,
    );
    expect(under, "some of the seat picker lies under the button").toBe(true);
    await shot(page, `create-sticky-${screen.width}`, false);
    // The button's pixels (inside its rounded corners) are the same with the seat picker there
    // or not: nothing shows through.
    const corner = 8;
    const clip = { x: box.x + corner, y: box.y + corner / 2, width: box.width - 2 * corner, height: box.height - corner };
    const over = await page.screenshot({ clip, animations: "disabled" });
    await page.locator(".seat-plan").evaluate((plan) => (plan.style.visibility = "hidden"));
    const bare = await page.screenshot({ clip, animations: "disabled" });
    expect(over.equals(bare), "the seat picker shows through the Create room button").toBe(true);
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
