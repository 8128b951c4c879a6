/**
 * What "one screen" and "readable" mean for a player, checked on the live page.
 *
 * `textProblems`: every visible text node of the page (header, lobby, room, board) is at least
 * 14 px, is not cut (by a box that clips it, by a strip that hides its scrollbar and shows it
 * only in part, or by the screen's edge), no word of it is broken across two lines (a line may
 * break at a space or after a hyphen, never inside a word), and none of its characters lacks a
 * glyph in the fonts installed (an emoji where no emoji font is: a box).
 *
 * `screenProblems`: those, and during play the board, the player's own pieces and the action
 * controls inside the viewport with the page not scrolled, and their touch targets at least
 * 44 px. Used by one_screen.spec.ts at every move of every game.
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

/** The smallest font size allowed for any text on the page (px). */
export const MIN_TEXT = 14;
/** The smallest side of a touch target (px). */
export const MIN_TARGET = 44;

/** Every problem with the page's text now, as sentences (empty when all of it reads). */
export async function textProblems(page: Page): Promise<string[]> {
  return page.evaluate(
    ({ minText }) => {
      const problems: string[] = [];
      const width = document.documentElement.clientWidth;
      const quote = (text: string) => `"${text.trim().replace(/\s+/g, " ").slice(0, 40)}"`;
      /** The boxes that clip `el`'s text: it and each ancestor whose overflow is not visible
       *  (the page itself scrolls, and is checked at the screen's edge instead). */
      const clippers = (el: Element): { el: Element; scrolls: boolean }[] => {
        const found: { el: Element; scrolls: boolean }[] = [];
        for (let at: Element | null = el; at && at !== document.body; at = at.parentElement) {
          const style = getComputedStyle(at);
          const overflow = `${style.overflowX} ${style.overflowY}`;
          if (/hidden|clip|auto|scroll/.test(overflow)) found.push({ el: at, scrolls: /auto|scroll/.test(overflow) });
        }
        return found;
      };
      // A box that is turning or moving (a tile flipping over) is measured once it has landed.
      const moving = document
        .getAnimations()
        .filter((animation) => animation.playState === "running" && animation.effect instanceof KeyframeEffect && animation.effect.getKeyframes().some((frame) => "transform" in frame))
        .map((animation) => (animation.effect as KeyframeEffect).target)
        .filter((target): target is Element => target instanceof Element);
      // A character no installed font has is drawn as the missing-glyph box: compared on a
      // canvas with a code point no font has, in the text's own font.
      const canvas = document.createElement("canvas");
      canvas.width = 48;
      canvas.height = 48;
      const pen = canvas.getContext("2d", { willReadFrequently: true })!;
      const drawn = (text: string, font: string): string => {
        pen.clearRect(0, 0, 48, 48);
        pen.font = `32px ${font}`;
        pen.fillText(text, 4, 36);
        return Array.from(pen.getImageData(0, 0, 48, 48).data.filter((_, i) => i % 4 === 3)).join(",");
      };
      const glyphless = new Map<string, boolean>();
      const missing = (char: string, font: string): boolean => {
        const key = `${char}|${font}`;
        if (!glyphless.has(key)) glyphless.set(key, drawn(char, font) === drawn("\u{10FFFD}", font));
        return glyphless.get(key)!;
      };
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? "";
        if (!/[\p{L}\p{N}\p{S}]/u.test(text)) continue;
        const el = node.parentElement;
        if (!el || el.closest("svg, script, style, option, noscript")) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const box = range.getBoundingClientRect();
        // Rendered and seen: not in a folded <details>, not hidden, not transparent.
        if (box.width === 0 || box.height === 0 || !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
        if (moving.some((target) => target.contains(el))) continue;
        // Parked off the page sideways until it is needed (the skip link until focused).
        if (box.right <= 0) continue;
        const size = parseFloat(getComputedStyle(el).fontSize);
        if (size < minText - 0.01) problems.push(`text ${quote(text)} is ${size} px`);
        const family = getComputedStyle(el).fontFamily;
        for (const char of new Set(text.replace(/[\s\x00-\x7f]/g, ""))) {
          if (/\p{M}|\u200d|\ufe0f/u.test(char)) continue;
          if (missing(char, family)) problems.push(`"${char}" (U+${char.codePointAt(0)!.toString(16).toUpperCase()}) in ${quote(text)} has no glyph in the fonts installed: it draws as a box`);
        }
        let scrolledAway = false;
        for (const clip of clippers(el)) {
          const edge = clip.el.getBoundingClientRect();
          const left = edge.left + clip.el.clientLeft;
          const top = edge.top + clip.el.clientTop;
          const right = left + clip.el.clientWidth;
          const bottom = top + clip.el.clientHeight;
          const inside = box.left >= left - 1 && box.right <= right + 1 && box.top >= top - 1 && box.bottom <= bottom + 1;
          const outside = box.right <= left + 1 || box.left >= right - 1 || box.bottom <= top + 1 || box.top >= bottom - 1;
          if (inside) continue;
          // A scrolling box may hold text out of view, wholly, or in part when its scrollbar
          // shows that it scrolls (a log, a long hand); a box that hides its scrollbar may not
          // cut a text in part (a badge running off the edge of a strip).
          const style = getComputedStyle(clip.el);
          const shows = style.scrollbarWidth !== "none" && (clip.el.scrollWidth > clip.el.clientWidth + 1 || clip.el.scrollHeight > clip.el.clientHeight + 1);
          if (clip.scrolls && outside) scrolledAway = true;
          else if (clip.scrolls && shows) scrolledAway = box.right > right + 1;
          else problems.push(`text ${quote(text)} is cut by <${clip.el.tagName.toLowerCase()} class="${clip.el.getAttribute("class") ?? ""}">`);
          break;
        }
        // Nor does it spill out of the box it is set in (a word wider than its card).
        const block = (() => {
          let at: Element | null = el;
          while (at && getComputedStyle(at).display.startsWith("inline") && !/inline-(block|flex|grid)/.test(getComputedStyle(at).display)) at = at.parentElement;
          return at;
        })();
        if (block && !scrolledAway) {
          const edge = block.getBoundingClientRect();
          const style = getComputedStyle(block);
          const left = edge.left + block.clientLeft + parseFloat(style.paddingLeft);
          const right = edge.left + block.clientLeft + block.clientWidth - parseFloat(style.paddingRight);
          if (box.left < left - 2 || box.right > right + 2) problems.push(`text ${quote(text)} spills out of <${block.tagName.toLowerCase()} class="${block.getAttribute("class") ?? ""}">`);
        }
        if (!scrolledAway && box.right > width + 1) problems.push(`text ${quote(text)} runs off the screen's edge (right ${Math.round(box.right)} of ${width})`);
        // No word broken across lines: each run of letters between spaces and hyphens sits on
        // one line.
        for (const word of text.matchAll(/[^\s\-‐–—/·]+/gu)) {
          if (word[0].length < 2) continue;
          const part = document.createRange();
          part.setStart(node, word.index);
          part.setEnd(node, word.index + word[0].length);
          const tops = [...part.getClientRects()].filter((r) => r.width > 0).map((r) => r.top);
          if (Math.max(...tops) - Math.min(...tops) > size / 2) problems.push(`the word ${quote(word[0])} is broken across lines`);
        }
      }
      return [...new Set(problems)];
    },
    { minText: MIN_TEXT },
  );
}

/** Every problem found on the page now, as sentences (empty when the screen is right). */
export async function screenProblems(page: Page, parts: Parts): Promise<string[]> {
  const layout = await page.evaluate(
    ({ parts, minTarget }) => {
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
    { parts, minTarget: MIN_TARGET },
  );
  return [...layout, ...(await textProblems(page))];
}

/** Check the screen at a move: fails with what is wrong (or, soft, records it in `found`),
 *  unless `over()` says the game ended meanwhile (its report may then take the screen). */
export async function checkScreen(page: Page, parts: Parts, found: Set<string>, when: string, over: () => Promise<boolean>): Promise<void> {
  const problems = await screenProblems(page, parts);
  if (problems.length && (await over())) return;
  if (SOFT) {
    for (const problem of problems) found.add(problem.replace(/\d+(\.\d+)? px/g, "N px").replace(/\(right \d+ of \d+\)/, ""));
    if (problems.length) await page.evaluate(() => window.scrollTo(0, 0));
    return;
  }
  expect(problems, `the screen at ${when}`).toEqual([]);
}
