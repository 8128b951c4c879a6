/**
 * The error line: one line showing the latest refusal or failure in a sentence, with the time
 * it arrived and a dismiss button. Every `rejected` and `error` the server sends reaches one
 * while a page is open. Players read the sentence; the protocol's code stays on the element
 * (`data-code`, and a tooltip) for a player who reports it. A page clears the line once what
 * it said no longer holds ({@link ErrorLine.clearIf}).
 */

import { ProtocolError, ServerError } from "../protocol/errors";
import { h, replace } from "./dom";

/** Human wording for this client's own codes (server codes come with their own sentence). */
const CLIENT_CODES: Record<string, string> = {
  out_of_sync: "A game update was missed; catching up.",
  bad_patch: "A game update did not fit; catching up.",
};

export class ErrorLine {
  readonly element = h("div.error-line", { role: "alert", "data-testid": "error-line", hidden: true });
  private count = 0;

  /** Show a problem; returns its text. */
  show(problem: unknown): string {
    let code = "error";
    let text: string;
    if (problem instanceof ServerError || problem instanceof ProtocolError) {
      code = problem.code;
      text = CLIENT_CODES[problem.code] ?? problem.message;
    } else text = problem instanceof Error ? problem.message : String(problem);
    this.count += 1;
    const time = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    replace(
      this.element,
      h("span.error-text", { title: `code: ${code}` }, text),
      h("time.muted", null, time),
      h("button.small.ghost", { type: "button", "aria-label": "Dismiss the message", onclick: () => this.clear() }, "✕"),
    );
    this.element.hidden = false;
    this.element.dataset.code = code;
    this.element.dataset.count = String(this.count);
    return `${code}: ${text}`;
  }

  clear(): void {
    this.element.hidden = true;
    delete this.element.dataset.code;
    this.element.replaceChildren();
  }

  /** Clear the line when it shows one of `codes` (what it said no longer holds). */
  clearIf(...codes: string[]): void {
    if (!this.element.hidden && codes.includes(this.element.dataset.code ?? "")) this.clear();
  }

  /** The code of the problem shown, if any. */
  get code(): string | null {
    return this.element.hidden ? null : (this.element.dataset.code ?? null);
  }
}
