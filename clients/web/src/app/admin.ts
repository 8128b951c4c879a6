/**
 * The admin page (`/admin`): the server's admin API (docs/operating.md "Admin API") in a page
 * for the operator. It loads apart from the players' app (src/main.ts imports it lazily, so it
 * never weighs on the players' first load) and opens no game connection.
 *
 * - A login form asks for the server's admin token; it is kept in sessionStorage only (gone
 *   when the tab closes), and "Log out" forgets it. A refused token is said in a sentence.
 * - Then, refreshed every 2 s: the rooms (filtered by game and state), the chosen room's
 *   seats (who is connected, in grace, played by a bot, to move) and connections, every
 *   connection, the bans and the nodes.
 * - Actions, each answered in a sentence beside it: close a room and kick a seat (with a
 *   reason the players are shown), mute or unmute someone in a room's chat, ban or unban an
 *   identity or an address, drain a node; closing and draining ask for a second click. A
 *   room's raw log can be downloaded; nothing else shows the API's JSON.
 *
 * Tables are redrawn in place; keyboard focus stays on the control it was on (by `data-key`).
 */

import "../styles/admin.css";

import {
  type AdminBan,
  type AdminConnection,
  AdminApi,
  type AdminNodes,
  AdminRefusal,
  type AdminRoom,
  type AdminRoomDetail,
  answered,
  type BanKind,
  type RoomState,
} from "./admin_api";
import { type Child, h, replace } from "./dom";

/** Where the token is kept: sessionStorage, never localStorage. */
export const TOKEN_KEY = "lumin.admin-token";
/** Milliseconds between refreshes. */
export const REFRESH_MS = 2000;
/** Milliseconds a "click again to confirm" button stays armed. */
const ARMED_MS = 5000;
/** Games offered in the filter before any room of theirs is seen. */
const KNOWN_GAMES = ["flip_over_frog", "flash8", "neon_hex", "neon_flip"];

export interface AdminOptions {
  fetcher?: typeof fetch;
  storage?: Pick<Storage, "getItem" | "setItem" | "removeItem">;
  location?: { href: string };
  /** Milliseconds between refreshes; 0 turns them off (tests call {@link AdminPage.refresh}). */
  interval?: number;
}

/** Seconds as an operator reads an age. */
export function age(seconds: number): string {
  if (seconds < 60) return `${Math.floor(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
}

function clock(at: number): string {
  return new Date(at * 1000).toLocaleString([], { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

function sessionStore(): AdminOptions["storage"] {
  try {
    return window.sessionStorage;
  } catch {
    const memory = new Map<string, string>();
    return { getItem: (k) => memory.get(k) ?? null, setItem: (k, v) => void memory.set(k, v), removeItem: (k) => void memory.delete(k) };
  }
}

/** A line that says how the last action went, where the operator looks. */
class AnswerLine {
  readonly element: HTMLElement;
  constructor(testid: string) {
    this.element = h("p.admin-answer", { role: "status", "aria-live": "polite", "data-testid": testid, hidden: true });
  }
  ok(sentence: string): void {
    this.set(sentence, "ok");
  }
  fail(error: unknown): void {
    this.set(error instanceof Error ? error.message : String(error), "error");
  }
  working(sentence: string): void {
    this.set(sentence, "working");
  }
  clear(): void {
    this.element.hidden = true;
    this.element.textContent = "";
  }
  private set(sentence: string, kind: string): void {
    this.element.dataset.kind = kind;
    this.element.textContent = sentence;
    this.element.hidden = false;
  }
}

/** Replace a container's children, keeping keyboard focus on the control with the same `data-key`. */
function redraw(container: HTMLElement, ...children: Child[]): void {
  const active = document.activeElement as HTMLElement | null;
  const key = active && container.contains(active) ? active.dataset.key : undefined;
  replace(container, ...children);
  if (key === undefined) return;
  for (const element of container.querySelectorAll<HTMLElement>("[data-key]")) {
    if (element.dataset.key === key) {
      element.focus();
      break;
    }
  }
}

function table(caption: string, heads: string[], rows: HTMLElement[], empty: string): HTMLElement {
  return h(
    "div.table-wrap",
    null,
    h(
      "table.admin-table",
      null,
      h("caption.visually-hidden", null, caption),
      h("thead", null, h("tr", null, heads.map((head) => h("th", { scope: "col" }, head)))),
      h("tbody", null, rows.length ? rows : h("tr.empty", null, h("td.muted", { colSpan: heads.length }, empty))),
    ),
  );
}

function labelled(id: string, label: string, control: HTMLElement): HTMLElement {
  return h("div.field", null, h("label", { for: id }, label), control);
}

function who(name: string | null, user: string | null): string {
  if (name && user) return `${name} (${user})`;
  return name ?? user ?? "—";
}

export class AdminPage {
  readonly element = h("main.page.admin-page", { "data-page": "admin" });
  api: AdminApi | null = null;
  private readonly storage: NonNullable<AdminOptions["storage"]>;
  private readonly location: { href: string };
  private timer: ReturnType<typeof setInterval> | null = null;
  private busy = false;
  private destroyed = false;

  // the dashboard's parts, built at login
  private readonly gameFilter = h("select#filter-game", { "data-testid": "filter-game" });
  private readonly stateFilter = h("select#filter-state", { "data-testid": "filter-state" });
  private readonly roomsBody = h("div.rooms-body");
  private readonly detail = h("section.panel.admin-detail", { "aria-labelledby": "detail-title", "data-testid": "room-detail" });
  private detailBody = h("div.detail-body");
  private readonly connectionsBody = h("div");
  private readonly bansBody = h("div");
  private readonly nodesBody = h("div");
  private readonly updated = h("span.admin-updated.muted", { "data-testid": "admin-updated", "aria-live": "off" });
  private readonly problem = new AnswerLine("admin-problem");
  private readonly roomAnswer = new AnswerLine("room-answer");
  private readonly banAnswer = new AnswerLine("ban-answer");
  private readonly nodeAnswer = new AnswerLine("node-answer");
  private readonly banKind = h("select#ban-kind", { "data-testid": "ban-kind" }, h("option", { value: "identity" }, "identity (user id)"), h("option", { value: "address" }, "address or network"));
  private readonly banValue = h("input#ban-value", { type: "text", autocomplete: "off", spellcheck: false, placeholder: "u55bfd2a23dcd9f78 or 203.0.113.0/24", "data-testid": "ban-value" });
  private readonly banReason = h("input#ban-reason", { type: "text", autocomplete: "off", maxLength: 300, placeholder: "cheating", "data-testid": "ban-reason" });

  private selected: string | null = null;
  /** The selected room is no longer live (closed, gone): it is not asked for again. */
  private selectedGone = false;
  private reason: HTMLInputElement | null = null;
  private closeButton: HTMLButtonElement | null = null;
  private games = new Set(KNOWN_GAMES);
  private armed: { key: string; until: number } | null = null;

  constructor(
    root: HTMLElement,
    private readonly options: AdminOptions = {},
  ) {
    this.storage = options.storage ?? sessionStore()!;
    this.location = options.location ?? window.location;
    document.title = "Lumin admin";
    root.replaceChildren(
      h("header.app-header.admin-header", null, h("a.logo", { href: "./", "aria-label": "Lumin lobby" }, "LUMIN"), h("span.admin-badge", null, "admin")),
      h("div.page-host.admin-host", null, this.element),
    );
    const token = this.storage.getItem(TOKEN_KEY);
    if (token) void this.login(token, true);
    else this.showLogin();
  }

  destroy(): void {
    this.destroyed = true;
    this.stop();
  }

  // --- logging in and out ---------------------------------------------------------------------

  showLogin(sentence: string | null = null): void {
    this.stop();
    this.api = null;
    const input = h("input#admin-token", { type: "password", autocomplete: "off", spellcheck: false, required: true, minLength: 16, "data-testid": "admin-token" });
    const error = h("p.admin-answer", { role: "alert", "data-testid": "login-error", "data-kind": "error", hidden: sentence === null }, sentence ?? "");
    const submit = h("button.primary", { type: "submit", "data-testid": "admin-login" }, "Log in");
    const form = h(
      "form.panel.admin-login",
      {
        "aria-labelledby": "login-title",
        onsubmit: (event: Event) => {
          event.preventDefault();
          const token = input.value.trim();
          if (!token) return;
          submit.disabled = true;
          void this.login(token, false, error).finally(() => (submit.disabled = false));
        },
      },
      h("h1#login-title", null, "Lumin admin"),
      h("p.muted", null, "Give the server's admin token (the --admin-token it was started with). It is kept in this tab only, until you log out or close the tab."),
      labelled("admin-token", "Admin token", input),
      error,
      h("div.row", null, submit),
    );
    replace(this.element, form);
    input.focus();
  }

  /** Try a token (`GET nodes`); on success keep it and show the dashboard. */
  async login(token: string, remembered: boolean, error?: HTMLElement): Promise<boolean> {
    const api = AdminApi.at(this.location, token, this.options.fetcher);
    try {
      const nodes = await api.nodes();
      if (this.destroyed) return false;
      this.storage.setItem(TOKEN_KEY, token);
      this.api = api;
      this.showDashboard();
      this.drawNodes(nodes);
      void this.refresh();
      const every = this.options.interval ?? REFRESH_MS;
      if (every > 0) this.timer = setInterval(() => void this.refresh(), every);
      return true;
    } catch (failure) {
      if (remembered) this.storage.removeItem(TOKEN_KEY);
      const sentence = failure instanceof Error ? failure.message : String(failure);
      if (error) {
        error.textContent = sentence;
        error.hidden = false;
      } else this.showLogin(sentence);
      return false;
    }
  }

  logout(sentence: string | null = null): void {
    this.storage.removeItem(TOKEN_KEY);
    this.selected = null;
    this.showLogin(sentence);
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  // --- the dashboard --------------------------------------------------------------------------

  private showDashboard(): void {
    this.stateFilter.replaceChildren(
      h("option", { value: "" }, "every state"),
      ...(["waiting", "playing", "finished"] as RoomState[]).map((state) => h("option", { value: state }, state)),
    );
    this.drawGameFilter();
    this.gameFilter.onchange = () => void this.refresh();
    this.stateFilter.onchange = () => void this.refresh();
    this.drawDetail();
    const banForm = h(
      "form.admin-ban-form",
      {
        "aria-label": "Ban or unban",
        onsubmit: (event: Event) => {
          event.preventDefault();
          this.ban(true);
        },
      },
      labelled("ban-kind", "Ban", this.banKind),
      labelled("ban-value", "Identity or address", this.banValue),
      labelled("ban-reason", "Reason (shown to them)", this.banReason),
      h(
        "div.row",
        null,
        h("button.primary", { type: "submit", "data-testid": "ban-submit" }, "Ban"),
        h("button", { type: "button", "data-testid": "unban-submit", onclick: () => this.ban(false) }, "Unban"),
      ),
    );
    replace(
      this.element,
      h(
        "div.admin-bar",
        null,
        h("h1", null, "Lumin admin"),
        this.updated,
        h("button.small", { type: "button", "data-testid": "admin-logout", onclick: () => this.logout() }, "Log out"),
      ),
      this.problem.element,
      h(
        "div.admin-grid",
        null,
        h(
          "section.panel.admin-rooms",
          { "aria-labelledby": "rooms-title" },
          h("h2#rooms-title", null, "Rooms"),
          h("form.admin-filters", { "aria-label": "Filter rooms", onsubmit: (e: Event) => e.preventDefault() }, labelled("filter-game", "Game", this.gameFilter), labelled("filter-state", "State", this.stateFilter)),
          this.roomsBody,
        ),
        this.detail,
        h("section.panel.admin-connections", { "aria-labelledby": "connections-title" }, h("h2#connections-title", null, "Connections"), this.connectionsBody),
        h("section.panel.admin-bans", { "aria-labelledby": "bans-title" }, h("h2#bans-title", null, "Bans"), banForm, this.banAnswer.element, this.bansBody),
        h("section.panel.admin-nodes", { "aria-labelledby": "nodes-title" }, h("h2#nodes-title", null, "Nodes"), this.nodeAnswer.element, this.nodesBody),
      ),
    );
  }

  /** Ask for everything shown, once (every {@link REFRESH_MS} while logged in). */
  async refresh(): Promise<void> {
    const api = this.api;
    if (api === null || this.busy || this.destroyed) return;
    this.busy = true;
    try {
      const filter = { game: this.gameFilter.value || null, state: (this.stateFilter.value || null) as RoomState | null };
      const selected = this.selected;
      const [rooms, connections, bans, nodes, room] = await Promise.all([
        api.rooms(filter),
        api.connections(),
        api.bans(),
        api.nodes(),
        selected && !this.selectedGone ? api.room(selected).catch((error: unknown) => error as AdminRefusal) : Promise.resolve(null),
      ]);
      if (this.api !== api || this.destroyed) return;
      this.drawRooms(rooms.rooms, rooms.unreachable);
      this.drawConnections(connections.connections);
      this.drawBans(bans.bans);
      this.drawNodes(nodes);
      if (selected !== null && selected === this.selected) this.roomArrived(room);
      this.problem.clear();
      this.updated.textContent = `updated ${new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })}`;
    } catch (error) {
      if (this.api !== api) return;
      if (error instanceof AdminRefusal && error.status === 401) this.logout(error.message);
      else this.problem.fail(`Could not refresh: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.busy = false;
    }
  }

  // --- rooms ----------------------------------------------------------------------------------

  private drawGameFilter(): void {
    const chosen = this.gameFilter.value;
    const games = [...this.games].sort();
    const current = [...this.gameFilter.options].map((option) => option.value).join(",");
    if (current === ["", ...games].join(",")) return;
    this.gameFilter.replaceChildren(h("option", { value: "" }, "every game"), ...games.map((game) => h("option", { value: game }, game)));
    this.gameFilter.value = chosen;
  }

  private drawRooms(rooms: AdminRoom[], unreachable?: string[]): void {
    for (const room of rooms) this.games.add(room.game);
    this.drawGameFilter();
    const rows = rooms.map((room) =>
      h(
        `tr${room.id === this.selected ? ".selected" : ""}`,
        { "data-room": room.id, "aria-current": room.id === this.selected ? "true" : null },
        h(
          "th",
          { scope: "row" },
          h("button.small.link", { type: "button", "data-key": `room:${room.id}`, "data-testid": `open-${room.id}`, "aria-label": `Show room ${room.id}`, onclick: () => this.select(room.id) }, room.id),
        ),
        h("td", null, room.game),
        h("td", null, h(`span.state.state-${room.state}`, null, room.state)),
        h("td.num", null, room.players),
        h("td.num", null, room.spectators),
        h("td.num", null, room.bots),
        h("td.num", null, age(room.age_seconds)),
        h("td", null, room.node),
      ),
    );
    redraw(
      this.roomsBody,
      table("Rooms in memory, oldest first", ["Room", "Game", "State", "Players", "Watching", "Bots", "Age", "Node"], rows, "No rooms match."),
      unreachable?.length ? h("p.muted", null, `Not answering: ${unreachable.join(", ")}.`) : null,
    );
  }

  /** Show one room's detail (asked at once, then with every refresh). */
  select(id: string): void {
    this.selectedGone = false;
    if (this.selected !== id) {
      this.selected = id;
        this.roomAnswer.clear();
      this.drawDetail();
    }
    for (const row of this.roomsBody.querySelectorAll<HTMLElement>("tr[data-room]")) {
      const on = row.dataset.room === id;
      row.classList.toggle("selected", on);
      if (on) row.setAttribute("aria-current", "true");
      else row.removeAttribute("aria-current");
    }
    const api = this.api;
    if (!api) return;
    api.room(id).then(
      (room) => id === this.selected && this.roomArrived(room),
      (error: unknown) => id === this.selected && this.roomArrived(error as AdminRefusal),
    );
  }

  private roomArrived(room: AdminRoomDetail | AdminRefusal | Error | null): void {
    if (room instanceof Error) {
      if (room instanceof AdminRefusal && room.status === 401) return this.logout(room.message);
      if (room instanceof AdminRefusal && (room.status === 404 || room.status === 409)) this.selectedGone = true;
        redraw(this.detailBody, h("p.detail-gone", { "data-testid": "room-gone" }, room.message));
      if (this.closeButton) this.closeButton.disabled = true;
      return;
    }
    if (room === null) return;
    if (this.closeButton) this.closeButton.disabled = false;
    this.drawRoom(room);
  }

  /** The detail panel's frame for the selected room: title, reason, close and log (kept while
   *  the room stays selected, so what the operator types stays); the body is redrawn. */
  private drawDetail(): void {
    const id = this.selected;
    if (id === null) {
      this.reason = null;
      this.closeButton = null;
      replace(this.detail, h("h2#detail-title", null, "Room"), h("p.muted", null, "Choose a room in the table to see its seats and act on it."));
      return;
    }
    this.reason = h("input#room-reason", { type: "text", maxLength: 300, autocomplete: "off", placeholder: "server maintenance", "data-testid": "room-reason" });
    this.closeButton = this.armedButton(`close:${id}`, "Close the room", "Click again to close it", () => this.closeRoom(id), "button.danger", "close-room");
    this.detailBody = h("div.detail-body", null, h("p.muted", null, "Loading…"));
    replace(
      this.detail,
      h("div.detail-head", null, h("h2#detail-title", null, "Room ", h("span.mono.id", null, id)), h("button.small.ghost", { type: "button", "aria-label": "Close this panel", onclick: () => this.deselect() }, "✕")),
      labelled("room-reason", "Reason (the players are shown it)", this.reason),
      h(
        "div.row",
        null,
        this.closeButton,
        h("button", { type: "button", "data-testid": "download-log", onclick: () => this.downloadLog(id) }, "Download raw log"),
      ),
      this.roomAnswer.element,
      this.detailBody,
    );
  }

  private deselect(): void {
    this.selected = null;
    this.drawDetail();
    for (const row of this.roomsBody.querySelectorAll("tr.selected")) row.classList.remove("selected");
  }

  private drawRoom(room: AdminRoomDetail): void {
    const toMove = new Set(room.to_move);
    const seatNames = new Map(room.seats.map((seat) => [seat.seat, seat.name ?? `seat ${seat.seat}`]));
    const facts: [string, Child][] = [
      ["Game", room.game],
      ["State", `${room.state} (${room.status})`],
      ["Move", `seq ${room.seq}${room.to_move.length ? ` · to move: ${room.to_move.map((n) => seatNames.get(n)).join(", ")}` : ""}`],
      ["Private", room.private ? "yes" : "no"],
      ["Created", clock(room.created)],
      ["Node", room.node],
    ];
    if (room.turn_clock) facts.push(["Turn clock", `${room.turn_clock} s`]);
    const options = Object.entries(room.options);
    if (options.length) facts.push(["Options", options.map(([key, value]) => `${key.replace(/_/g, " ")}: ${value}`).join(" · ")]);
    const seats = room.seats.map((seat) => {
      const state: string[] = [];
      if (seat.kind === "human") state.push(seat.connected ? "connected" : "away");
      if (seat.in_grace) state.push("in grace");
      if (seat.bot_playing) state.push("bot playing");
      if (seat.kind === "human" && room.state === "waiting") state.push(seat.ready ? "ready" : "not ready");
      return h(
        `tr${toMove.has(seat.seat) ? ".to-move" : ""}`,
        { "data-seat": seat.seat },
        h("th.num", { scope: "row" }, seat.seat),
        h("td", null, seat.kind === "bot" ? `${seat.name ?? "bot"} (bot: ${seat.bot})` : seat.kind === "open" ? "open" : who(seat.name, seat.user), seat.user && seat.user === room.host ? h("span.tag.host", null, "host") : null),
        h("td", null, state.join(", ") || "—"),
        h("td", null, toMove.has(seat.seat) ? h("strong", null, "▶ to move") : ""),
        h(
          "td",
          null,
          seat.kind === "human" && (room.state === "waiting" || room.state === "playing")
            ? h("button.small", { type: "button", "data-key": `kick:${room.id}:${seat.seat}`, "data-testid": `kick-${seat.seat}`, onclick: () => this.kick(room.id, seat.seat) }, `Kick seat ${seat.seat}`)
            : null,
        ),
      );
    });
    const connections = room.connections.map((peer) =>
      h("tr", null, h("td.mono", null, peer.connection), h("td", null, who(peer.name, peer.user)), h("td", null, peer.seat === null ? "watching" : `seat ${peer.seat}`)),
    );
    const people = new Map<string, string>();
    for (const seat of room.seats) if (seat.user) people.set(seat.user, who(seat.name, seat.user));
    for (const peer of room.connections) if (peer.user && !people.has(peer.user)) people.set(peer.user, who(peer.name, peer.user));
    const muteUser = h("select#mute-user", { "data-testid": "mute-user", "data-key": "mute-user" }, [...people].map(([user, label]) => h("option", { value: user }, label)));
    const previous = this.detailBody.querySelector<HTMLSelectElement>("#mute-user")?.value;
    if (previous && people.has(previous)) muteUser.value = previous;
    redraw(
      this.detailBody,
      h("dl.facts", null, facts.map(([term, value]) => [h("dt", null, term), h("dd", null, value)])),
      h("h3", null, "Seats"),
      table(`Seats of room ${room.id}`, ["Seat", "Who", "Connection", "Turn", "Act"], seats, "No seats."),
      h("h3", null, "Chat"),
      h(
        "form.admin-mute",
        { "aria-label": "Mute in this room's chat", onsubmit: (e: Event) => e.preventDefault() },
        people.size
          ? [
              labelled("mute-user", "Person", muteUser),
              h(
                "div.row",
                null,
                h("button.small", { type: "button", "data-key": "mute", "data-testid": "mute", onclick: () => this.mute(room.id, muteUser.value, true) }, "Mute in chat"),
                h("button.small", { type: "button", "data-key": "unmute", "data-testid": "unmute", onclick: () => this.mute(room.id, muteUser.value, false) }, "Let chat again"),
              ),
            ]
          : h("p.muted", null, "Nobody is in the room."),
      ),
      h(
        "p",
        { "data-testid": "muted-list" },
        room.muted.length ? ["Muted: ", room.muted.map((user) => people.get(user) ?? user).join(", ")] : h("span.muted", null, "Nobody is muted here."),
      ),
      h("h3", null, "Connections in the room"),
      table(`Connections in room ${room.id}`, ["Connection", "Who", "As"], connections, "No connections."),
    );
  }

  private closeRoom(id: string): void {
    const api = this.api;
    if (!api) return;
    const reason = this.reason?.value ?? "";
    this.roomAnswer.working(`Closing room ${id}…`);
    api.close(id, reason).then(
      (answer) => {
        this.roomAnswer.ok(answered.close(answer));
        if (this.selected === id) this.roomArrived(new AdminRefusal("not_live", `Room ${id} is closed; its log can still be downloaded.`, 409));
        void this.refresh();
      },
      (error) => this.roomAnswer.fail(error),
    );
  }

  private kick(id: string, seat: number): void {
    const api = this.api;
    if (!api) return;
    this.roomAnswer.working(`Removing the person at seat ${seat}…`);
    api.kick(id, seat, this.reason?.value ?? "").then(
      (answer) => {
        this.roomAnswer.ok(answered.kick(answer));
        this.select(id);
      },
      (error) => this.roomAnswer.fail(error),
    );
  }

  private mute(id: string, user: string, muted: boolean): void {
    const api = this.api;
    if (!api || !user) return;
    api.mute(id, user, muted).then(
      (answer) => {
        this.roomAnswer.ok(answered.mute(answer));
        this.select(id);
      },
      (error) => this.roomAnswer.fail(error),
    );
  }

  private downloadLog(id: string): void {
    const api = this.api;
    if (!api) return;
    api.log(id).then(
      (log) => {
        const blob = new Blob([JSON.stringify(log, null, 2)], { type: "application/json" });
        const name = `lumin-room-${id}-log.json`;
        if (typeof URL.createObjectURL !== "function") return this.roomAnswer.ok(`The log of room ${id} is ready, but this browser cannot save it.`);
        const url = URL.createObjectURL(blob);
        const link = h("a", { href: url, download: name, hidden: true });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
        this.roomAnswer.ok(`Saved the log of room ${id} as ${name}.`);
      },
      (error) => this.roomAnswer.fail(error),
    );
  }

  // --- connections and bans -------------------------------------------------------------------

  private drawConnections(connections: AdminConnection[]): void {
    const rows = connections.map((peer) =>
      h(
        "tr",
        { "data-connection": peer.id },
        h("td.mono", null, peer.id),
        h("td", null, who(peer.name, peer.user)),
        h("td.mono", null, peer.address),
        h("td.num", null, peer.version ?? "—"),
        h("td.num", null, age(peer.age_seconds)),
        h("td", null, peer.rooms.map((room) => `${room.room}${room.seat === null ? " (watching)" : ` (seat ${room.seat})`}`).join(", ") || "—"),
        h("td", null, peer.node),
        h(
          "td",
          null,
          h(
            "div.row",
            null,
            peer.user ? h("button.small", { type: "button", "data-key": `ban-user:${peer.id}`, onclick: () => this.prefillBan("identity", peer.user!) }, "Ban identity…") : null,
            h("button.small", { type: "button", "data-key": `ban-address:${peer.id}`, onclick: () => this.prefillBan("address", peer.address) }, "Ban address…"),
          ),
        ),
      ),
    );
    redraw(this.connectionsBody, table("Open connections", ["Id", "Who", "Address", "Version", "Age", "Rooms", "Node", "Ban"], rows, "Nobody is connected."));
  }

  private prefillBan(kind: BanKind, value: string): void {
    this.banKind.value = kind;
    this.banValue.value = value;
    this.banAnswer.ok(`Give a reason and press Ban to ban ${kind} ${value}.`);
    this.banReason.focus();
  }

  private drawBans(bans: AdminBan[]): void {
    const rows = bans.map((ban) =>
      h(
        "tr",
        null,
        h("td", null, ban.kind),
        h("td.mono", null, ban.value),
        h("td", null, ban.reason || h("span.muted", null, "no reason given")),
        h("td", null, clock(ban.at)),
        h("td", null, h("button.small", { type: "button", "data-key": `unban:${ban.kind}:${ban.value}`, onclick: () => this.unban(ban.kind, ban.value) }, "Unban")),
      ),
    );
    redraw(this.bansBody, table("Bans in force", ["Kind", "Value", "Reason", "Since", ""], rows, "Nobody is banned."));
  }

  private ban(banning: boolean): void {
    const kind = this.banKind.value as BanKind;
    const value = this.banValue.value.trim();
    if (!value) {
      this.banAnswer.fail(new Error(`Name the ${kind === "identity" ? "identity (a user id such as u55bfd2a23dcd9f78)" : "address or network (such as 203.0.113.7 or 203.0.113.0/24)"} first.`));
      this.banValue.focus();
      return;
    }
    if (banning) this.banAction(() => this.api!.ban(kind, value, this.banReason.value).then(answered.ban));
    else this.unban(kind, value);
  }

  private unban(kind: BanKind, value: string): void {
    this.banAction(() => this.api!.unban(kind, value).then(answered.unban));
  }

  private banAction(act: () => Promise<string>): void {
    if (!this.api) return;
    act().then(
      (sentence) => {
        this.banAnswer.ok(sentence);
        void this.refresh();
      },
      (error) => this.banAnswer.fail(error),
    );
  }

  // --- nodes ----------------------------------------------------------------------------------

  private drawNodes(nodes: AdminNodes): void {
    const rows = nodes.nodes.map((node) =>
      h(
        "tr",
        null,
        h("th", { scope: "row" }, node.node, node.node === nodes.node ? h("span.tag", null, "this one") : null, node.node === nodes.node && nodes.draining ? h("span.tag.draining", null, "draining") : null),
        h("td.mono", null, node.url),
        h("td.num", null, node.rooms),
        h("td.num", null, node.connections),
        h("td", null, node.node === nodes.node && nodes.draining ? null : this.armedButton(`drain:${node.node}`, `Drain ${node.node}`, `Click again to drain ${node.node}`, () => this.drain(node.node), "button.small")),
      ),
    );
    redraw(this.nodesBody, table("Nodes", ["Node", "URL", "Rooms", "Connections", ""], rows, "No nodes."));
  }

  private drain(node: string): void {
    this.api?.drain(node).then(
      (answer) => {
        this.nodeAnswer.ok(answered.drain(answer));
        void this.refresh();
      },
      (error) => this.nodeAnswer.fail(error),
    );
  }

  /** A button that acts on its second click within 5 s (the first one says what it will do). */
  private armedButton(key: string, label: string, confirm: string, act: () => void, tag: string, testid?: string): HTMLButtonElement {
    const isArmed = () => this.armed !== null && this.armed.key === key && this.armed.until > Date.now();
    const button = h(tag, { type: "button", "data-key": key, "data-testid": testid ?? null }) as HTMLButtonElement;
    const draw = () => {
      button.textContent = isArmed() ? confirm : label;
      button.dataset.armed = String(isArmed());
    };
    button.onclick = () => {
      if (isArmed()) {
        this.armed = null;
        draw();
        act();
        return;
      }
      this.armed = { key, until: Date.now() + ARMED_MS };
      draw();
      setTimeout(draw, ARMED_MS + 50);
    };
    draw();
    return button;
  }
}

/** The admin page's entry (src/main.ts, for `/admin`). */
export function startAdmin(root: HTMLElement, options: AdminOptions = {}): AdminPage {
  return new AdminPage(root, options);
}
