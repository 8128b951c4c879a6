/**
 * The app: the header (name, navigation, sound and music toggles), the connection corner
 * (status and round-trip time), and the page the location hash names. It owns the one
 * {@link Session} of the page; pages come and go with the route.
 */

import { Session, type SessionStatus } from "../net/session";
import type { ServerError } from "../protocol/errors";
import { AccountMenu } from "./account";
import { h, replace } from "./dom";
import { HowToPage } from "./howto";
import { LeaderboardPage, PlayerPage } from "./leaderboard";
import { LobbyPage } from "./lobby";
import type { Page } from "./page";
import { ReplayPage } from "./replay";
import { RoomPage } from "./room";
import { navigate, parseRoute, type Route } from "./router";
import { bannedSentence } from "./sentences";
import { SoundBoard } from "./sound";
import { AppState } from "./state";
import { storage } from "./storage";

/** The websocket address: `?ws=URL` overrides it (development), else this page's host `/ws`. */
export function socketUrl(): string {
  const override = new URLSearchParams(window.location.search).get("ws");
  if (override) return override;
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${window.location.host}/ws`;
}

function defaultName(): string {
  return `Player-${Math.floor(1000 + Math.random() * 9000)}`;
}

const STATUS_TEXT: Record<SessionStatus, string> = {
  connecting: "connecting…",
  open: "online",
  reconnecting: "reconnecting…",
  closed: "offline",
};

export class App {
  readonly state: AppState;
  private page: Page | null = null;
  private readonly main = h("div.page-host");
  private readonly corner = h("div.net-corner", { role: "status", "aria-live": "polite", "data-testid": "net" });
  private readonly nameInput = h("input#player-name", { type: "text", maxLength: 40, autocomplete: "nickname", "aria-label": "Your name", "data-testid": "player-name" });

  constructor(root: HTMLElement) {
    const name = storage.get("name") ?? defaultName();
    storage.set("name", name);
    const session = new Session({
      url: socketUrl(),
      name,
      token: storage.get("token"),
      onToken: (token) => storage.set("token", token),
    });
    this.state = new AppState(session, new SoundBoard());
    this.nameInput.value = name;
    root.replaceChildren(this.header(), this.main, this.corner);
    session.on("status", () => this.drawCorner());
    session.on("clock", () => this.drawCorner());
    session.on("welcome", (welcome) => {
      this.nameInput.value = welcome.name;
      this.drawCorner();
    });
    session.on("ended", (reason) => this.showEnded(reason));
    // Quick play found a table: go there from whatever page the player is on.
    session.on("msg:matched", (matched) => navigate({ page: "room", room: matched.room, code: null }));
    this.drawCorner();
    window.addEventListener("hashchange", () => this.route());
    window.addEventListener("pagehide", () => session.close());
    // A page restored from the back-forward cache has a closed session: start afresh.
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) window.location.reload();
    });
    this.route();
    // Test and debugging hook: the session and state, read-only by convention.
    (window as unknown as { __lumin: unknown }).__lumin = { session, state: this.state };
  }

  private header(): HTMLElement {
    const sound = this.state.sound;
    const effects = h("button.toggle", { type: "button", "data-testid": "sound-toggle" });
    const music = h("button.toggle", { type: "button", "data-testid": "music-toggle" });
    const drawToggles = () => {
      effects.textContent = sound.effectsOn ? "♪ Sound on" : "♪ Sound off";
      effects.setAttribute("aria-pressed", String(sound.effectsOn));
      effects.title = sound.effectsOn ? "Mute sound effects" : "Turn sound effects on";
      music.textContent = sound.musicOn ? "♫ Music on" : "♫ Music off";
      music.setAttribute("aria-pressed", String(sound.musicOn));
      music.title = sound.musicOn ? "Stop the music" : "Play the music";
    };
    effects.onclick = () => sound.setEffects(!sound.effectsOn);
    music.onclick = () => sound.setMusic(!sound.musicOn);
    sound.onChange(drawToggles);
    drawToggles();
    const nameForm = h(
      "form.name-form",
      {
        onsubmit: (event: Event) => {
          event.preventDefault();
          this.rename();
        },
      },
      h("label", { for: "player-name" }, "Name"),
      this.nameInput,
      h("button.small", { type: "submit" }, "Save"),
    );
    this.nameInput.onchange = () => this.rename();
    // On a narrow screen the name and the toggles fold behind one button (CSS shows them
    // inline on wider ones), so the header stays one slim row above the board.
    // On a phone the leaderboards link waits behind ☰ too (the slim row has no room for it).
    const boards = h("a.phone-only.menu-link", { href: "#/leaderboard/flip_over_frog" }, "Leaderboards");
    const account = new AccountMenu(this.state, (name) => (this.nameInput.value = name));
    const settings = h("div.header-settings", { id: "header-settings" }, nameForm, h("div.toggles", null, effects, music), account.element, boards);
    const menu = h("button.small.ghost.menu-toggle", { type: "button", "aria-expanded": "false", "aria-controls": "header-settings", "data-testid": "menu-toggle", "aria-label": "Name, sound and account", title: "Name, sound and account" }, "☰");
    const header = h(
      "header.app-header",
      null,
      h("a.skip-link", { href: "#/", "data-testid": "skip-link", onclick: (event: Event) => this.skipToContent(event) }, "Skip to the page"),
      h("a.logo", { href: "#/", "aria-label": "Lumin lobby" }, "LUMIN"),
      h("nav.main-nav", { "aria-label": "Main" }, h("a", { href: "#/" }, "Lobby"), h("a.wide-only", { href: "#/leaderboard/flip_over_frog", "data-testid": "nav-leaderboard" }, "Leaderboards"), h("a", { href: "#/howto/flip_over_frog" }, "How to play")),
      menu,
      settings,
    );
    menu.onclick = () => {
      const open = !header.classList.contains("menu-open");
      header.classList.toggle("menu-open", open);
      menu.setAttribute("aria-expanded", String(open));
    };
    return header;
  }

  /** The skip link: focus the page's first control worth starting from (the board during a
   *  game, the create form in the lobby), else the page itself. */
  private skipToContent(event: Event): void {
    event.preventDefault();
    const page = this.main.querySelector<HTMLElement>("[data-page]");
    const target = page?.querySelector<HTMLElement>("[data-start-here]") ?? page;
    if (!target) return;
    if (!target.hasAttribute("tabindex") && !target.matches("button, a[href], input, select, textarea")) target.tabIndex = -1;
    target.focus();
  }

  private rename(): void {
    const name = this.nameInput.value.trim().slice(0, 40);
    if (!name || name === this.state.session.name) {
      this.nameInput.value = this.state.session.name;
      return;
    }
    storage.set("name", name);
    this.state.session.rename(name).then(
      () => this.nameInput.setCustomValidity(""),
      (error: unknown) => {
        // Said at the name box, where the player typed it.
        this.nameInput.setCustomValidity(error instanceof Error ? error.message : String(error));
        this.nameInput.reportValidity();
      },
    );
  }

  private drawCorner(): void {
    const session = this.state.session;
    const rtt = session.rtt;
    this.corner.dataset.status = session.status;
    replace(
      this.corner,
      h(`span.net-dot.${session.status}`, { "aria-hidden": "true" }),
      h("span", null, STATUS_TEXT[session.status]),
      session.status === "open" && rtt !== null ? h("span.rtt", { "data-testid": "rtt", title: "Round-trip time to the server" }, `${Math.round(rtt * 1000)} ms`) : null,
    );
  }

  /** The server refused this page for good (banned, or no common protocol version): say why
   *  where the page was, instead of reconnecting forever. */
  private showEnded(reason: ServerError): void {
    this.page?.destroy();
    this.page = null;
    const banned = reason.code === "banned";
    replace(
      this.main,
      h(
        "main.page.ended",
        { "data-page": "ended" },
        h(
          "section.panel.ended-panel",
          { role: "alert", "data-testid": "ended" },
          h("h2", null, banned ? "You cannot play on this server" : "This page cannot talk to the server"),
          h("p.ended-sentence", { "data-testid": "ended-sentence" }, banned ? bannedSentence(reason.message) : reason.message),
          h("p.muted", null, banned ? "Lumin stopped reconnecting. If you think this is a mistake, ask the server's operator." : "Lumin stopped reconnecting. Reload the page to try again."),
        ),
      ),
    );
  }

  private route(): void {
    if (this.state.session.ended) {
      this.showEnded(this.state.session.ended);
      return;
    }
    const route: Route = parseRoute(window.location.hash);
    this.page?.destroy();
    this.page = null;
    switch (route.page) {
      case "lobby":
        this.page = new LobbyPage(this.state);
        break;
      case "room":
        this.page = new RoomPage(this.state, route.room, route.code);
        break;
      case "replay":
        this.page = new ReplayPage(this.state, route.room, route.viewer);
        break;
      case "howto":
        this.page = new HowToPage(route.game);
        break;
      case "leaderboard":
        this.page = new LeaderboardPage(this.state, route.game, route.pool);
        break;
      case "player":
        this.page = new PlayerPage(this.state, route.user);
        break;
    }
    replace(this.main, this.page.element);
    document.body.dataset.route = route.page;
    window.scrollTo(0, 0);
  }
}
