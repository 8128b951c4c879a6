/**
 * What "one screen" means for a player, checked on the live page: during play the board, the
 * player's own pieces and the action controls are inside the viewport with the page not
 * scrolled, their text is at least 14 px and their touch targets at least 44 px. Used by
 * one_screen.spec.ts at every move of every game.
 *
 * With LUMIN_LAYOUT_SOFT=1 the checks only record what they find (printed at the end of each
 * game) instead of failing, and scroll the page back: that is how the screenshots of a layout
 * that does not fit yet are made.
 */
import { expect, type Page } from "@playwright/test";

/** The parts of a board the player needs at a move: CSS selectors (`mine` and `actions` may
 *  match several elements; every visible one counts). */
export interface Parts {
  board: string;
  mine: string;
  actions: string;
}

export const SOFT = process.env.LUMIN_LAYOUT_SOFT === "1";

/** The smallest font size allowed in the player's pieces and controls (px). */
export const MIN_TEXT = 14;
/** The smallest side of a touch target (px). */
export const MIN_TARGET = 44;

/** Every problem found on the page now, as sentences (empty when the screen is right). */
export async function screenProblems(page: Page, parts: Parts): Promise<string[]> {
  return page.evaluate(
    ({ parts, minText, minTarget }) => {
      const problems: string[] = [];
      const width = window.innerWidth;
      const height = window.innerHeight;
      if (window.scrollY > 1) problems.push(`the page is scrolled by ${Math.round(window.scrollY)} px`);
      const visible = (el: Element): boolean => {
        const box = el.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) return false;
        const style = getComputedStyle(el);
        return style.visibility !== "hidden" && style.display !== "none" && Number(style.opacity) > 0;
      };
      const inside = (el: Element, what: string): void => {
        const box = el.getBoundingClientRect();
        const label = `${what} <${el.tagName.toLowerCase()} class="${el.getAttribute("class") ?? ""}">`;
        if (box.top < -1 || box.bottom > height + 1 || box.left < -1 || box.right > width + 1) {
          problems.push(`${label} is outside the ${width}x${height} screen (top ${Math.round(box.top)}, bottom ${Math.round(box.bottom)})`);
        }
      };
      const board = [...document.querySelectorAll(parts.board)].filter(visible);
      if (board.length === 0) problems.push(`no board (${parts.board}) on screen`);
      board.forEach((el) => inside(el, "the board"));
      const mine = [...document.querySelectorAll(parts.mine)].filter(visible);
      if (mine.length === 0) problems.push(`none of the player's own pieces (${parts.mine}) on screen`);
      mine.forEach((el) => inside(el, "own pieces"));
      const actions = [...document.querySelectorAll(parts.actions)].filter(visible);
      actions.forEach((el) => inside(el, "an action"));
      // Text of the pieces and controls: every visible element holding its own words.
      for (const root of [...mine, ...actions]) {
        for (const el of [root, ...root.querySelectorAll("*")]) {
          if (!visible(el) || el.closest("[aria-hidden=true]")) continue;
          const own = [...el.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && /[\p{L}\p{N}]/u.test(node.textContent ?? ""));
          if (!own) continue;
          const size = parseFloat(getComputedStyle(el).fontSize);
          if (size < minText - 0.01) problems.push(`text "${(el.textContent ?? "").trim().slice(0, 30)}" is ${size} px`);
        }
      }
      // Touch targets: the enabled controls among the actions and the pieces.
      for (const root of [...mine, ...actions]) {
        const controls = [root, ...root.querySelectorAll("button, a[href], input, select, [role=button], [tabindex='0']")];
        for (const el of controls) {
          if (!el.matches("button, a[href], input, select, [role=button], [tabindex='0']")) continue;
          if (!visible(el) || (el as HTMLButtonElement).disabled) continue;
          const box = el.getBoundingClientRect();
          if (Math.min(box.width, box.height) < minTarget - 0.5) {
            problems.push(`target "${(el.textContent ?? el.getAttribute("aria-label") ?? "").trim().slice(0, 30)}" is ${Math.round(box.width)}x${Math.round(box.height)} px`);
          }
        }
      }
      return [...new Set(problems)];
    },
    { parts, minText: MIN_TEXT, minTarget: MIN_TARGET },
  );
}

/** Check the screen at a move: fails with what is wrong (or, soft, records it in `found`),
 *  unless `over()` says the game ended meanwhile (its report may then take the screen). */
export async function checkScreen(page: Page, parts: Parts, found: Set<string>, when: string, over: () => Promise<boolean>): Promise<void> {
  const problems = await screenProblems(page, parts);
  if (problems.length && (await over())) return;
  if (SOFT) {
    for (const problem of problems) found.add(problem.replace(/\d+ px/g, "N px"));
    if (problems.length) await page.evaluate(() => window.scrollTo(0, 0));
    return;
  }
  expect(problems, `the screen at ${when}`).toEqual([]);
}
