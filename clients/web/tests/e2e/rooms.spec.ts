/**
 * Two people in a private room: the code and the shareable link, a wrong code refused in a
 * sentence that says so, joining through the lobby's join form, the error line showing the
 * server's refusal (start before everyone is ready) without hiding any heading, ready and
 * start, both boards, chat between the players, and, once one of them leaves the game, the
 * seat list saying that a bot plays their seat.
 */
import { expect, type Locator, type Page, test } from "@playwright/test";
import { createRoom, player, shot } from "./helpers";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** The headings of the room page the error line covers now (none when it hides nothing). */
async function hiddenHeadings(page: Page): Promise<string[]> {
  return page.getByTestId("error-line").evaluate((line) => {
    const a = line.getBoundingClientRect();
    return [...document.querySelectorAll(".room h2, .room h3, .room h4, .room .nf-status, .room .fof-grid, .room .waiting")]
      .filter((el) => {
        const b = el.getBoundingClientRect();
        return b.width > 0 && a.left < b.right && a.right > b.left && a.top < b.bottom && a.bottom > b.top;
      })
      .map((el) => (el.textContent ?? el.className).trim().slice(0, 40));
  });
}

/** The error line, at a desktop's and a phone's width, covers no heading of the page. */
async function coversNothing(page: Page, line: Locator): Promise<void> {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await expect(line).toBeVisible();
    expect(await hiddenHeadings(page), `what the error line hides at ${size.width}x${size.height}`).toEqual([]);
  }
  await page.setViewportSize(DESKTOP);
}

test("a private room joined by link, with an error line, ready, start and chat", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const bob = await player(browser, "Bob");
  const room = await createRoom(ada.page, "flip_over_frog", ["me", "open"], {}, { private: true });
  const code = await ada.page.getByTestId("room-code").textContent();
  expect(code).toMatch(/^[A-Z0-9]{6}$/);
  const link = await ada.page.locator("#share-link").inputValue();
  expect(link).toContain(`#/room/${room}?code=${code}`);

  // Private rooms are never listed.
  await expect(bob.page.locator(`[data-room="${room}"]`)).toHaveCount(0);
  // A wrong code is said to be wrong, beside the form asking for the right one.
  const wrong = code === "ZZZZZZ" ? "YYYYYY" : "ZZZZZZ";
  await bob.page.goto(`/#/room/${room}?code=${wrong}`);
  const bobLine = bob.page.getByTestId("error-line");
  await expect(bobLine).toHaveAttribute("data-code", "bad_code");
  await expect(bobLine).toContainText(`The code ${wrong} is not this room's`);
  await expect(bob.page.locator(".code-form h3")).toHaveText("This room is private");
  await coversNothing(bob.page, bobLine);
  await shot(bob.page, "room-wrong-code");

  await bob.page.goto("/#/");
  await bob.page.locator("#join-code").fill(link);
  await bob.page.locator(".join-form button[type=submit]").click();
  await expect(bob.page.locator(".seat.me")).toContainText("Bob");
  await expect(ada.page.locator(".seat[data-seat='1']")).toContainText("Bob");

  // Starting before Bob is ready: the server refuses, and the error line says why, hiding
  // neither the seats' heading nor the waiting panel.
  await ada.page.getByTestId("start").click();
  const adaLine = ada.page.getByTestId("error-line");
  await expect(adaLine).toHaveAttribute("data-code", "not_ready");
  await expect(adaLine).toContainText("Bob (seat 2) is not ready.");
  await coversNothing(ada.page, adaLine);
  await shot(ada.page, "room-waiting-error");

  // The host frees Bob's seat; Bob is told, and sits down again.
  await ada.page.locator(".seat[data-seat='1']").getByRole("button", { name: "Kick" }).click();
  await expect(bob.page.getByTestId("room-notice")).toHaveText("The host freed your seat. You are watching now.");
  await expect(ada.page.locator(".seat[data-seat='1']")).toContainText("open");
  await bob.page.getByTestId("sit-1").click();
  await expect(bob.page.locator(".seat.me")).toContainText("Bob");

  await bob.page.getByTestId("ready").click();
  await expect(ada.page.locator(".seat[data-seat='1'] .tag.ready")).toBeVisible();
  await ada.page.getByTestId("start").click();
  await expect(ada.page.getByTestId("fof-board")).toBeVisible();
  await expect(bob.page.getByTestId("fof-board")).toBeVisible();
  await expect(bob.page.locator(".fof-hand-tile")).toHaveCount(3);

  await bob.page.locator(".chat-input").fill("good luck!");
  await bob.page.locator(".chat-form button").click();
  await expect(ada.page.locator(".chat-log")).toContainText("good luck!");
  await expect(ada.page.locator(".chat-log")).toContainText("Bob");
  // Ada mutes Bob: his next line never reaches her.
  await ada.page.locator(".chat-line", { hasText: "good luck!" }).getByRole("button", { name: "mute" }).click();
  await expect(ada.page.locator(".chat-line .mute[aria-pressed=true]")).toHaveCount(1);
  await bob.page.locator(".chat-input").fill("can you hear me?");
  await bob.page.locator(".chat-form button").click();
  await expect(bob.page.locator(".chat-log")).toContainText("can you hear me?");
  await ada.page.locator(".chat-input").fill("hello?");
  await ada.page.locator(".chat-form button").click();
  await expect(bob.page.locator(".chat-log")).toContainText("hello?");
  await expect(ada.page.locator(".chat-log")).not.toContainText("can you hear me?");

  // Whoever moves first plays; the other sees the tile land.
  let first: Page | null = null;
  await expect
    .poll(async () => {
      for (const page of [ada.page, bob.page]) if (await page.locator(".board-root.my-turn").isVisible()) first = page;
      return first !== null;
    })
    .toBe(true);
  const mover = first as unknown as Page;
  const other = mover === ada.page ? bob.page : ada.page;
  await mover.locator(".fof-hand-tile.playable").first().click();
  await mover.locator(".fof-space.lit").first().click();
  await expect(other.locator(".fof-space:not(.empty)")).toHaveCount(1);
  await expect(other.getByTestId("turn-status")).toContainText("Your turn");
  await shot(bob.page, "room-private-playing");

  // A refusal during the game (Ada's chat beyond its rate) floats over no heading and moves
  // nothing of the board.
  const grid = async () => (await ada.page.getByTestId("fof-board").boundingBox())!;
  const before = await grid();
  const input = ada.page.locator(".chat-input");
  for (let line = 0; line < 8 && !(await adaLine.isVisible()); line++) {
    await input.fill(`line ${line}`);
    await ada.page.locator(".chat-form button").click();
    // Sent (the field empties once the server took it), or refused (the line stays).
    await expect.poll(async () => (await input.inputValue()) === "" || (await adaLine.isVisible())).toBe(true);
  }
  await expect(adaLine).toHaveAttribute("data-code", "rate_limited");
  expect(await grid()).toEqual(before);
  await coversNothing(ada.page, adaLine);

  // Bob leaves the game: his seat is his still, and Ada reads that a bot plays it now.
  await bob.page.getByTestId("leave").click();
  await expect(bob.page.locator("[data-page=lobby]")).toBeVisible();
  await expect(ada.page.locator(".seat[data-seat='1']")).toContainText("Bob");
  await expect(ada.page.locator(".seat[data-seat='1']")).toContainText("away · a bot plays");
  expect([...ada.errors, ...bob.errors]).toEqual([]);
  await ada.context.close();
  await bob.context.close();
});
