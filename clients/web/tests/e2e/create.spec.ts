/**
 * "Create room" does what it says the first time: right after typing a seat count (the seat
 * rows change in place, so the click lands on the button it aimed at), and right after saving
 * a new name (renaming is `set_name` on the open connection, protocol version 4: no
 * reconnect, so nothing in flight is lost). A refusal is said beside the button. The form
 * shows only the options that apply to the chosen mode and seat count (version 6's `when`).
 */
import { expect, test } from "@playwright/test";
import { player, shot } from "./helpers";

test("typing a seat count, then Create room at once, creates the room", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  await page.getByTestId("create-game").selectOption("flip_over_frog");
  const count = page.getByTestId("create-seats");
  await count.fill("3");
  // No change event first: the click itself moves the focus, which commits the count.
  await page.getByTestId("create-submit").click();
  await expect(page.locator("main[data-page=room]")).toBeVisible();
  await expect(page.locator(".seat")).toHaveCount(3);
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("saving a name, then Create room within a moment, creates the room without a reconnect", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  // Every status the connection corner shows from now on.
  await page.evaluate(() => {
    const corner = document.querySelector("[data-testid=net]")!;
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    new MutationObserver(() => seen.push(corner.getAttribute("data-status") ?? "")).observe(corner, { attributes: true });
  });
  await page.getByTestId("create-game").selectOption("flip_over_frog");
  await page.getByTestId("player-name").fill("Ada Lovelace");
  await page.getByTestId("player-name").press("Enter");
  await page.getByTestId("create-submit").click();
  await expect(page.locator("main[data-page=room]")).toBeVisible();
  await expect(page.locator(".seat.me")).toContainText("Ada Lovelace");
  expect(await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).not.toContain("reconnecting");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});

test("the form shows only the options that apply to the mode and seat count", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  const form = page.getByTestId("create-form");
  const field = (name: string) => form.locator(`.field:has([data-option="${name}"])`);
  await page.getByTestId("create-game").selectOption("neon_flip");
  await expect(field("obstacles")).toBeVisible();
  await expect(field("proto_zero")).toBeHidden();
  await expect(field("teams")).toBeHidden();
  await expect(field("clock")).toBeHidden();
  const count = page.getByTestId("create-seats");
  await count.fill("4");
  await expect(field("teams")).toBeVisible();
  await expect(field("obstacles")).toBeHidden();
  await form.locator('[data-option="mode"]').selectOption("overdrive");
  await expect(field("clock")).toBeVisible();
  await form.locator('[data-option="mode"]').selectOption("solo");
  await expect(field("proto_zero")).toBeVisible();
  await expect(field("teams")).toBeHidden();
  await expect(field("rounds")).toBeHidden();
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "create-neon-flip-solo-390");
  await page.getByTestId("create-game").selectOption("flash8");
  await expect(form.locator('[data-option="handicap"]')).toHaveCount(2);
  await form.locator('[data-option="mode"]').selectOption("solo");
  await expect(form.locator('[data-option="handicap"]')).toHaveCount(0);
  await expect(field("time_limit")).toBeHidden();
  await expect(field("solo_seconds")).toBeVisible();
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
