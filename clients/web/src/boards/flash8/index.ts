/**
 * The Flash 8 board: the race (`RaceBoard`) or solo (`SoloBoard`) board, chosen by the view's
 * `mode`, inside one `.f8-board` element appended to the shell's root.
 *
 * A 100 ms ticker redraws what depends on the server's clock (the start countdown, the race's
 * time limit or elapsed time, the solo clock, lockout countdowns). The board holds no rules:
 * what the player can do is exactly the `legal` list the shell passes in.
 */

import type { Board, BoardContext, BoardFactory, LegalEntry } from "../types";
import "./flash8.css";
import { h } from "./dom";
import { RaceBoard } from "./race";
import { loadHighScores, SoloBoard, type HighScoreLoader } from "./solo";
import type { Flash8View } from "./view";

/** How often time-dependent parts are redrawn, in milliseconds. */
export const TICK_MS = 100;

function isFlash8View(view: unknown): view is Flash8View {
  if (typeof view !== "object" || view === null) return false;
  const mode = (view as { mode?: unknown }).mode;
  return (mode === "race" || mode === "solo") && Array.isArray((view as { seats?: unknown }).seats);
}

/** The board with an explicit high score loader (tests pass a fake one). */
export function makeBoard(root: HTMLElement, context: BoardContext, loader: HighScoreLoader = loadHighScores): Board {
  const element = h("div", { class: "f8-board" });
  const waiting = h("p", { class: "f8-waiting", text: "Waiting for the game to start…" });
  element.append(waiting);
  root.append(element);
  let current: RaceBoard | SoloBoard | null = null;
  let mode: string | null = null;
  const timer = setInterval(() => current?.tick(), TICK_MS);

  return {
    playsTurnAlert: true,
    update(view: unknown, legal: readonly LegalEntry[], previous: unknown | null): void {
      if (!isFlash8View(view)) {
        current?.destroy();
        current = null;
        mode = null;
        element.replaceChildren(waiting);
        return;
      }
      let fresh = false;
      if (view.mode !== mode) {
        current?.destroy();
        current = view.mode === "race" ? new RaceBoard(context) : new SoloBoard(context, loader);
        mode = view.mode;
        element.replaceChildren(current.element);
        element.dataset.mode = view.mode;
        fresh = true;
      }
      const animate = !fresh && previous !== null && previous !== undefined;
      if (current instanceof RaceBoard && view.mode === "race") current.update(view, legal, animate);
      else if (current instanceof SoloBoard && view.mode === "solo") current.update(view, legal, animate);
    },
    destroy(): void {
      clearInterval(timer);
      current?.destroy();
      current = null;
      element.remove();
    },
  };
}

/** The Flash 8 board factory (registered by the shell as `flash8`). */
const createBoard: BoardFactory = (root, context) => makeBoard(root, context);

export default createBoard;
