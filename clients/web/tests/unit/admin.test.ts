// @vitest-environment jsdom
/**
 * The admin page against a fake admin API (fetch mocked): the requests it makes (paths, query
 * strings, the bearer token), the sentences it shows for answers and refusals, the token kept
 * in sessionStorage only, and what it draws: rooms, a room's seats with their kick buttons,
 * connections, bans and nodes, never the API's JSON.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";

import { AdminPage, age, TOKEN_KEY } from "../../src/app/admin";
import { AdminApi, AdminRefusal, answered } from "../../src/app/admin_api";
import { isAdminPath } from "../../src/app/router";

const TOKEN = "an-admin-token-of-32-characters!";

interface Call {
  method: string;
  url: URL;
  auth: string | null;
}

type Handler = (call: Call) => [number, unknown];

function fakeFetch(handler: Handler) {
  const calls: Call[] = [];
  const fetcher = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    const call = { method: init?.method ?? "GET", url: new URL(String(input)), auth: headers.get("Authorization") };
    calls.push(call);
    const [status, body] = handler(call);
    return {
      ok: status >= 200 && status < 300,
      status,
      statusText: status === 401 ? "Unauthorized" : "",
      json: async () => {
        if (typeof body === "string") throw new SyntaxError("not JSON");
        return body;
      },
    } as Response;
  });
  return { fetcher: fetcher as unknown as typeof fetch, calls };
}

const ROOMS = [
  { id: "rgame", game: "flip_over_frog", state: "playing", players: 2, spectators: 1, bots: 0, age_seconds: 75, node: "local" },
  { id: "rwait", game: "flash8", state: "waiting", players: 1, spectators: 0, bots: 0, age_seconds: 5, node: "local" },
];

const DETAIL = {
  ...ROOMS[0],
  status: "playing",
  options: { variant: "classic" },
  private: false,
  host: "u0",
  created: 1_700_000_000,
  started: 1_700_000_010,
  seq: 12,
  turn_clock: null,
  to_move: [1],
  muted: [],
  seats: [
    { seat: 0, kind: "human", name: "Ada", user: "u0", bot: null, ready: true, connected: true, in_grace: false, bot_playing: false },
    { seat: 1, kind: "human", name: "Bob", user: "u1", bot: null, ready: true, connected: false, in_grace: true, bot_playing: false },
  ],
  connections: [
    { connection: "c0", user: "u0", name: "Ada", seat: 0 },
    { connection: "c9", user: "u9", name: "Cy", seat: null },
  ],
};

/** The API as a running server answers with the right token. */
function server(extra: Handler = () => [404, { error: "no_such_request", message: "No." }]): Handler {
  return (call) => {
    if (call.auth !== `Bearer ${TOKEN}`) return [401, { error: "bad_admin_token", message: "This needs the server's admin token (Bearer)." }];
    const path = call.url.pathname.replace("/api/admin/", "");
    if (call.method === "GET" && path === "nodes") return [200, { node: "local", draining: false, nodes: [{ node: "local", url: "ws://127.0.0.1:8700/ws", rooms: 2, connections: 3 }] }];
    if (call.method === "GET" && path === "rooms") {
      const state = call.url.searchParams.get("state");
      return [200, { rooms: ROOMS.filter((room) => !state || room.state === state) }];
    }
    if (call.method === "GET" && path === "rooms/rgame") return [200, DETAIL];
    if (call.method === "GET" && path === "connections") {
      return [200, { connections: [{ id: "c0", user: "u0", name: "Ada", address: "127.0.0.1", version: 3, age_seconds: 80, rooms: [{ room: "rgame", seat: 0 }], node: "local" }] }];
    }
    if (call.method === "GET" && path === "bans") return [200, { bans: [{ kind: "address", value: "203.0.113.0/24", reason: "abuse", at: 1_700_000_000 }] }];
    return extra(call);
  };
}

const flush = async () => {
  for (let n = 0; n < 10; n++) await Promise.resolve();
};

function memoryStorage() {
  const items = new Map<string, string>();
  return { items, getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) };
}

const LOCATION = { href: "http://lumin.test:8700/admin" };

async function loggedIn(handler: Handler = server()) {
  const { fetcher, calls } = fakeFetch(handler);
  const storage = memoryStorage();
  const root = document.createElement("div");
  document.body.replaceChildren(root);
  const page = new AdminPage(root, { fetcher, storage, location: LOCATION, interval: 0 });
  const input = root.querySelector<HTMLInputElement>("#admin-token")!;
  input.value = TOKEN;
  root.querySelector<HTMLFormElement>("form.admin-login")!.requestSubmit();
  await flush();
  return { page, root, calls, storage };
}

const $ = (root: ParentNode, selector: string) => root.querySelector<HTMLElement>(selector);

beforeEach(() => {
  document.body.replaceChildren();
  localStorage.clear();
  sessionStorage.clear();
});

describe("the admin API client", () => {
  it("sends the token as a bearer and parameters in the query string", async () => {
    const { fetcher, calls } = fakeFetch(() => [200, { room: "r1", seat: 1, user: "u1", bot: "bot" }]);
    const api = AdminApi.at(LOCATION, TOKEN, fetcher);
    expect(api.base).toBe("http://lumin.test:8700/api/admin/");
    await api.kick("r1", 1, "  abusive chat ");
    await api.close("r1", "");
    await api.mute("r1", "u1", false);
    await api.rooms({ game: "neon_hex", state: "playing" });
    await api.rooms();
    await api.ban("address", "203.0.113.0/24", "abuse");
    await api.unban("identity", "u5");
    await api.drain("node-a");
    await api.log("r1");
    expect(calls.map((call) => `${call.method} ${call.url.pathname}${call.url.search}`)).toEqual([
      "POST /api/admin/rooms/r1/kick?seat=1&reason=abusive+chat",
      "POST /api/admin/rooms/r1/close",
      "POST /api/admin/rooms/r1/mute?user=u1&muted=false",
      "GET /api/admin/rooms?game=neon_hex&state=playing",
      "GET /api/admin/rooms",
      "POST /api/admin/bans?address=203.0.113.0%2F24&reason=abuse",
      "DELETE /api/admin/bans?identity=u5",
      "POST /api/admin/nodes/node-a/drain",
      "GET /api/admin/rooms/r1/log",
    ]);
    expect(new Set(calls.map((call) => call.auth))).toEqual(new Set([`Bearer ${TOKEN}`]));
  });

  it("lives beside the page, also under a prefix", () => {
    expect(AdminApi.at({ href: "https://games.example/lumin/admin?x=1" }, TOKEN).base).toBe("https://games.example/lumin/api/admin/");
  });

  it("rejects with the server's sentence, a plain one for a wrong token, and one of its own otherwise", async () => {
    const refusal = async (status: number, body: unknown, fails?: boolean) => {
      const { fetcher } = fakeFetch(() => {
        if (fails) throw new TypeError("Failed to fetch");
        return [status, body];
      });
      return new AdminApi("http://x/api/admin/", TOKEN, fetcher).room("r1").catch((error: AdminRefusal) => error);
    };
    const notLive = await refusal(409, { error: "not_live", message: "Room r1 is aborted and not played now." });
    expect(notLive).toBeInstanceOf(AdminRefusal);
    expect(notLive).toMatchObject({ code: "not_live", status: 409, message: "Room r1 is aborted and not played now." });
    const wrong = await refusal(401, { error: "bad_admin_token", message: "This needs the server's admin token (Bearer)." });
    expect(wrong).toMatchObject({ code: "bad_admin_token", status: 401 });
    expect((wrong as Error).message).toMatch(/^The server refused this token/);
    expect(await refusal(403, "<html>denied</html>")).toMatchObject({ code: "http_403", message: expect.stringMatching(/answered 403 without saying why/) });
    expect(await refusal(0, null, true)).toMatchObject({ code: "unreachable", message: expect.stringMatching(/could not be reached/) });
  });

  it("says what an action did in a sentence", () => {
    expect(answered.close({ room: "r1", status: "aborted", reason: "maintenance" })).toBe("Room r1 is closed (recorded as aborted); its players were told: “maintenance”.");
    expect(answered.kick({ room: "r1", seat: 1, user: "u1", bot: "bot" })).toBe("Removed u1 from seat 1 of room r1; the bot bot plays the seat on. They watch as a spectator.");
    expect(answered.kick({ room: "r1", seat: 1, user: "u1", bot: null })).toMatch(/the seat is open again/);
    expect(answered.mute({ room: "r1", user: "u1", muted: true })).toBe("u1 can no longer chat in room r1.");
    expect(answered.ban({ banned: { kind: "identity", value: "u1", reason: "", at: 0 }, closed: 2 })).toBe("Banned identity u1; 2 open connections were closed.");
    expect(answered.unban({ unbanned: { kind: "address", value: "10.0.0.1", reason: "", at: 0 }, unreachable: ["node-b"] })).toBe(
      "Lifted the ban of address 10.0.0.1. Not answering in time: node-b.",
    );
    expect(answered.drain({ node: "local", draining: true, handed_over: 0, rooms: 3 })).toBe("Node local is draining: it takes no new rooms; 0 rooms were handed over, 3 left on it.");
  });

  it("reads ages and the admin path", () => {
    expect([age(5.4), age(75), age(3 * 3600 + 120)]).toEqual(["5 s", "1 min", "3 h 2 min"]);
    expect(isAdminPath("/admin")).toBe(true);
    expect(isAdminPath("/lumin/admin")).toBe(true);
    expect(isAdminPath("/")).toBe(false);
    expect(isAdminPath("/administrator")).toBe(false);
  });
});

describe("the admin page", () => {
  it("refuses a wrong token in a sentence and keeps nothing", async () => {
    const { fetcher } = fakeFetch(server());
    const storage = memoryStorage();
    const root = document.createElement("div");
    document.body.append(root);
    new AdminPage(root, { fetcher, storage, location: LOCATION, interval: 0 });
    const input = root.querySelector<HTMLInputElement>("#admin-token")!;
    expect(document.activeElement).toBe(input);
    expect(root.querySelector(`label[for="admin-token"]`)?.textContent).toBe("Admin token");
    expect(input.type).toBe("password");
    input.value = "wrong-token-but-long-enough";
    root.querySelector<HTMLFormElement>("form.admin-login")!.requestSubmit();
    await flush();
    const error = $(root, "[data-testid=login-error]")!;
    expect(error.hidden).toBe(false);
    expect(error.textContent).toMatch(/^The server refused this token/);
    expect(error.textContent).not.toContain("bad_admin_token");
    expect(storage.items.size).toBe(0);
  });

  it("keeps the token in sessionStorage only, and log out forgets it", async () => {
    const { fetcher } = fakeFetch(server());
    const root = document.createElement("div");
    document.body.append(root);
    new AdminPage(root, { fetcher, location: LOCATION, interval: 0 });
    root.querySelector<HTMLInputElement>("#admin-token")!.value = TOKEN;
    root.querySelector<HTMLFormElement>("form.admin-login")!.requestSubmit();
    await flush();
    expect(sessionStorage.getItem(TOKEN_KEY)).toBe(TOKEN);
    expect(localStorage.length).toBe(0);
    $(root, "[data-testid=admin-logout]")!.click();
    expect(sessionStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(root.querySelector("#admin-token")).not.toBeNull();
  });

  it("logs in again from the tab's stored token, and back out on a 401", async () => {
    let valid = true;
    const { fetcher } = fakeFetch((call) => (valid ? server()(call) : [401, { error: "bad_admin_token", message: "x" }]));
    const storage = memoryStorage();
    storage.setItem(TOKEN_KEY, TOKEN);
    const root = document.createElement("div");
    document.body.append(root);
    const page = new AdminPage(root, { fetcher, storage, location: LOCATION, interval: 0 });
    await flush();
    expect($(root, ".admin-rooms")).not.toBeNull();
    valid = false; // the server restarted with another token
    await page.refresh();
    expect($(root, "[data-testid=login-error]")!.textContent).toMatch(/^The server refused this token/);
    expect(storage.items.has(TOKEN_KEY)).toBe(false);
  });

  it("draws the rooms, connections, bans and nodes without JSON; the state filter asks the server", async () => {
    const { root, calls, page } = await loggedIn();
    const rows = [...root.querySelectorAll<HTMLElement>(".admin-rooms tbody tr")];
    expect(rows.map((row) => row.dataset.room)).toEqual(["rgame", "rwait"]);
    expect([...rows[0]!.querySelectorAll("th, td")].map((cell) => cell.textContent)).toEqual(["rgame", "flip_over_frog", "playing", "2", "1", "0", "1 min", "local"]);
    expect($(root, ".admin-connections")!.textContent).toContain("Ada (u0)");
    expect($(root, ".admin-bans")!.textContent).toContain("203.0.113.0/24");
    expect($(root, ".admin-nodes")!.textContent).toContain("ws://127.0.0.1:8700/ws");
    expect(root.textContent).not.toMatch(/[{}]/);
    const state = root.querySelector<HTMLSelectElement>("#filter-state")!;
    expect(root.querySelector(`label[for="filter-state"]`)).not.toBeNull();
    state.value = "waiting";
    state.dispatchEvent(new Event("change"));
    await flush();
    expect(calls.some((call) => call.url.pathname.endsWith("/rooms") && call.url.searchParams.get("state") === "waiting")).toBe(true);
    expect([...root.querySelectorAll<HTMLElement>(".admin-rooms tbody tr")].map((row) => row.dataset.room)).toEqual(["rwait"]);
    page.destroy();
  });

  it("shows a room's seats (connected, in grace, to move) and kicks a seat with the reason", async () => {
    const { root, calls } = await loggedIn(
      server((call) => (call.method === "POST" && call.url.pathname.endsWith("/rooms/rgame/kick") ? [200, { room: "rgame", seat: 1, user: "u1", bot: "bot" }] : [404, { error: "x", message: "x" }])),
    );
    $(root, "[data-testid=open-rgame]")!.click();
    await flush();
    const detail = $(root, "[data-testid=room-detail]")!;
    expect(detail.querySelector("h2")!.textContent).toBe("Room rgame");
    const seat0 = detail.querySelector<HTMLElement>("tr[data-seat='0']")!;
    const seat1 = detail.querySelector<HTMLElement>("tr[data-seat='1']")!;
    expect(seat0.textContent).toContain("Ada (u0)");
    expect(seat0.textContent).toContain("connected");
    expect(seat1.textContent).toContain("away, in grace");
    expect(seat1.textContent).toContain("▶ to move");
    expect(detail.textContent).toContain("Cy (u9)");
    expect([...detail.querySelectorAll<HTMLOptionElement>("#mute-user option")].map((option) => option.value)).toEqual(["u0", "u1", "u9"]);
    detail.querySelector<HTMLInputElement>("#room-reason")!.value = "abusive chat";
    detail.querySelector<HTMLButtonElement>("[data-testid=kick-1]")!.click();
    await flush();
    const kick = calls.find((call) => call.method === "POST")!;
    expect(`${kick.url.pathname}${kick.url.search}`).toBe("/api/admin/rooms/rgame/kick?seat=1&reason=abusive+chat");
    expect($(root, "[data-testid=room-answer]")!.textContent).toBe("Removed u1 from seat 1 of room rgame; the bot bot plays the seat on. They watch as a spectator.");
  });

  it("closes a room on the second click only, and says the server's refusal", async () => {
    const { root, calls } = await loggedIn(
      server((call) => (call.url.pathname.endsWith("/close") ? [409, { error: "not_finished", message: "Room rgame is aborted already." }] : [404, { error: "x", message: "x" }])),
    );
    $(root, "[data-testid=open-rgame]")!.click();
    await flush();
    const close = $(root, "[data-testid=close-room]")! as HTMLButtonElement;
    close.click();
    expect(close.textContent).toBe("Click again to close it");
    expect(calls.some((call) => call.method === "POST")).toBe(false);
    close.click();
    await flush();
    expect(calls.filter((call) => call.method === "POST").map((call) => call.url.pathname)).toEqual(["/api/admin/rooms/rgame/close"]);
    const answer = $(root, "[data-testid=room-answer]")!;
    expect(answer.dataset.kind).toBe("error");
    expect(answer.textContent).toBe("Room rgame is aborted already.");
  });

  it("bans from a connection's row and unbans from the list, each answered in a sentence", async () => {
    const { root, calls } = await loggedIn(
      server((call) => {
        if (call.method === "POST" && call.url.pathname.endsWith("/bans")) return [200, { banned: { kind: "identity", value: "u0", reason: "cheating", at: 1 }, closed: 1 }];
        if (call.method === "DELETE") return [404, { error: "no_such_ban", message: "There is no ban of address 203.0.113.0/24." }];
        return [404, { error: "x", message: "x" }];
      }),
    );
    const banButton = [...root.querySelectorAll<HTMLButtonElement>(".admin-connections button")].find((button) => button.textContent === "Ban identity…")!;
    banButton.click();
    expect(root.querySelector<HTMLSelectElement>("#ban-kind")!.value).toBe("identity");
    expect(root.querySelector<HTMLInputElement>("#ban-value")!.value).toBe("u0");
    expect(document.activeElement).toBe(root.querySelector("#ban-reason"));
    root.querySelector<HTMLInputElement>("#ban-reason")!.value = "cheating";
    root.querySelector<HTMLFormElement>(".admin-ban-form")!.requestSubmit();
    await flush();
    const ban = calls.find((call) => call.method === "POST")!;
    expect(ban.url.search).toBe("?identity=u0&reason=cheating");
    expect($(root, "[data-testid=ban-answer]")!.textContent).toBe("Banned identity u0; 1 open connection was closed.");
    [...root.querySelectorAll<HTMLButtonElement>(".admin-bans tbody button")].find((button) => button.textContent === "Unban")!.click();
    await flush();
    expect(calls.find((call) => call.method === "DELETE")!.url.search).toBe("?address=203.0.113.0%2F24");
    expect($(root, "[data-testid=ban-answer]")!.textContent).toBe("There is no ban of address 203.0.113.0/24.");
  });

  it("keeps keyboard focus on a table's button across a refresh", async () => {
    const { root, page } = await loggedIn();
    const open = $(root, "[data-testid=open-rwait]")!;
    open.focus();
    await page.refresh();
    await flush();
    const again = $(root, "[data-testid=open-rwait]")!;
    expect(again).not.toBe(open); // redrawn
    expect(document.activeElement).toBe(again);
  });
});
