/**
 * Pieces both Flash 8 boards use: the start countdown overlay, passing messages ("toasts"),
 * the keyboard listener and the arrow-key mapping.
 */

import type { BoardContext } from "../types";
import { h, isTyping } from "./dom";
import type { Direction } from "./tablet";
import type { BaseView } from "./view";

/** The arrow keys' directions (see `TabletView.slideFor`). */
export function directionOf(key: string): Direction | null {
  switch (key) {
    case "ArrowUp":
      return "up";
    case "ArrowDown":
      return "down";
    case "ArrowLeft":
      return "left";
    case "ArrowRight":
      return "right";
    default:
      return null;
  }
}

/**
 * The big countdown over the board: "GET READY" while the game waits for its first tick, the
 * seconds left until `starts_at` (from `serverNow()`), "GO!" for a moment after the start.
 * It plays `tick` on each new whole second.
 */
export class Countdown {
  readonly element: HTMLElement;
  private readonly number: HTMLElement;
  private readonly caption: HTMLElement;
  private shown: string | null = null;
  private readonly context: BoardContext;

  constructor(context: BoardContext) {
    this.context = context;
    this.number = h("span", { class: "f8-countdown-number" });
    this.caption = h("span", { class: "f8-countdown-caption" });
    this.element = h("div", { class: "f8-countdown", hidden: true, role: "timer", "aria-live": "assertive" }, this.number, this.caption);
  }

  /** Redraw for `view` at room time `now`; `silent` draws without sounds (first update). */
  update(view: BaseView, now: number, silent = false): void {
    let text: string | null = null;
    let caption = "";
    if (view.phase === "waiting") {
      text = "READY";
      caption = "The countdown starts in a moment";
    } else if (view.phase === "countdown" && view.starts_at !== null) {
      const left = view.starts_at - now;
      // Past the start the server's "started" is on its way; long past it (a replay on today's
      // clock) there is nothing to count.
      text = left > 0 ? String(Math.ceil(left)) : left > -1 ? "GO!" : null;
      caption = left > 0 ? "Get ready to slide" : "";
    } else if (view.phase === "running" && view.started_at !== null && now - view.started_at < 0.8) {
      text = "GO!";
    }
    // "GO!" is silent: the shell sounds its alert when the seat's commands become legal.
    if (text !== this.shown && !silent && text !== null && /^\d+$/.test(text)) this.context.sound("tick");
    this.shown = text;
    this.element.hidden = text === null;
    this.number.textContent = text ?? "";
    this.caption.textContent = caption;
    this.element.classList.toggle("f8-go", text === "GO!");
  }
}

/** Short messages that fade out ("You took F8-12", "Locked out"), announced politely. */
export class Toasts {
  readonly element = h("div", { class: "f8-toasts", role: "status", "aria-live": "polite" });
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  /** Show `text` for `ms` milliseconds; `tone` styles it (good, bad, info). */
  show(text: string, tone: "good" | "bad" | "info" = "info", ms = 2600): void {
    const toast = h("div", { class: `f8-toast f8-toast-${tone}`, text });
    this.element.append(toast);
    while (this.element.childElementCount > 3) this.element.firstElementChild?.remove();
    const timer = setTimeout(() => {
      toast.remove();
      this.timers.delete(timer);
    }, ms);
    this.timers.add(timer);
  }

  destroy(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

/**
 * Listens to key presses on the document for a board, skipping presses in text fields (chat)
 * and with Ctrl, Alt or Meta held. `handler` returns true when it used the key; the key's
 * default (scrolling, activating a focused button) is then prevented, on key up as well.
 */
export class Keys {
  private readonly used = new Set<string>();
  private readonly down: (event: KeyboardEvent) => void;
  private readonly up: (event: KeyboardEvent) => void;

  constructor(handler: (event: KeyboardEvent) => boolean) {
    this.down = (event) => {
      if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey || isTyping(event)) return;
      if (handler(event)) {
        event.preventDefault();
        this.used.add(event.key);
      }
    };
    this.up = (event) => {
      if (this.used.delete(event.key)) event.preventDefault();
    };
    document.addEventListener("keydown", this.down);
    document.addEventListener("keyup", this.up);
  }

  destroy(): void {
    document.removeEventListener("keydown", this.down);
    document.removeEventListener("keyup", this.up);
  }
}

/** A seat's display name: the room's name for it, else its side. */
export function seatName(context: BoardContext, seat: number, side: string): string {
  const name = context.seatNames[seat];
  return name && name.trim() ? name : side.charAt(0).toUpperCase() + side.slice(1);
}
