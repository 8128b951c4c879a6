/**
 * The lobby: the player's name, the live list of public rooms (`watch_lobby`, then
 * `lobby_update`s) with join / watch / replay, joining a private room by link or code, and
 * the create-room form for any game (from `list_games`).
 */

import type { GameInfo, RoomCreated, RoomList, RoomSummary } from "../protocol/messages";
import { ServerError } from "../protocol/errors";
import {
  applies,
  buildCreateRoom,
  type CreatePlan,
  initialPlan,
  label,
  optionControl,
  planProblem,
  resizeSeats,
  seatRange,
  type SeatPlan,
} from "./create_form";
import { h, replace, svg } from "./dom";
import type { Page } from "./page";
import { QuickPlayPanel } from "./quickplay";
import { ratingTag } from "./rating";
import { navigate, parseJoin, routeHash } from "./router";
import { resultLine } from "./results";
import { type AppState, seatLabel } from "./state";

export class LobbyPage implements Page {
  readonly element = h("main.page.lobby", { "data-page": "lobby" });
  private readonly rooms = new Map<string, RoomSummary>();
  private readonly list = h("div.room-list", { "aria-live": "polite" });
  private readonly mine = h("div.my-rooms");
  private readonly finished = h("div.room-list.finished");
  private readonly createArea = h("div.create-area");
  private readonly problem = h("p.error-line", { role: "alert", "data-testid": "lobby-error" });
  private readonly offs: (() => void)[] = [];
  private readonly quick: QuickPlayPanel;
  private plan: CreatePlan | null = null;
  private games: GameInfo[] = [];
  /** The connection the lobby watch was sent on (a new one needs a new watch). */
  private watchedOn: unknown = null;

  constructor(private readonly app: AppState) {
    const session = app.session;
    this.quick = new QuickPlayPanel(app);
    this.offs.push(
      session.on("msg:lobby_update", (update) => {
        for (const room of update.rooms) this.rooms.set(room.room, room);
        for (const id of update.removed) this.rooms.delete(id);
        this.drawRooms();
      }),
      session.on("welcome", () => {
        if (this.watchedOn !== session.conn) this.watch(); // a reconnect: watch again
        this.drawMine();
        // Back online: a failure to reach the server no longer holds.
        if (this.createArea.querySelector<HTMLElement>(".create-problem")?.dataset.code === "disconnected") this.clearCreateFailure();
        if (this.problem.textContent?.startsWith("Not connected")) this.problem.textContent = "";
      }),
    );
    this.element.append(
      h(
        "section.lobby-pitch",
        { "aria-label": "Lumin" },
        h("p.pitch", null, "Four neon tabletop games to play in the browser with friends or bots: make a room, share its link, play."),
        h(
          "ul.pitch-games",
          null,
          h("li", null, h("span.pitch-icon.fof", { "aria-hidden": "true" }, frogIcon()), "Flip Over Frog"),
          h("li", null, h("span.pitch-icon.nh", { "aria-hidden": "true" }, "⬢"), "Neon Hex"),
          h("li", null, h("span.pitch-icon.f8", { "aria-hidden": "true" }, "⚡"), "Flash 8"),
          h("li", null, h("span.pitch-icon.nf", { "aria-hidden": "true" }, "◆"), "Neon Flip"),
        ),
      ),
      // One column of its own beside the room list, so however long that list grows, "Create
      // a room" stays under "Play now", on the first screen.
      h(
        "div.lobby-side",
        null,
        this.quick.element,
        h("section.panel.create-panel", { "aria-labelledby": "create-title", "data-start-here": "" }, h("h2#create-title", null, "Create a room"), this.createArea),
        this.joinPanel(),
      ),
      h(
        "section.panel.rooms-panel",
        { "aria-labelledby": "rooms-title" },
        this.mine,
        h("h2#rooms-title", null, "Rooms"),
        this.list,
        h("h2", null, "Finished games"),
        h("p.muted", null, "Watch any finished game again, step by step, from any seat."),
        this.finished,
      ),
      this.problem,
    );
    // Requests may follow hello before welcome: ask for the rooms first, then the games.
    if (session.status === "open" || session.status === "connecting") this.watch();
    this.loadGames();
  }

  destroy(): void {
    for (const off of this.offs) off();
    this.quick.destroy();
    if (this.app.session.status === "open") this.app.session.request({ type: "unwatch_lobby" }).catch(() => undefined);
  }

  private show(error: unknown): void {
    this.problem.textContent = error instanceof ServerError ? error.message : String(error);
  }

  /** Say why the room was not created, beside the button the player just pressed; it clears
   *  once the plan changes or the connection is back. */
  private createFailed(error: unknown): void {
    const line = this.createArea.querySelector<HTMLElement>(".create-problem");
    if (!line) return this.show(error);
    line.textContent = error instanceof ServerError ? error.message : String(error);
    line.dataset.code = error instanceof ServerError ? error.code : "error";
    line.hidden = false;
  }

  private clearCreateFailure(): void {
    const line = this.createArea.querySelector<HTMLElement>(".create-problem");
    if (line) {
      line.textContent = "";
      line.hidden = true;
      delete line.dataset.code;
    }
  }

  private watch(): void {
    this.watchedOn = this.app.session.conn;
    this.app.session
      .request<RoomList>({ type: "watch_lobby" })
      .then((answer) => {
        this.rooms.clear();
        for (const room of answer.rooms) this.rooms.set(room.room, room);
        this.drawRooms();
        // The lobby is shown once its first room list is drawn (read by the e2e timing test).
        if (performance.getEntriesByName("lumin:lobby-shown").length === 0) performance.mark("lumin:lobby-shown");
      })
      .catch((error) => this.show(error));
  }

  private loadGames(): void {
    replace(this.createArea, h("p.muted", null, "Loading the games…"));
    this.app
      .games()
      .then((games) => {
        this.games = games;
        this.quick.setGames(games);
        if (games.length === 0) {
          replace(this.createArea, h("p.muted", null, "This server hosts no games."));
          return;
        }
        this.plan = initialPlan(games[0]!);
        this.drawCreate();
      })
      .catch((error) => {
        replace(
          this.createArea,
          h("p.error-line", null, `The game list is unavailable (${error instanceof ServerError ? error.code : error}).`),
          h("button", { type: "button", onclick: () => this.loadGames() }, "Try again"),
        );
      });
    this.drawRooms();
  }

  // --- the room list ----------------------------------------------------------------------------

  /** The rooms where this identity holds a seat (from `welcome`, private ones included). */
  private drawMine(): void {
    const held = (this.app.session.welcome?.rooms ?? []).filter((room) => (this.app.summaries.get(room) ?? this.rooms.get(room))?.state !== "finished");
    replace(
      this.mine,
      held.length
        ? [
            h("h2", null, "Your seats"),
            h(
              "ul.held",
              null,
              held.map((room) => {
                const summary = this.app.summaries.get(room) ?? this.rooms.get(room);
                return h(
                  "li",
                  null,
                  h("a.button.small.primary", { href: `#/room/${encodeURIComponent(room)}`, "data-testid": "held-room" }, "Back to ", summary ? this.app.gameName(summary.game) : "your game"),
                  h("span.muted.room-id", null, ` ${room}`),
                );
              }),
            ),
          ]
        : null,
    );
  }

  private drawRooms(): void {
    this.drawMine();
    const all = [...this.rooms.values()];
    const live = all.filter((room) => room.state !== "finished").sort((a, b) => b.created - a.created);
    // Most recently finished first (the server's order), as far as the results say when.
    const done = all.filter((room) => room.state === "finished").sort((a, b) => (b.result?.finished ?? b.created) - (a.result?.finished ?? a.created));
    replace(this.list, live.length ? live.map((room) => this.roomCard(room)) : h("p.muted.empty", null, "No open rooms yet: create one."));
    replace(this.finished, done.length ? done.slice(0, 50).map((room) => this.roomCard(room)) : h("p.muted.empty", null, "No finished games yet."));
  }

  private roomCard(room: RoomSummary): HTMLElement {
    const open = room.seats.filter((seat) => seat.kind === "open").length;
    const mine = room.seats.some((seat) => seat.user === this.app.session.user && seat.kind === "human");
    const players = room.seats.map((seat) =>
      h(`span.seat-chip.seat-${seat.seat}.kind-${seat.kind}`, { title: seat.kind === "bot" ? `bot: ${seat.bot}` : seat.kind }, seatGlyph(seat.seat), " ", seatLabel(seat.seat, seat.name, seat.kind, seat.bot), ratingTag(seat.rating)),
    );
    const actions: HTMLElement[] = [];
    if (room.state === "finished") {
      actions.push(h("button.small", { type: "button", onclick: () => navigate({ page: "replay", room: room.room, viewer: null }) }, "Replay"));
    } else {
      if (mine) actions.push(h("button.small.primary", { type: "button", onclick: () => navigate({ page: "room", room: room.room, code: null }) }, "Back to my seat"));
      else if (room.state === "waiting" && open > 0) {
        actions.push(
          h(
            "button.small.primary",
            {
              type: "button",
              onclick: () => {
                this.app.joinOnOpen.add(room.room);
                navigate({ page: "room", room: room.room, code: null });
              },
            },
            "Join",
          ),
        );
      }
      actions.push(h("button.small", { type: "button", onclick: () => navigate({ page: "room", room: room.room, code: null }) }, "Watch"));
    }
    const result = room.state === "finished" ? resultLine(room, this.app.session.serverNow()) : null;
    return h(
      "article.room-card",
      { "data-room": room.room, "data-state": room.state, "data-game": room.game },
      h("header", null, h("strong.game-name", null, this.app.gameName(room.game)), h(`span.state.state-${room.state}`, null, stateLabel(room.state))),
      h("div.players", null, players),
      result ? h("a.result-line", { href: routeHash({ page: "replay", room: room.room, viewer: null }), "data-testid": "result-line", title: "Watch the replay" }, result) : null,
      h(
        "footer",
        null,
        h("span.muted", null, `${room.seats.length} seat${room.seats.length === 1 ? "" : "s"}`, open ? ` · ${open} open` : "", ` · ${room.spectators} watching`),
        h("span.actions", null, actions),
      ),
    );
  }

  // --- join by code -------------------------------------------------------------------------------

  private joinPanel(): HTMLElement {
    const input = h("input#join-code", { type: "text", placeholder: "Link, or room id and code", autocomplete: "off", spellcheck: false });
    const go = (join: boolean) => {
      const target = parseJoin(input.value);
      if (!target) {
        this.problem.textContent = "Paste a room link, or a room id followed by its code.";
        return;
      }
      if (target.code) this.app.rememberCode(target.room, target.code);
      if (join) this.app.joinOnOpen.add(target.room);
      navigate({ page: "room", room: target.room, code: target.code });
    };
    const form = h(
      "form.join-form",
      {
        onsubmit: (event: Event) => {
          event.preventDefault();
          go(true);
        },
      },
      h("label", { for: "join-code" }, "Room link or code"),
      input,
      h("div.row", null, h("button.primary", { type: "submit" }, "Join"), h("button", { type: "button", onclick: () => go(false) }, "Watch")),
    );
    return h("section.panel.join-panel", { "aria-labelledby": "join-title" }, h("h2#join-title", null, "Private room"), form);
  }

  // --- create -------------------------------------------------------------------------------------

  private drawCreate(): void {
    const plan = this.plan;
    if (!plan) return;
    const gameSelect = h(
      "select#create-game",
      { "data-testid": "create-game" },
      this.games.map((game) => h("option", { value: game.id, selected: game.id === plan.game.id }, game.name)),
    );
    gameSelect.onchange = () => {
      const game = this.games.find((g) => g.id === gameSelect.value);
      if (game) {
        this.plan = initialPlan(game);
        this.drawCreate();
        document.getElementById("create-game")?.focus();
      }
    };
    const options = plan.game.options.map((option) =>
      optionControl(option, plan.options[option.name], "opt", (value) => {
        plan.options[option.name] = value;
        const range = seatRange(plan.game, plan.options);
        if (range && (plan.seats.length < range.min || plan.seats.length > range.max)) {
          resizeSeats(plan, Math.min(range.max, Math.max(range.min, plan.seats.length)));
        }
        this.drawSeats();
      }),
    );
    const count = h("input#create-seats", { type: "number", "data-testid": "create-seats" });
    // The seat rows follow the count as it is typed, in place (never the whole form): by the
    // time the player clicks "Create room" the form has its final layout, so the click lands
    // on the button it aimed at (a change on blur would move the button under the pointer).
    count.oninput = () => {
      const range = seatRange(plan.game, plan.options);
      const n = Number(count.value);
      if (range && Number.isInteger(n) && n >= range.min && n <= range.max && n !== plan.seats.length) {
        resizeSeats(plan, n);
        this.drawSeats(false);
      }
    };
    count.onchange = () => this.drawSeats();
    const privateBox = h("input#create-private", { type: "checkbox", checked: plan.private });
    privateBox.onchange = () => (plan.private = privateBox.checked);
    const clock = h("input#create-clock", { type: "number", min: 5, step: "1", placeholder: "off", value: plan.turnClock === null ? "" : String(plan.turnClock) });
    clock.oninput = () => (plan.turnClock = clock.value === "" ? null : Number(clock.value));

    const form = h(
      "form.create-form",
      {
        "data-testid": "create-form",
        onsubmit: (event: Event) => {
          event.preventDefault();
          this.create();
        },
      },
      h("div.field", null, h("label", { for: "create-game" }, "Game"), gameSelect, h("a.help-link", { href: `#/howto/${plan.game.id}` }, `How to play ${plan.game.name}`)),
      options.length ? h("fieldset", null, h("legend", null, "Room options"), options) : h("p.muted", null, `${plan.game.name} has no room options.`),
      h(
        "fieldset.seats",
        null,
        h("legend", null, "Seats"),
        h("div.field", null, h("label", { for: "create-seats" }, "Number of seats"), count, h("small.help.seat-range")),
        h("ol.seat-plan"),
      ),
      h(
        "fieldset",
        null,
        h("legend", null, "Table"),
        h("div.field.check", null, privateBox, h("label", { for: "create-private" }, "Private"), h("small.help", null, "Not listed; people join with the link or the code.")),
        h("div.field", null, h("label", { for: "create-clock" }, "Turn clock (seconds)"), clock, h("small.help", null, "A bot moves for a player who takes longer; empty for none.")),
      ),
      h("p.error-line.plan-problem", { role: "status" }),
      h("button.primary.big", { type: "submit", "data-testid": "create-submit" }, "Create room"),
      h("p.error-line.create-problem", { role: "alert", "data-testid": "create-problem", hidden: true }),
    );
    form.addEventListener("change", () => this.clearCreateFailure());
    replace(this.createArea, form);
    this.drawSeats();
  }

  /** The seat count's bounds, its value (unless `setCount` is false: the player is typing it)
   *  and the seat rows, for the plan now (in place). */
  private drawSeats(setCount = true): void {
    const plan = this.plan;
    const count = this.createArea.querySelector<HTMLInputElement>("#create-seats");
    const list = this.createArea.querySelector<HTMLElement>(".seat-plan");
    const help = this.createArea.querySelector<HTMLElement>(".seat-range");
    if (!plan || !count || !list || !help) return;
    const range = seatRange(plan.game, plan.options);
    count.min = String(range?.min ?? 1);
    count.max = String(range?.max ?? 1);
    if (setCount) count.value = String(plan.seats.length);
    help.textContent = range ? (range.min === range.max ? `exactly ${range.min}` : `${range.min} to ${range.max}`) : "no seat count suits these options";
    // Options that do not apply to this mode and seat count are hidden (and not sent).
    for (const option of plan.game.options) {
      const field = this.createArea.querySelector<HTMLElement>(`[data-option="${CSS.escape(option.name)}"]`)?.closest<HTMLElement>(".field");
      if (field) field.hidden = !applies(option, plan.game, plan.options, plan.seats.length);
    }
    const focused = document.activeElement?.id ?? null;
    replace(list, plan.seats.map((_seat, index) => this.seatRow(plan, index)));
    if (focused && list.querySelector(`#${CSS.escape(focused)}`)) document.getElementById(focused)?.focus();
    this.refreshProblem();
  }

  private seatRow(plan: CreatePlan, index: number): HTMLElement {
    const seat = plan.seats[index]!;
    const id = `seat-${index}-who`;
    const whoSelect = h(
      "select",
      { id, "data-testid": `seat-${index}-who` },
      h("option", { value: "me", selected: seat.plan.who === "me" }, "Me"),
      h("option", { value: "open", selected: seat.plan.who === "open" }, "Open seat (a person)"),
      plan.game.bots.map((bot) =>
        h("option", { value: `bot:${bot}`, selected: seat.plan.who === "bot" && seat.plan.bot === bot }, `Bot: ${bot}${bot === plan.game.default_bot ? " (default)" : ""}`),
      ),
    );
    whoSelect.onchange = () => {
      const value = whoSelect.value;
      const next: SeatPlan = value === "me" ? { who: "me" } : value === "open" ? { who: "open" } : { who: "bot", bot: value.slice(4) };
      if (next.who === "me") {
        for (const other of plan.seats) if (other.plan.who === "me") other.plan = { who: "open" };
      }
      seat.plan = next;
      this.drawSeats();
    };
    const choices = plan.game.seat_options
      .filter((option) => applies(option, plan.game, plan.options, plan.seats.length))
      .map((option) =>
        optionControl(option, seat.choices[option.name], `seat-${index}`, (value) => {
          seat.choices[option.name] = value;
        }),
      );
    return h(
      "li.seat-row",
      null,
      h("span.seat-glyph", { "aria-hidden": "true" }, seatGlyph(index)),
      h("div.field", null, h("label", { for: id }, `Seat ${index + 1}`), whoSelect),
      choices.length ? h("div.seat-choices", null, choices) : null,
    );
  }

  private refreshProblem(): void {
    const line = this.createArea.querySelector(".plan-problem");
    const submit = this.createArea.querySelector<HTMLButtonElement>("[data-testid=create-submit]");
    const problem = this.plan ? planProblem(this.plan) : "Choose a game.";
    if (line) line.textContent = problem ?? "";
    if (submit) submit.disabled = problem !== null;
  }

  private create(): void {
    const plan = this.plan;
    if (!plan || planProblem(plan) !== null) return;
    const request = buildCreateRoom(plan);
    this.problem.textContent = "";
    this.clearCreateFailure();
    this.app.session
      .request<RoomCreated>(request)
      .then((created) => {
        this.app.entered.add(created.room);
        if (created.code) this.app.rememberCode(created.room, created.code);
        navigate({ page: "room", room: created.room, code: created.code });
      })
      .catch((error) => this.createFailed(error));
  }
}

/** Flip Over Frog's icon: a frog's face, drawn (no emoji font needed), in the text's colour. */
function frogIcon(): SVGElement {
  return svg(
    "svg",
    { class: "frog-icon", viewBox: "0 0 24 20", width: 20, height: 17, "aria-hidden": "true", focusable: "false" },
    svg("ellipse", { cx: 12, cy: 12.5, rx: 10.5, ry: 7, fill: "currentColor" }),
    svg("circle", { cx: 6.5, cy: 5.5, r: 4, fill: "currentColor" }),
    svg("circle", { cx: 17.5, cy: 5.5, r: 4, fill: "currentColor" }),
    svg("circle", { cx: 6.5, cy: 5.5, r: 2.4, fill: "#fff" }),
    svg("circle", { cx: 17.5, cy: 5.5, r: 2.4, fill: "#fff" }),
    svg("circle", { cx: 7, cy: 5.8, r: 1.2, fill: "#0b0420" }),
    svg("circle", { cx: 17, cy: 5.8, r: 1.2, fill: "#0b0420" }),
    svg("path", { d: "M6.5 13.5 Q12 18 17.5 13.5", fill: "none", stroke: "#0b0420", "stroke-width": 1.6, "stroke-linecap": "round" }),
  );
}

/** The mark of a seat everywhere: its number in a circle (never a colour, and distinct from
 *  the games' colour symbols). */
export function seatGlyph(seat: number): string {
  return ["①", "②", "③", "④", "⑤", "⑥", "⑦", "⑧"][seat % 8]!;
}

function stateLabel(state: string): string {
  return state === "waiting" ? "Waiting" : state === "playing" ? "Playing" : "Finished";
}

export { label };
