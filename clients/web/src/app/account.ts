/**
 * The account corner of the ☰ menu (protocol version 5): a guest may claim the name they play
 * under with a password (`claim_name`) or sign in to an account (`sign_in`); a signed-in
 * player sees their name, a link to their games, their sessions (every device signed in,
 * each signed out on its own or all but this one) and Sign out (`revoke_session` of this
 * session, then a fresh guest). The account's session token replaces the guest token in
 * storage (src/net/session.ts); the account itself (`lumin.account`: user, name, session) is
 * remembered so a reload still says who is signed in, and forgotten when a `welcome` names
 * another identity (the token was revoked elsewhere).
 */

import { ServerError } from "../protocol/errors";
import type { Account, SessionInfo, Sessions } from "../protocol/messages";
import { h, replace } from "./dom";
import { QUICK_PLAY_VERSION } from "./quickplay";
import { agoWords } from "./results";
import { routeHash } from "./router";
import type { AppState } from "./state";
import { storage } from "./storage";

/** What the page remembers of the account it is signed in to. */
export interface KnownAccount {
  user: string;
  name: string;
  session: string;
}

export function knownAccount(): KnownAccount | null {
  return storage.json<KnownAccount | null>("account", null);
}

export class AccountMenu {
  readonly element = h("details.account-menu", { "data-testid": "account" }) as HTMLDetailsElement;
  private readonly summary = h("summary", { "data-testid": "account-toggle" });
  private readonly body = h("div.account-panel");
  private mode: "claim_name" | "sign_in" = "claim_name";

  constructor(
    private readonly app: AppState,
    private readonly onName: (name: string) => void,
  ) {
    this.element.append(this.summary, this.body);
    app.session.on("welcome", (welcome) => {
      const account = knownAccount();
      if (account && account.user !== welcome.user) storage.set("account", null);
      this.draw();
    });
    this.draw();
  }

  private draw(): void {
    const version = this.app.session.conn.version;
    this.element.hidden = version !== null && version < QUICK_PLAY_VERSION;
    const account = knownAccount();
    if (account) {
      this.summary.textContent = `✓ ${account.name}`;
      replace(
        this.body,
        h("p", { "data-testid": "account-state" }, `Signed in as ${account.name}.`),
        h("a.menu-link", { href: routeHash({ page: "player", user: account.user }), "data-testid": "my-games" }, "Your games"),
        this.sessionsPanel(),
        h("button.small", { type: "button", "data-testid": "sign-out", onclick: () => void this.signOut(account) }, "Sign out"),
      );
      return;
    }
    this.summary.textContent = "Sign in";
    const claiming = this.mode === "claim_name";
    const name = h("input#account-name", { type: "text", maxLength: 40, autocomplete: "username", required: true, "data-testid": "account-name", value: claiming ? this.app.session.name : "" });
    const password = h("input#account-password", { type: "password", autocomplete: claiming ? "new-password" : "current-password", required: true, minLength: claiming ? 8 : 1, "data-testid": "account-password" });
    const problem = h("p.error-line", { role: "alert", "data-testid": "account-problem" });
    const form = h(
      "form.account-form",
      {
        onsubmit: (event: Event) => {
          event.preventDefault();
          void this.submit(name.value.trim(), password.value, problem);
        },
      },
      h("p.muted", null, claiming ? "You play as a guest. Keep your name, ratings and games with a password:" : "Sign in to your account:"),
      h("div.field", null, h("label", { for: "account-name" }, "Name"), name),
      h("div.field", null, h("label", { for: "account-password" }, "Password"), password),
      h("button.small.primary", { type: "submit", "data-testid": "account-submit" }, claiming ? "Claim this name" : "Sign in"),
      h(
        "button.small.ghost",
        {
          type: "button",
          "data-testid": "account-switch",
          onclick: () => {
            this.mode = claiming ? "sign_in" : "claim_name";
            this.draw();
          },
        },
        claiming ? "I have an account" : "Claim a name instead",
      ),
      problem,
    );
    replace(this.body, form);
  }

  /** "Your sessions": every device signed in to the account (`list_sessions`), each but this
   *  one with "Sign out that device", and "Sign out everywhere else" (`revoke_session`). */
  private sessionsPanel(): HTMLElement {
    const list = h("div.session-list", { "aria-live": "polite" });
    const panel = h("details.sessions", { "data-testid": "sessions" }, h("summary", { "data-testid": "sessions-toggle" }, "Your sessions"), list) as HTMLDetailsElement;
    const load = (): void => {
      replace(list, h("p.muted", null, "Loading your sessions…"));
      this.app.session
        .request<Sessions>({ type: "list_sessions" })
        .then((answer) => replace(list, ...this.sessionRows(answer.sessions, load)))
        .catch((error: unknown) => replace(list, h("p.error-line", { role: "alert" }, error instanceof ServerError ? error.message : String(error))));
    };
    panel.addEventListener("toggle", () => {
      if (panel.open) load();
    });
    return panel;
  }

  private sessionRows(sessions: readonly SessionInfo[], reload: () => void): HTMLElement[] {
    const now = this.app.session.serverNow();
    const revoke = (session: string | null, button: HTMLButtonElement): void => {
      button.disabled = true;
      this.app.session
        .request(session === null ? { type: "revoke_session" } : { type: "revoke_session", session })
        .then(reload, (error: unknown) => {
          button.disabled = false;
          button.textContent = error instanceof ServerError ? error.message : String(error);
        });
    };
    const rows = sessions.map((info) => {
      const device = deviceWords(info.client);
      const out = h("button.small", { type: "button", "data-testid": "revoke-session" }, "Sign out that device") as HTMLButtonElement;
      out.onclick = () => revoke(info.session, out);
      return h(
        `li${info.current ? ".current" : ""}`,
        { "data-session": info.session, "data-testid": info.current ? "this-session" : "other-session" },
        h("span", null, info.current ? `${device} (this device)` : device),
        h("span.muted", null, ` · signed in ${agoWords(info.created, now)} · last seen ${agoWords(info.last_seen, now)} `),
        info.current ? null : out,
      );
    });
    const others = sessions.filter((info) => !info.current).length;
    const everywhere = h("button.small", { type: "button", "data-testid": "revoke-others", disabled: others === 0 }, "Sign out everywhere else") as HTMLButtonElement;
    everywhere.onclick = () => revoke(null, everywhere);
    return [h("ul.session-rows", null, rows), others ? everywhere : h("p.muted", null, "No other device is signed in.")];
  }

  private async submit(name: string, password: string, problem: HTMLElement): Promise<void> {
    if (!name || !password) return;
    problem.textContent = "";
    try {
      const account: Account = await this.app.session.signIn(this.mode, name, password);
      storage.setJson("account", { user: account.user, name: account.name, session: account.session } satisfies KnownAccount);
      storage.set("name", account.name);
      this.onName(account.name);
      this.draw();
    } catch (error) {
      problem.textContent = error instanceof ServerError ? error.message : String(error);
    }
  }

  private async signOut(account: KnownAccount): Promise<void> {
    storage.set("account", null);
    this.mode = "sign_in";
    await this.app.session.signOut(account.session);
    this.draw();
  }
}

/** A session's client in words ("A browser"), never its raw client id. */
export function deviceWords(client: string): string {
  const id = client.trim().toLowerCase();
  if (id.startsWith("lumin-web")) return "A browser";
  if (id.startsWith("lumin-python") || id.includes("sdk") || id.includes("bot")) return "A program or the terminal";
  return "A device";
}
