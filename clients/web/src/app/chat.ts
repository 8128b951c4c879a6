/**
 * A room's chat. Players talk on the "players" channel (everyone in the room reads it);
 * spectators on the "spectators" channel (only spectators read it). Each line shows the
 * speaker's seat symbol and name; anyone else's line has a mute toggle (server-side `mute`,
 * remembered across reloads). A line the server refuses because the server's operator muted
 * this identity in the room (`muted`) is said here, under the log, in a sentence.
 */

import { ServerError } from "../protocol/errors";
import type { Chat } from "../protocol/messages";
import { h, replace } from "./dom";
import { seatGlyph } from "./lobby";
import { mutedSentence } from "./sentences";
import type { AppState } from "./state";

export class ChatPanel {
  readonly element: HTMLElement;
  private readonly log = h("ol.chat-log", { "aria-live": "polite", "aria-label": "Chat messages", tabindex: 0 });
  private readonly input = h("input.chat-input", { type: "text", maxLength: 500, placeholder: "Say something…", "aria-label": "Chat message", autocomplete: "off" });
  private readonly channel = h("span.chat-channel.muted");
  private readonly notice = h("p.chat-notice", { role: "status", "data-testid": "chat-notice", hidden: true });
  private readonly off: () => void;

  constructor(
    private readonly app: AppState,
    private readonly room: string,
    private readonly onError: (error: unknown) => void,
  ) {
    const form = h(
      "form.chat-form",
      {
        onsubmit: (event: Event) => {
          event.preventDefault();
          this.send();
        },
      },
      this.input,
      h("button", { type: "submit" }, "Send"),
    );
    this.element = h("section.panel.chat", { "aria-label": "Chat" }, h("h3", null, "Chat ", this.channel), this.log, this.notice, form);
    this.off = app.session.on("msg:chat", (line) => {
      if (line.room === this.room) this.draw();
    });
    this.draw();
  }

  destroy(): void {
    this.off();
  }

  /** The room closed: nothing can be said here any more. */
  close(): void {
    for (const control of this.element.querySelectorAll<HTMLInputElement | HTMLButtonElement>("input, button")) control.disabled = true;
    this.input.placeholder = "The room is closed.";
  }

  /** Say which channel this viewer talks on. */
  setSeated(seated: boolean): void {
    this.channel.textContent = seated ? "· players" : "· spectators";
    this.input.placeholder = seated ? "Say something to the table…" : "Say something to the other spectators…";
  }

  private send(): void {
    const text = this.input.value.trim();
    if (!text) return;
    this.app.session
      .request({ type: "chat_send", room: this.room, text })
      .then(() => {
        this.input.value = "";
        this.notice.hidden = true;
      })
      .catch((error: unknown) => {
        if (error instanceof ServerError && error.code === "muted") {
          this.notice.textContent = mutedSentence(error.message);
          this.notice.hidden = false;
        } else this.onError(error);
      });
  }

  private draw(): void {
    const lines = this.app.chats.get(this.room) ?? [];
    replace(this.log, lines.length ? lines.map((line) => this.line(line)) : h("li.muted", null, "No messages yet."));
    this.log.scrollTop = this.log.scrollHeight;
  }

  private line(line: Chat): HTMLElement {
    const me = line.user === this.app.session.user;
    const muted = this.app.muted.has(line.user);
    const toggle = me
      ? null
      : h(
          "button.small.ghost.mute",
          {
            type: "button",
            "aria-pressed": String(muted),
            title: muted ? `Hear ${line.name} again` : `Mute ${line.name}`,
            onclick: () =>
              this.app
                .setMuted(line.user, !muted)
                .then(() => this.draw())
                .catch(this.onError),
          },
          muted ? "unmute" : "mute",
        );
    return h(
      `li.chat-line.channel-${line.channel}`,
      null,
      h("span.chat-who", null, line.seat !== null ? `${seatGlyph(line.seat)} ` : "◎ ", line.name, me ? " (you)" : ""),
      h("span.chat-text", null, line.text),
      toggle,
    );
  }
}
