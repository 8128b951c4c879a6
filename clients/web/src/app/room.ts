/**
 * The room page (the shell around a board): the seat list with sit / take over / kick, the
 * ready / start / leave / rematch controls, the board area, the error line, chat, turn alerts
 * in the tab title, the end-of-game summary, and the share link.
 *
 * Opening a room: when this connection already holds a copy of the room (it created or joined
 * it), the page just draws it; otherwise it sends `resume` from seq 0, which the server answers
 * with a snapshot as the seat this identity holds there, else as a spectator. That one path
 * serves a shared link, a reload in the middle of a game, and the way back from the lobby.
 * The session resumes every held room by itself after a reconnect.
 *
 * What the server takes away is said in a sentence where the player looks, above the board
 * (the notice): a seat taken (`kicked`: by the host before the start, or by the server's
 * operator during a game, when a bot plays on and the page turns into a spectator's), and the
 * room closed (`room_closed`: the board gives way to the sentence and a way back to the
 * lobby). A chat line the operator's mute refused is said in the chat.
 */

import { loadBoard } from "../boards";
import type { Board, BoardContext, Command } from "../boards/types";
import { ServerError } from "../protocol/errors";
import type { Data, RoomSummary, SeatInfo } from "../protocol/messages";
import type { RoomView } from "../protocol/roomview";
import { ChatPanel } from "./chat";
import { h, replace } from "./dom";
import { ErrorLine } from "./errors";
import { closedSentence, kickedSentence, optionsSentence } from "./sentences";
import { seatGlyph } from "./lobby";
import type { Page } from "./page";
import { navigate, roomLink } from "./router";
import { type AppState, seatLabel } from "./state";
import type { LogAccess } from "./logs";
import { ratingTag } from "./rating";
import { outcomeFromView, renderRatings, renderSummary } from "./summary";
import { setAlert, setTitle } from "./title";

/** Why the session did not send a move, or lost its answer (src/net/session.ts): no server
 *  message reports these, so the error line shows them here. */
const MOVE_FAILURES: ReadonlySet<string> = new Set(["game_changed", "too_many_moves", "not_sent", "disconnected", "timeout"]);
/** What the error line says while a move made offline waits for the connection. */
const HELD = new ServerError("offline", "You are offline: your move is sent once the connection is back, if it is still allowed then.");
/** Sentences for the move failures whose session wording is not a player's. */
const MOVE_SENTENCES: Record<string, string> = {
  disconnected: "The connection dropped before your move was answered: the board shows whether it counted.",
  timeout: "The server did not answer your move in time: the board shows whether it counted.",
};
/** Refusals said elsewhere in a sentence (the chat, the app's "banned" page), not in the error line. */
const SAID_ELSEWHERE: ReadonlySet<string> = new Set(["muted", "banned"]);

export class RoomPage implements Page {
  readonly element: HTMLElement;
  private readonly header = h("header.room-header");
  private readonly details = h("details.room-details") as HTMLDetailsElement;
  /** The room state the header last drew (the details fold when it changes). */
  private headerState: string | null = null;
  private readonly seatsList = h("ol.seat-list", { "aria-label": "Seats" });
  private readonly controls = h("div.room-controls", { role: "group", "aria-label": "Room controls" });
  private readonly status = h("p.turn-status", { "aria-live": "polite", "data-testid": "turn-status" });
  private readonly notice = h("div.room-notice", { role: "status", "aria-live": "assertive", "data-testid": "room-notice", hidden: true });
  private readonly boardArea = h("div.board-area", { "data-testid": "board-area" });
  private readonly summaryArea = h("div.summary-area");
  private readonly ratingsArea = h("div.ratings-area");
  private readonly errors = new ErrorLine();
  private readonly chat: ChatPanel;
  private readonly offs: (() => void)[] = [];
  private board: Board | null = null;
  private boardKey: string | null = null;
  private boardRoot: HTMLElement | null = null;
  private loading = 0;
  private myTurn = false;
  private summaryShown = false;
  private summaryHadOver = false;
  private rematchAsked = false;
  private entering = false;
  private destroyed = false;
  /** Why the room closed, once it has: the page then only says so. */
  private closed: string | null = null;

  constructor(
    private readonly app: AppState,
    private readonly room: string,
    private readonly code: string | null,
  ) {
    if (code) app.rememberCode(room, code);
    this.chat = new ChatPanel(app, room, (error) => this.errors.show(error));
    this.element = h(
      "main.page.room",
      { "data-page": "room", "data-room": room },
      this.header,
      this.errors.element,
      h(
        "div.room-layout",
        null,
        h("section.board-column", { "aria-label": "Board" }, this.notice, this.status, this.boardArea, this.summaryArea, this.ratingsArea),
        h("aside.room-side", null, h("section.panel.seats-panel", { "aria-label": "Seats" }, h("h3", null, "Seats"), this.seatsList, this.controls), this.chat.element),
      ),
    );
    const session = app.session;
    this.offs.push(
      session.on("view", (id, copy, previous) => {
        if (id === room) this.viewChanged(copy, previous);
      }),
      session.on("msg:room_update", (message) => {
        if (message.info.room === room) this.drawRoom();
      }),
      session.on("problem", (problem, id) => {
        if (SAID_ELSEWHERE.has(problem.code)) return;
        if (id === null || id === room) this.errors.show(problem);
      }),
      session.on("msg:game_over", (message) => {
        if (message.room === room) this.gameOver();
      }),
      session.on("msg:ratings_changed", (message) => {
        if (message.room === room) this.drawRatings();
      }),
      session.on("msg:rematch_created", (message) => {
        if (message.room === room) this.drawControls();
        if (message.room === room && this.rematchAsked) this.goToRematch(message.new_room);
      }),
      session.on("msg:kicked", (message) => {
        if (message.room !== room) return;
        this.say(kickedSentence(message, this.summary()?.state === "playing"), "kicked");
      }),
      session.on("msg:room_closed", (message) => {
        if (message.room !== room) return;
        this.app.entered.delete(room);
        this.closed = closedSentence(message);
        this.notice.hidden = true; // the closed room's panel says it, where the board was
        this.chat.close();
        this.drawRoom();
      }),
      session.on("welcome", () => {
        if (!session.view(room)) this.enter();
      }),
    );
    setTitle(app.gameName(app.summaries.get(room)?.game ?? ""));
    this.drawRoom();
    this.drawRatings();
    const copy = session.view(room);
    if (copy) this.viewChanged(copy, null);
    else if (!app.entered.has(room)) this.enter();
    if ((copy || app.entered.has(room)) && app.joinOnOpen.delete(room)) void this.joinFirst();
  }

  /** What reads this room's log once it is over (a private room's code, the identity). */
  private logAccess(): LogAccess {
    return { code: this.app.session.codes.get(this.room) ?? this.code ?? null, token: this.app.session.token };
  }

  destroy(): void {
    this.destroyed = true;
    for (const off of this.offs) off();
    this.chat.destroy();
    this.destroyBoard();
    document.body.classList.remove("in-play");
    setAlert(null);
    setTitle(null);
    // Spectators stop watching when they leave the page; players keep their seats.
    if (this.app.mySeat(this.room) === null && this.app.session.view(this.room)) {
      this.app.entered.delete(this.room);
      this.app.session.request({ type: "leave", room: this.room }).catch(() => undefined);
    }
  }

  // --- entering ---------------------------------------------------------------------------------

  private enter(): void {
    if (this.entering || this.app.session.status !== "open") return;
    this.entering = true;
    const code = this.code ?? this.app.session.codes.get(this.room) ?? null;
    this.app.session
      .request({ type: "resume", room: this.room, seq: 0, epoch: "", code })
      .then(() => {
        this.app.entered.add(this.room);
        if (this.app.joinOnOpen.delete(this.room)) void this.joinFirst();
      })
      .catch((error) => {
        if (error instanceof ServerError && error.code === "bad_code" && code) {
          // The server says the same whether a code was missing or wrong: this page knows which.
          this.app.forgetCode(this.room);
          this.errors.show(new ServerError("bad_code", `The code ${code} is not this room's: check it, or ask for the link again.`));
        } else this.errors.show(error);
        if (error instanceof ServerError && error.code === "bad_code") this.askCode();
        if (error instanceof ServerError && error.code === "no_such_room") this.drawMissing();
      })
      .finally(() => (this.entering = false));
  }

  /** The room's summary now, or once its next `room_update` arrives. */
  private whenSummary(): Promise<RoomSummary> {
    const known = this.summary();
    if (known) return Promise.resolve(known);
    return new Promise((resolve) => {
      const off = this.app.session.on("msg:room_update", (message) => {
        if (message.info.room !== this.room) return;
        off();
        resolve(message.info);
      });
    });
  }

  /** Take my own seat back, else the first open seat. */
  private async joinFirst(): Promise<void> {
    const summary = await this.whenSummary();
    if (this.destroyed) return;
    const mine = this.app.mySeat(this.room);
    const seat = mine ?? summary?.seats.find((s) => s.kind === "open")?.seat;
    if (seat === undefined) {
      this.errors.show(new ServerError("seat_taken", "No seat is open here; you are watching."));
      return;
    }
    this.join(seat);
  }

  private join(seat: number): void {
    const code = this.code ?? this.app.session.codes.get(this.room) ?? null;
    this.app.session
      .request({ type: "join_seat", room: this.room, seat, code })
      .then(() => this.app.entered.add(this.room))
      .catch((error) => this.errors.show(error));
  }

  private askCode(): void {
    const input = h("input#room-code", { type: "text", autocomplete: "off", placeholder: "ABC123", "aria-label": "Room code" });
    replace(
      this.boardArea,
      h(
        "form.code-form.panel",
        {
          onsubmit: (event: Event) => {
            event.preventDefault();
            const code = input.value.trim().toUpperCase();
            if (!code) return;
            this.app.rememberCode(this.room, code);
            navigate({ page: "room", room: this.room, code });
          },
        },
        h("h3", null, "This room is private"),
        h("label", { for: "room-code" }, "Its code"),
        input,
        h("button.primary", { type: "submit" }, "Enter"),
      ),
    );
    input.focus();
  }

  /** Say something the server did to this player, above the board. */
  private say(sentence: string, kind: "kicked"): void {
    this.notice.dataset.kind = kind;
    replace(this.notice, h("span.notice-sentence", null, sentence));
    this.notice.hidden = false;
  }

  /** The closed room: its sentence where the board was, and the way back. */
  private drawClosed(): void {
    if (this.boardArea.querySelector(".closed")) return;
    this.destroyBoard();
    this.status.textContent = "";
    setAlert(null);
    replace(
      this.boardArea,
      h(
        "div.panel.closed",
        { "data-testid": "room-closed" },
        h("h3", null, "This room is closed"),
        h("p", { "data-testid": "closed-sentence" }, this.closed ?? ""),
        h("div.row", null, h("a.button", { href: "#/", "data-testid": "back-to-lobby" }, "Back to the lobby")),
      ),
    );
  }

  private drawMissing(): void {
    replace(
      this.boardArea,
      h(
        "div.panel.missing",
        null,
        h("h3", null, "No such room"),
        h("p", null, "It may have expired, or the link is wrong. If its game finished, its replay may still be there."),
        h("div.row", null, h("a.button", { href: "#/" }, "Back to the lobby"), h("a.button", { href: `#/replay/${encodeURIComponent(this.room)}` }, "Try its replay")),
      ),
    );
  }

  // --- the room's summary: header, seats, controls ------------------------------------------------

  private summary(): RoomSummary | null {
    return this.app.summaries.get(this.room) ?? null;
  }

  private drawRoom(): void {
    if (this.destroyed) return;
    const summary = this.summary();
    this.drawHeader(summary);
    this.drawSeats(summary);
    this.drawControls();
    this.chat.setSeated(this.app.mySeat(this.room) !== null);
    // Seated again after a kick (the host freed the seat, the player sat down): old news.
    if (this.notice.dataset.kind === "kicked" && this.app.mySeat(this.room) !== null) this.notice.hidden = true;
    if (summary) setTitle(this.app.gameName(summary.game));
    const copy = this.app.session.view(this.room);
    if (copy && !this.board && copy.view !== null) this.viewChanged(copy, null);
    // The turn line depends on the room's state too (a room_update may follow the view).
    else this.redrawTurn();
    if (!copy || copy.view === null) this.drawWaiting();
    if (summary?.state === "finished") this.gameOver();
    // Refusals about starting no longer hold once the game runs.
    if (summary && summary.state !== "waiting") this.errors.clearIf("not_ready", "not_host", "already_started");
  }

  /** The header: one line (the game, its state, how to play, and "Room details", which
   *  holds the room id, its options in words and the share link). The details are open while
   *  the room waits for players (sharing is what to do then) and fold away once it plays, so
   *  the board comes first; a player's own opening or closing sticks. */
  private drawHeader(summary: RoomSummary | null): void {
    const code = this.app.session.codes.get(this.room) ?? this.code;
    const link = roomLink(this.room, summary?.private ? code : null);
    const state = summary?.state ?? null;
    if (state !== this.headerState) {
      this.details.open = state === "waiting";
      this.headerState = state;
    }
    document.body.classList.toggle("in-play", state === "playing" && this.closed === null);
    const info = summary ? this.app.gameInfo(summary.game) : null;
    if (summary && !info) void this.app.games().then(() => this.drawHeader(this.summary()), () => undefined);
    const options = summary ? optionsSentence(summary.options, info, summary.turn_clock) : "";
    replace(
      this.header,
      h(
        "div.room-title",
        null,
        h("h2", null, summary ? this.app.gameName(summary.game) : "Room"),
        summary ? h(`span.state.state-${summary.state}`, { "data-testid": "room-state" }, summary.state) : null,
        summary?.private ? h("span.badge", null, "private") : null,
        summary ? h("a.help-link", { href: `#/howto/${summary.game}` }, "How to play") : null,
      ),
      this.details,
    );
    replace(
      this.details,
      h("summary", { "data-testid": "room-details" }, "Details"),
      h("p.muted.room-id", null, `Room ${this.room}`, summary ? " · " : "", summary ? h("a.help-link.details-help", { href: `#/howto/${summary.game}` }, "How to play") : null),
      options ? h("p.options.muted", { "data-testid": "room-options" }, `Options: ${options}`) : null,
      h(
        "div.share",
        null,
        h("label", { for: "share-link" }, "Share"),
        h("input#share-link", { type: "text", readOnly: true, value: link, onfocus: (e: Event) => (e.target as HTMLInputElement).select() }),
        h(
          "button.small",
          {
            type: "button",
            onclick: () => {
              navigator.clipboard?.writeText(link).then(
                () => this.flash("Link copied."),
                () => this.flash("Copy the link from the box."),
              );
            },
          },
          "Copy link",
        ),
        summary?.private && code ? h("span.code", null, "Code ", h("strong", { "data-testid": "room-code" }, code)) : null,
      ),
    );
  }

  private flash(text: string): void {
    this.status.textContent = text;
  }

  private drawSeats(summary: RoomSummary | null): void {
    if (!summary) {
      replace(this.seatsList, h("li.muted", null, "Loading…"));
      return;
    }
    const me = this.app.session.user;
    const mine = this.app.mySeat(this.room);
    const host = summary.host === me;
    const view = this.app.session.view(this.room)?.view ?? null;
    const turn = typeof view?.turn === "number" ? view.turn : null;
    replace(
      this.seatsList,
      summary.seats.map((seat) => {
        const actions: HTMLElement[] = [];
        const live = this.closed === null; // a closed room offers nothing to do
        if (live && mine === null && seat.kind === "open" && summary.state === "waiting") {
          actions.push(h("button.small.primary", { type: "button", "data-testid": `sit-${seat.seat}`, onclick: () => this.join(seat.seat) }, "Sit here"));
        }
        if (live && mine === null && seat.kind === "bot" && summary.state === "playing") {
          actions.push(h("button.small", { type: "button", onclick: () => this.join(seat.seat) }, "Take over"));
        }
        if (live && host && summary.state === "waiting" && seat.kind === "human" && seat.user !== me) {
          actions.push(h("button.small.ghost", { type: "button", onclick: () => this.request({ type: "kick", room: this.room, seat: seat.seat }) }, "Kick"));
        }
        return h(
          `li.seat.seat-${seat.seat}.kind-${seat.kind}${seat.seat === mine ? ".me" : ""}${seat.seat === turn ? ".turn" : ""}`,
          { "data-seat": seat.seat },
          h("span.seat-glyph", { "aria-hidden": "true" }, seatGlyph(seat.seat)),
          h("span.seat-name", null, seatLabel(seat.seat, seat.name, seat.kind, seat.bot), seat.seat === mine ? " (you)" : "", ratingTag(seat.rating)),
          h("span.seat-tags", null, seatTags(seat, summary)),
          actions.length ? h("span.actions", null, actions) : null,
        );
      }),
      summary.spectators ? h("li.muted.spectators", null, `◎ ${summary.spectators} watching`) : null,
    );
  }

  private drawControls(): void {
    if (this.closed !== null) {
      replace(this.controls, h("a.button", { href: "#/" }, "Back to the lobby"));
      return;
    }
    const summary = this.summary();
    const mine = this.app.mySeat(this.room);
    const buttons: HTMLElement[] = [];
    if (summary) {
      const host = summary.host === this.app.session.user;
      const seat = mine !== null ? summary.seats[mine] : undefined;
      if (summary.state === "waiting" && seat) {
        const ready = seat.ready;
        buttons.push(
          h("button", { type: "button", "aria-pressed": String(ready), "data-testid": "ready", onclick: () => this.request({ type: "ready", room: this.room, ready: !ready }) }, ready ? "✓ Ready" : "Ready"),
        );
      }
      if (summary.state === "waiting" && host) {
        buttons.push(h("button.primary", { type: "button", "data-testid": "start", onclick: () => this.request({ type: "start", room: this.room }) }, "Start game"));
      }
      if (summary.state === "finished") {
        if (mine !== null) {
          const ready = this.app.rematches.get(this.room);
          buttons.push(
            ready
              ? h("button.primary", { type: "button", "data-testid": "rematch-go", onclick: () => this.goToRematch(ready) }, "Go to the rematch")
              : h("button.primary", { type: "button", "data-testid": "rematch", disabled: this.rematchAsked, onclick: () => this.rematch() }, this.rematchAsked ? "Rematch asked…" : "Rematch"),
          );
        }
        buttons.push(h("button", { type: "button", "data-testid": "replay", onclick: () => navigate({ page: "replay", room: this.room, viewer: mine }) }, "Replay"));
      }
    }
    buttons.push(h("button.ghost", { type: "button", "data-testid": "leave", onclick: () => this.leave() }, mine !== null && summary?.state === "playing" ? "Leave (a bot plays on)" : "Leave"));
    replace(this.controls, buttons);
  }

  private request(message: Parameters<AppState["session"]["request"]>[0]): void {
    this.app.session.request(message).catch((error) => this.errors.show(error));
  }

  private leave(): void {
    const after = () => {
      this.app.entered.delete(this.room);
      navigate({ page: "lobby" });
    };
    if (!this.app.session.view(this.room) && !this.app.entered.has(this.room)) return after();
    this.app.session.request({ type: "leave", room: this.room }).then(after, (error) => {
      if (error instanceof ServerError && error.code === "not_in_room") after();
      else this.errors.show(error);
    });
  }

  private rematch(): void {
    this.rematchAsked = true;
    this.drawControls();
    this.app.session.request({ type: "rematch", room: this.room }).catch((error) => {
      this.rematchAsked = false;
      this.drawControls();
      this.errors.show(error);
    });
  }

  private goToRematch(newRoom: string): void {
    this.app.joinOnOpen.add(newRoom);
    navigate({ page: "room", room: newRoom, code: null });
  }

  // --- the board ----------------------------------------------------------------------------------

  private drawWaiting(): void {
    if (this.closed !== null) return this.drawClosed();
    if (this.board || this.boardArea.querySelector(".code-form, .missing")) return;
    const summary = this.summary();
    if (summary?.state === "finished") return;
    const open = summary?.seats.filter((seat) => seat.kind === "open").length ?? 0;
    const unready = summary?.seats.filter((seat) => seat.kind === "human" && !seat.ready && seat.user !== summary.host).length ?? 0;
    const host = summary?.host === this.app.session.user;
    const text = !summary
      ? "Connecting to the room…"
      : open
        ? `Waiting for ${open} more player${open === 1 ? "" : "s"}. Share the link to invite someone.`
        : unready
          ? `Waiting for ${unready} player${unready === 1 ? "" : "s"} to be ready.`
          : host
            ? "Everyone is here: start the game."
            : "Everyone is here: waiting for the host to start.";
    // A spinner means "something is on its way"; a host who can start is waited for by no one.
    const canStart = Boolean(summary && !open && !unready && host);
    replace(this.boardArea, h("div.waiting.panel", { "data-testid": "waiting" }, canStart ? null : h("div.spinner", { "aria-hidden": "true" }), h("p", null, text)));
  }

  private viewChanged(copy: RoomView | null, previous: RoomView | null): void {
    if (this.destroyed) return;
    if (this.closed !== null) return this.drawClosed();
    if (!copy || copy.view === null) {
      this.destroyBoard();
      this.myTurn = false;
      setAlert(null);
      this.drawWaiting();
      this.drawSeats(this.summary());
      this.drawControls();
      return;
    }
    const summary = this.summary();
    if (!summary) return; // drawn once the room's summary arrives (drawRoom)
    const key = `${summary.game}:${copy.seat}`;
    if (this.board && this.boardKey === key) {
      this.board.update(copy.view, copy.legal, previous?.view ?? null);
    } else this.createBoard(summary.game, key, copy);
    this.turnChanged(copy, summary);
    this.drawSeats(summary);
    if (outcomeFromView(copy.view)) this.gameOver();
  }

  private createBoard(game: string, key: string, copy: RoomView): void {
    this.destroyBoard();
    const token = ++this.loading;
    this.boardKey = key;
    replace(this.boardArea, h("div.waiting", null, h("div.spinner", { "aria-hidden": "true" }), h("p", null, "Loading the board…")));
    loadBoard(game)
      .then((factory) => {
        if (token !== this.loading || this.destroyed) return;
        const root = h(`div.board-root.board-${game}`, { "data-game": game, tabindex: "-1", "data-start-here": "" });
        // The Start button (or whatever had the focus) is gone: the focus goes to the board,
        // not to the page's body, so keys and Tab start from there.
        const lost = document.activeElement === null || document.activeElement === document.body || !document.activeElement.isConnected || this.controls.contains(document.activeElement);
        replace(this.boardArea, root);
        this.boardRoot = root;
        if (lost && copy.seat !== null) root.focus({ preventScroll: true });
        this.board = factory(root, this.context(copy.seat));
        const latest = this.app.session.view(this.room);
        if (latest?.view) this.board.update(latest.view, latest.legal, null);
        // The turn line was drawn before the board came: a board that says the turn itself
        // takes it over now, not at the next change.
        this.redrawTurn();
      })
      .catch((error) => this.errors.show(error));
  }

  private context(seat: number | null): BoardContext {
    const app = this.app;
    const room = this.room;
    return {
      seat,
      readOnly: seat === null,
      act: (command: Command) => {
        const seq = app.session.view(room)?.seq ?? null;
        const sent = app.session.request({ type: "act", room, command, seq });
        if (app.session.holding > 0) this.errors.show(HELD);
        return sent.then(
          () => this.errors.clearIf("offline"),
          (error: unknown) => {
            if (error instanceof ServerError && MOVE_FAILURES.has(error.code)) {
              this.errors.show(new ServerError(error.code, MOVE_SENTENCES[error.code] ?? error.message));
            } else this.errors.clearIf("offline");
            throw error;
          },
        );
      },
      sound: (name) => app.sound.play(name),
      serverNow: () => app.session.serverNow(),
      get seatNames() {
        return app.seatNames(room);
      },
      settled: () => this.redrawTurn(),
    };
  }

  private destroyBoard(): void {
    this.loading += 1;
    if (this.board) {
      try {
        this.board.destroy();
      } catch (error) {
        console.error("lumin: a board failed to clean up", error);
      }
    }
    this.board = null;
    this.boardKey = null;
    this.boardRoot?.remove();
    this.boardRoot = null;
  }

  /** The turn line for the room's copy and summary now, once both are there. */
  private redrawTurn(): void {
    const copy = this.app.session.view(this.room);
    const summary = this.summary();
    if (copy && summary && copy.view !== null) this.turnChanged(copy, summary);
  }

  /** The turn status line and the tab-title alert: my turn is whenever my seat has legal
   *  commands; an alert sounds when that starts. While the board still plays out earlier
   *  changes (the AI's moves), the turn is announced once it has caught up (`settled`). */
  private turnChanged(copy: RoomView, summary: RoomSummary): void {
    const playing = summary.state === "playing" && !outcomeFromView(copy.view);
    const mine = copy.seat !== null && copy.legal.length > 0 && playing;
    if (mine && !this.myTurn && this.board?.busy?.()) return;
    const turn = typeof (copy.view as Data).turn === "number" ? ((copy.view as Data).turn as number) : null;
    if (mine && !this.myTurn) {
      if (!this.board?.playsTurnAlert) this.app.sound.play("alert");
      setAlert(turn !== null ? "▶ Your turn" : "▶ Your move");
    }
    if (!mine) setAlert(null);
    this.myTurn = mine;
    const names = this.app.seatNames(this.room);
    // A board that says the turn itself is not repeated here ("Your turn." once, not twice).
    this.status.textContent = playing && this.board?.saysTurn
      ? ""
      : !playing
      ? summary.state === "finished" || outcomeFromView(copy.view)
        ? "The game is over."
        : ""
      : mine
        ? turn !== null
          ? "Your turn."
          : "Your move."
        : copy.seat === null
          ? turn !== null
            ? `Watching — ${names[turn] ?? `seat ${turn + 1}`} to play.`
            : "Watching."
          : turn !== null
            ? `Waiting for ${names[turn] ?? `seat ${turn + 1}`}…`
            : "Waiting…";
    this.status.classList.toggle("mine", mine);
  }

  // --- the end ------------------------------------------------------------------------------------

  /** The rating changes of this room's rated game, once `ratings_changed` came. */
  private drawRatings(): void {
    const changes = this.app.ratings.get(this.room);
    if (!changes?.length) return;
    const mine = this.app.mySeat(this.room) ?? this.app.session.view(this.room)?.seat ?? null;
    replace(this.ratingsArea, renderRatings(changes, mine));
  }

  private gameOver(): void {
    const copy = this.app.session.view(this.room);
    const over = this.app.overs.get(this.room) ?? null;
    const outcome = over?.outcome ?? outcomeFromView(copy?.view ?? null);
    // Drawn once, and again when `game_over` (the seed reveal) follows a summary drawn from
    // the final view alone: that one asked the log for the reveal, perhaps before the store
    // had the game as finished.
    if (!outcome || (this.summaryShown && (this.summaryHadOver || over === null))) {
      this.drawControls();
      return;
    }
    this.summaryShown = true;
    this.summaryHadOver = over !== null;
    const mine = this.app.mySeat(this.room) ?? copy?.seat ?? null;
    if (mine !== null && over) this.app.sound.play(outcome.winners.includes(mine) ? "win" : "lose");
    setAlert(null);
    replace(this.summaryArea, renderSummary(outcome, this.summary(), over, mine, this.room, this.logAccess()));
    this.drawControls();
  }
}

function seatTags(seat: SeatInfo, summary: RoomSummary): (HTMLElement | string)[] {
  const tags: (HTMLElement | string)[] = [];
  if (seat.user !== null && seat.user === summary.host) tags.push(h("span.tag.host", { title: "Host" }, "host"));
  if (seat.kind === "bot") tags.push(h("span.tag.bot", null, `bot: ${seat.bot}`));
  if (seat.kind === "human") {
    if (summary.state === "waiting") tags.push(h(`span.tag${seat.ready ? ".ready" : ""}`, null, seat.ready ? "✓ ready" : "not ready"));
    tags.push(h(`span.dot${seat.connected ? ".on" : ".off"}`, { title: seat.connected ? "connected" : "away", "aria-label": seat.connected ? "connected" : "away" }, seat.connected ? "●" : "○"));
    // Away during a game: a bot plays the seat until its person is back (at once when they
    // left, after the server's grace period when only their connection dropped).
    if (!seat.connected) {
      const playing = summary.state === "playing";
      tags.push(h("span.tag.away", { title: playing ? "A bot plays this seat until its player comes back (at once when they left, after a grace period when their connection dropped)." : "Not connected" }, playing ? "away · a bot plays" : "away"));
    }
  }
  const choices = Object.entries(seat.choices ?? {}).filter(([, value]) => value !== "auto" && value !== false);
  for (const [key, value] of choices) tags.push(h("span.tag", null, value === true ? key : `${key}: ${value}`));
  return tags;
}
