/**
 * A person opens the address `lumin serve` printed, creates a Flip Over Frog room against a
 * bot from the lobby, plays every turn by mouse and sees the game's summary: the browser
 * client that the installed package carries, served with no --static (scripts/served.config.ts).
 */
import { expect, test } from "@playwright/test";
import { createRoom, frogTurn, player, start } from "../tests/e2e/helpers";

test("a whole game on the page an installed lumin serve serves", async ({ browser }) => {
  const ada = await player(browser, "Ada");
  const { page } = ada;
  await expect(page).toHaveTitle(/Lumin/);
  await createRoom(page, "flip_over_frog", ["me", "bot:random"]);
  await start(page);
  let turns = 0;
  while (await frogTurn(page)) {
    turns += 1;
    expect(turns).toBeLessThan(40);
  }
  expect(turns).toBeGreaterThan(0);
  await expect(page.getByTestId("summary")).toContainText("Game over");
  await expect(page.getByTestId("room-state")).toHaveText("finished");
  expect(ada.errors).toEqual([]);
  await ada.context.close();
});
