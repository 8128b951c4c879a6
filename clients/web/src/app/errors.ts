/**
 * The error line: one line showing the latest refusal or failure (`code: sentence`), with the
 * time it arrived and a dismiss button. Every `rejected` and `error` the server sends reaches
 * one while a page is open; codes stay visible so players can report them.
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
      h("span.error-code", { "data-code": code }, code),
      h("span.error-text", null, text),
      h("time.muted", null, time),
      h("button.small.ghost", { type: "button", "aria-label": "Dismiss the message", onclick: () => this.clear() }, "✕"),
    );
    this.element.hidden = false;
    this.element.dataset.count = String(this.count);
    return `${code}: ${text}`;
  }

  clear(): void {
    this.element.hidden = true;
    this.element.replaceChildren();
  }
}
