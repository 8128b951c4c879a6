/**
 * The replay page: a finished game's log stepped through on the server (`open_replay`,
 * `replay_step`, `replay_seek`, `replay_viewer`), drawn by the game's own board in read-only
 * mode. Step back and forth, jump to either end, scrub with the slider, play it out at a
 * chosen pace, and look through any seat's eyes or the public view (every seat may be chosen
 * once the game is over). Keys: ← → step, Home / End jump, Space plays or pauses.
 *
 * The game and its seats come from the finished game's log (`/rooms/<id>/log`), or from the
 * lobby's summary when the log cannot be read. The replay speaks as "you" only from a seat
 * the person at the screen played; seen from any other seat it names that seat.
 */

import { loadBoard } from "../boards";
import type { Board } from "../boards/types";
import { ServerError } from "../protocol/errors";
import type { Data, ReplayState, RoomSummary } from "../protocol/messages";
import { h, replace } from "./dom";
import { ErrorLine } from "./errors";
import { seatGlyph } from "./lobby";
import type { Page } from "./page";
import { routeHash } from "./router";
import { type AppState, seatLabel } from "./state";
import { fetchLog, type LogAccess } from "./logs";
import { outcomeFromView, renderSummary } from "./summary";
import { setTitle } from "./title";

interface GameFacts {
  game: string;
  seats: string[];
  /** The user id of each seat's person (null for bots and open seats). */
  users: (string | null)[];
  summary: RoomSummary | null;
}

export class ReplayPage implements Page {
  readonly element: HTMLElement;
  private readonly errors = new ErrorLine();
  private readonly boardArea = h("div.board-area", { "data-testid": "board-area" });
  private readonly summaryArea = h("div.summary-area");
  private readonly slider = h("input#replay-slider", { type: "range", min: 0, max: 0, value: "0", step: "1", "aria-label": "Position in the game", "data-testid": "replay-slider" });
  private readonly position = h("output.replay-position", { for: "replay-slider", "data-testid": "replay-position" }, "0 / 0");
  private readonly viewerSelect = h("select#replay-viewer", { "data-testid": "replay-viewer" });
  private readonly playButton = h("button", { type: "button", "data-testid": "replay-play" }, "▶ Play");
  private readonly speed = h("select#replay-speed", { "aria-label": "Pace" }, h("option", { value: "800" }, "slow"), h("option", { value: "350", selected: true }, "normal"), h("option", { value: "120" }, "fast"));
  private state: ReplayState | null = null;
  private facts: GameFacts | null = null;
  private board: Board | null = null;
  private boardViewer: number | null | undefined = undefined;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private seekTimer: ReturnType<typeof setTimeout> | null = null;
  private busy = false;
  /** The latest request asked for while one was running; sent when it is answered. */
  private queued: Parameters<AppState["session"]["request"]>[0] | null = null;
  private factsLoaded = false;
  /** The connection the replay was opened on (a reconnect needs a new one). */
  private openedOn: unknown = null;
  private destroyed = false;
  private readonly offs: (() => void)[] = [];
  private readonly keys = (event: KeyboardEvent) => this.onKey(event);

  constructor(
    private readonly app: AppState,
    private readonly room: string,
    private viewer: number | null,
  ) {
    const button = (label: string, title: string, testid: string, action: () => void) =>
      h("button", { type: "button", title, "aria-label": title, "data-testid": testid, onclick: action }, label);
    this.playButton.onclick = () => this.togglePlay();
    this.slider.oninput = () => this.scrub(Number(this.slider.value));
    this.viewerSelect.onchange = () => this.lookAs(this.viewerSelect.value === "" ? null : Number(this.viewerSelect.value));
    this.element = h(
      "main.page.replay",
      { "data-page": "replay", "data-room": room },
      h("header.room-header", null, h("div.room-title", null, h("h2", null, "Replay"), h("span.muted.room-id", null, room))),
      this.errors.element,
      h(
        "section.panel.replay-controls",
        { role: "group", "aria-label": "Replay controls" },
        button("⇤", "To the start (Home)", "replay-start", () => this.seek(0)),
        button("◀ Step", "Step back (←)", "replay-back", () => this.step(-1)),
        this.playButton,
        button("Step ▶", "Step forward (→)", "replay-forward", () => this.step(1)),
        button("⇥", "To the end (End)", "replay-end", () => this.seek(this.state?.length ?? 0)),
        h("div.scrub", null, this.slider, this.position),
        h("label", { for: "replay-viewer" }, "Seen by"),
        this.viewerSelect,
        h("label", { for: "replay-speed" }, "Pace"),
        this.speed,
      ),
      h("section.board-column", { "aria-label": "Board" }, this.boardArea, this.summaryArea),
    );
    window.addEventListener("keydown", this.keys);
    this.offs.push(app.session.on("welcome", () => this.open())); // a reconnect lost the replay
    replace(this.boardArea, h("div.waiting", null, h("div.spinner", { "aria-hidden": "true" }), h("p", null, "Opening the replay…")));
    void this.loadFacts().then(() => this.open());
  }

  destroy(): void {
    this.destroyed = true;
    this.stopPlay();
    window.removeEventListener("keydown", this.keys);
    for (const off of this.offs) off();
    this.board?.destroy();
    if (this.state && this.app.session.status === "open") {
      this.app.session.request({ type: "close_replay", replay: this.state.replay }).catch(() => undefined);
    }
    setTitle(null);
  }

  /** What opens a private game's replay and log: its code when this page knows it, and the
   *  identity (a player of the game may replay it without the code). */
  private logAccess(): LogAccess {
    return { code: this.app.session.codes.get(this.room) ?? null, token: this.app.session.token };
  }

  private async loadFacts(): Promise<void> {
    let facts: GameFacts | null = null;
    try {
      const response = await fetchLog(this.room, this.logAccess());
      if (response.ok) {
        const log = (await response.json()) as { game: string; seats: Data[] };
        facts = {
          game: log.game,
          seats: log.seats.map((seat, n) => seatLabel(n, (seat.name as string) ?? null, String(seat.kind), (seat.bot as string) ?? null)),
          users: log.seats.map((seat) => (seat.kind === "human" && typeof seat.user === "string" ? seat.user : null)),
          summary: null,
        };
      }
    } catch {
      /* fall back to the lobby's summary */
    }
    const summary = this.app.summaries.get(this.room) ?? null;
    if (!facts && summary) {
      facts = { game: summary.game, seats: summary.seats.map((s) => seatLabel(s.seat, s.name, s.kind, s.bot)), users: summary.seats.map((s) => (s.kind === "human" ? s.user : null)), summary };
    }
    if (facts) facts.summary = summary;
    this.facts = facts;
    this.factsLoaded = true;
    setTitle(`Replay · ${this.app.gameName(facts?.game ?? "")}`);
    replace(
      this.viewerSelect,
      h("option", { value: "", selected: this.viewer === null }, "Public view"),
      (facts?.seats ?? []).map((name, seat) => h("option", { value: String(seat), selected: this.viewer === seat }, `${seatGlyph(seat)} ${name}`)),
    );
  }

  /** Open the replay once the game's facts are known and the session is online; again after
   *  a reconnect (replays live on a connection), at the position it had. */
  private open(): void {
    const session = this.app.session;
    if (this.destroyed || !this.factsLoaded || session.status !== "open" || this.openedOn === session.conn) return;
    this.openedOn = session.conn;
    const resumeAt = this.state?.position ?? 0;
    this.busy = false;
    this.queued = null;
    this.run({ type: "open_replay", room: this.room, viewer: this.viewer, code: this.logAccess().code }, () => {
      if (resumeAt !== 0) this.seek(resumeAt);
    });
  }

  /** Send one replay request and draw its answer; one at a time, the latest waiting. */
  private run(message: Parameters<AppState["session"]["request"]>[0], then?: () => void): void {
    if (this.busy) {
      if (message.type !== "open_replay") this.queued = message;
      return;
    }
    this.busy = true;
    const before = this.state;
    this.app.session
      .request<ReplayState>(message)
      .then((state) => {
        this.busy = false;
        if (this.destroyed) return;
        const stepped = before !== null && state.position === before.position + 1 && state.viewer === before.viewer;
        this.state = state;
        void this.draw(stepped ? before.view : null);
        then?.();
        const next = this.queued;
        this.queued = null;
        if (next && "replay" in next) this.run({ ...next, replay: state.replay } as typeof next);
      })
      .catch((error) => {
        this.busy = false;
        this.queued = null;
        this.stopPlay();
        this.errors.show(error);
        if (error instanceof ServerError && (error.code === "no_such_room" || error.code === "not_finished")) {
          replace(this.boardArea, h("div.panel.missing", null, h("p", null, "This game cannot be replayed."), h("a.button", { href: "#/" }, "Back to the lobby")));
        }
      });
  }

  private async draw(previous: Data | null): Promise<void> {
    const state = this.state;
    if (!state) return;
    this.slider.max = String(state.length);
    this.slider.value = String(state.position);
    this.position.textContent = `${state.position} / ${state.length}`;
    if (this.board === null || this.boardViewer !== state.viewer) {
      this.board?.destroy();
      this.board = null;
      const game = this.facts?.game ?? "";
      const factory = await loadBoard(game);
      if (this.destroyed || this.state !== state) return;
      const root = h(`div.board-root.board-${game}`, { "data-game": game });
      replace(this.boardArea, root);
      const app = this.app;
      const facts = this.facts;
      this.board = factory(root, {
        seat: state.viewer,
        readOnly: true,
        seenAs: state.viewer !== null && !this.played(state.viewer),
        act: () => Promise.reject(new ServerError("read_only", "A replay cannot be played.")),
        sound: (name) => app.sound.play(name),
        // The game's clock at this step, so clocks read as they did then.
        serverNow: () => this.state?.at ?? app.session.serverNow(),
        seatNames: facts?.seats ?? [],
      });
      this.boardViewer = state.viewer;
      this.board.update(state.view, [], null);
    } else this.board.update(state.view, [], previous);
    const outcome = state.position === state.length ? outcomeFromView(state.view) : null;
    // The summary says "you" only to the person who played the seat it is seen from.
    const mine = state.viewer !== null && this.played(state.viewer) ? state.viewer : null;
    replace(this.summaryArea, outcome ? renderSummary(outcome, this.facts?.summary ?? null, null, mine, this.room, this.logAccess()) : null);
    if (state.position >= state.length) this.stopPlay();
  }

  /** Whether the person at this screen played `seat` in this game. */
  private played(seat: number): boolean {
    const user = this.facts?.users[seat] ?? null;
    return user !== null && user === this.app.session.user;
  }

  private step(steps: number): void {
    if (this.state) this.run({ type: "replay_step", replay: this.state.replay, steps });
  }

  private seek(position: number): void {
    if (this.state) this.run({ type: "replay_seek", replay: this.state.replay, position });
  }

  /** Scrubbing: seek once the slider rests for a moment. */
  private scrub(position: number): void {
    this.stopPlay();
    this.position.textContent = `${position} / ${this.state?.length ?? 0}`;
    if (this.seekTimer) clearTimeout(this.seekTimer);
    this.seekTimer = setTimeout(() => this.seek(position), 60);
  }

  private lookAs(viewer: number | null): void {
    this.viewer = viewer;
    history.replaceState(null, "", routeHash({ page: "replay", room: this.room, viewer }));
    if (this.state) this.run({ type: "replay_viewer", replay: this.state.replay, viewer });
  }

  private togglePlay(): void {
    if (this.timer) this.stopPlay();
    else this.startPlay();
  }

  private startPlay(): void {
    if (!this.state) return;
    if (this.state.position >= this.state.length) this.seek(0);
    this.playButton.textContent = "❚❚ Pause";
    this.playButton.setAttribute("aria-pressed", "true");
    const tick = () => {
      if (!this.state || this.state.position >= this.state.length) return this.stopPlay();
      if (!this.busy) this.step(1);
      this.timer = setTimeout(tick, Number(this.speed.value));
    };
    this.timer = setTimeout(tick, 0);
  }

  private stopPlay(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.playButton.textContent = "▶ Play";
    this.playButton.setAttribute("aria-pressed", "false");
  }

  private onKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement | null;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA") && target !== this.slider) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const keys: Record<string, () => void> = {
      ArrowLeft: () => this.step(-1),
      ArrowRight: () => this.step(1),
      Home: () => this.seek(0),
      End: () => this.seek(this.state?.length ?? 0),
      " ": () => this.togglePlay(),
    };
    const action = keys[event.key];
    if (!action || (target === this.slider && event.key !== " ")) return;
    if (event.key === " " && target?.tagName === "BUTTON") return; // the button itself handles it
    event.preventDefault();
    action();
  }
}

