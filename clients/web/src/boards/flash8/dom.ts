/**
 * Small DOM and timing helpers shared by the Flash 8 boards (no framework).
 */

import { typingInto } from "../keys";
import type { BoardContext, Command } from "../types";

type Child = Node | string | null | undefined | false;

/** Create an HTML element: `props` are attributes (`class`, `aria-*`, `data-*`...) except
 *  `text`, which sets the text content; `false`/`null` attribute values are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, string | number | boolean | null | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") element.textContent = String(value);
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** Replace `parent`'s children, skipping absent ones (`null`, `false`...). */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false));
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** Create an SVG element with attributes. */
export function svg(
  tag: string,
  attrs: Record<string, string | number> = {},
  ...children: SVGElement[]
): SVGElement {
  const element = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  for (const child of children) element.append(child);
  return element;
}

/** Seconds as `m:ss` (rounded up, so a clock reads 0:00 only when time is really up). */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.ceil(seconds - 1e-9));
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, "0")}`;
}

/** A duration as `m:ss`, rounded to the nearest second (how long something took). */
export function elapsed(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** Seconds with one decimal, for lockouts and card times. */
export function tenths(seconds: number): string {
  return `${Math.max(0, seconds).toFixed(1)} s`;
}

/** A number and its unit kept on one line ("2.0 s" never wraps between the two). */
export function glued(text: string): string {
  return text.replace(/ /g, "\u00a0");
}

/** True when a key event belongs to a text field (chat...), which boards must not steal. */
export function isTyping(event: KeyboardEvent): boolean {
  return typingInto(event.target);
}

/** An ordinal: 1st, 2nd, 3rd, 4th. */
export function ordinal(n: number): string {
  const suffix = n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th";
  return `${n}${suffix}`;
}

/**
 * Sends the board's commands one at a time. A gesture is queued as a function that picks its
 * command when its turn comes, from the legal commands current *then*, so quick successive
 * gestures (three arrow presses, a slide then FLASH) each act on the view their predecessor
 * produced, and none goes out on a `seq` the server would refuse as stale. A gesture whose
 * function returns null (nothing legal fits any more) is dropped. A rejected command empties the
 * queue (the shell shows the server's error). A command unanswered after `timeoutMs` no longer
 * blocks the queue.
 */
export class CommandQueue {
  private readonly waiting: Array<() => Command | null> = [];
  private busy = false;
  private closed = false;

  private readonly send: BoardContext["act"];
  private readonly limit: number;
  private readonly timeoutMs: number;

  constructor(send: BoardContext["act"], limit = 4, timeoutMs = 3000) {
    this.send = send;
    this.limit = limit;
    this.timeoutMs = timeoutMs;
  }

  /** Queue a gesture (dropped when `limit` gestures already wait). */
  push(pick: () => Command | null): void {
    if (this.closed || this.waiting.length >= this.limit) return;
    this.waiting.push(pick);
    if (!this.busy) void this.drain();
  }

  /** True while a command is on its way. */
  get pending(): boolean {
    return this.busy;
  }

  /** Forget waiting gestures and stop sending. */
  close(): void {
    this.closed = true;
    this.waiting.length = 0;
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (!this.closed && this.waiting.length > 0) {
        const command = this.waiting.shift()!();
        if (command === null) continue;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.timeoutMs);
        });
        try {
          await Promise.race([this.send(command), timeout]);
        } catch {
          this.waiting.length = 0;
        } finally {
          clearTimeout(timer);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
