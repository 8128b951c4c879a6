/**
 * The server's admin API (server/admin.py, docs/operating.md "Admin API") for the admin page:
 * one method per request, each resolving with the API's JSON answer or rejecting with an
 * {@link AdminRefusal} that carries a sentence for the operator (the server's own, or one made
 * here when the server could not be reached or answered without one).
 *
 * Every request carries the token as `Authorization: Bearer TOKEN`; parameters travel in the
 * query string (the server takes no request bodies). Nothing here touches the page.
 */

export type RoomState = "waiting" | "playing" | "finished";

/** A room as `GET rooms` lists it. */
export interface AdminRoom {
  id: string;
  game: string;
  state: RoomState;
  players: number;
  spectators: number;
  bots: number;
  age_seconds: number;
  node: string;
}

export interface AdminSeat {
  seat: number;
  kind: "open" | "human" | "bot";
  name: string | null;
  user: string | null;
  bot: string | null;
  ready: boolean;
  connected: boolean;
  in_grace: boolean;
  bot_playing: boolean;
}

export interface AdminRoomConnection {
  connection: string;
  user: string | null;
  name: string | null;
  seat: number | null;
}

/** A live room as `GET rooms/ID` shows it. */
export interface AdminRoomDetail extends AdminRoom {
  status: string;
  options: Record<string, unknown>;
  private: boolean;
  host: string | null;
  created: number;
  started: number | null;
  seq: number;
  turn_clock: number | null;
  to_move: number[];
  muted: string[];
  seats: AdminSeat[];
  connections: AdminRoomConnection[];
}

export interface AdminConnection {
  id: string;
  user: string | null;
  name: string | null;
  address: string;
  version: number | null;
  age_seconds: number;
  rooms: { room: string; seat: number | null }[];
  node: string;
}

export type BanKind = "identity" | "address";

export interface AdminBan {
  kind: BanKind;
  value: string;
  reason: string;
  at: number;
}

export interface AdminNode {
  node: string;
  url: string;
  rooms: number;
  connections: number;
}

export interface AdminNodes {
  node: string;
  draining: boolean;
  nodes: AdminNode[];
}

export interface CloseAnswer { room: string; status: string; reason: string }
export interface KickAnswer { room: string; seat: number; user: string; bot: string | null }
export interface MuteAnswer { room: string; user: string; muted: boolean }
export interface BanAnswer { banned: AdminBan; closed: number; unreachable?: string[] }
export interface UnbanAnswer { unbanned: AdminBan; unreachable?: string[] }
export interface DrainAnswer { node: string; draining: boolean; handed_over: number; rooms: number }

/** Lists gathered from a cluster name the nodes that did not answer in time. */
export interface Gathered { unreachable?: string[] }

/** The API refused a request, or could not be asked: its code and a sentence for the operator. */
export class AdminRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "AdminRefusal";
  }
}

/** Sentences said instead of the server's for refusals an operator meets at the door. */
const SENTENCES: Record<string, string> = {
  bad_admin_token: "The server refused this token: it is not the server's admin token (--admin-token).",
};

type Fetch = typeof fetch;
type Query = Record<string, string | number | boolean | null | undefined>;

export class AdminApi {
  /** `base` is the API's address, ending in `/api/admin/`. */
  constructor(
    readonly base: string,
    private readonly token: string,
    private readonly fetcher: Fetch = (input, init) => fetch(input, init),
  ) {}

  /** The API at the page's own server: `api/admin/` beside the page (`/admin` → `/api/admin/`). */
  static at(location: { href: string }, token: string, fetcher?: Fetch): AdminApi {
    return new AdminApi(new URL("api/admin/", location.href).href, token, fetcher);
  }

  rooms(filter: { game?: string | null; state?: RoomState | null } = {}): Promise<{ rooms: AdminRoom[] } & Gathered> {
    return this.call("GET", "rooms", { game: filter.game || null, state: filter.state || null });
  }

  room(id: string): Promise<AdminRoomDetail> {
    return this.call("GET", `rooms/${encodeURIComponent(id)}`);
  }

  /** The room's whole log so far, as the API gives it (the raw-log download). */
  log(id: string): Promise<Record<string, unknown>> {
    return this.call("GET", `rooms/${encodeURIComponent(id)}/log`);
  }

  close(id: string, reason: string): Promise<CloseAnswer> {
    return this.call("POST", `rooms/${encodeURIComponent(id)}/close`, { reason: reason.trim() || null });
  }

  kick(id: string, seat: number, reason: string): Promise<KickAnswer> {
    return this.call("POST", `rooms/${encodeURIComponent(id)}/kick`, { seat, reason: reason.trim() || null });
  }

  mute(id: string, user: string, muted: boolean): Promise<MuteAnswer> {
    return this.call("POST", `rooms/${encodeURIComponent(id)}/mute`, { user, muted });
  }

  connections(): Promise<{ connections: AdminConnection[] } & Gathered> {
    return this.call("GET", "connections");
  }

  bans(): Promise<{ bans: AdminBan[] }> {
    return this.call("GET", "bans");
  }

  ban(kind: BanKind, value: string, reason: string): Promise<BanAnswer> {
    return this.call("POST", "bans", { [kind]: value.trim(), reason: reason.trim() || null });
  }

  unban(kind: BanKind, value: string): Promise<UnbanAnswer> {
    return this.call("DELETE", "bans", { [kind]: value.trim() });
  }

  nodes(): Promise<AdminNodes> {
    return this.call("GET", "nodes");
  }

  drain(node: string): Promise<DrainAnswer> {
    return this.call("POST", `nodes/${encodeURIComponent(node)}/drain`);
  }

  /** The address of a request (exposed for tests). */
  url(path: string, query: Query = {}): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== null && value !== undefined) params.set(key, String(value));
    }
    const search = params.toString();
    return `${this.base}${path}${search ? `?${search}` : ""}`;
  }

  private async call<T>(method: string, path: string, query: Query = {}): Promise<T> {
    let answer: Response;
    try {
      answer = await this.fetcher(this.url(path, query), {
        method,
        headers: { Authorization: `Bearer ${this.token}`, Accept: "application/json" },
        cache: "no-store",
      });
    } catch (error) {
      throw new AdminRefusal("unreachable", `The server could not be reached (${error instanceof Error ? error.message : String(error)}); is it running?`, 0);
    }
    let body: unknown = null;
    try {
      body = await answer.json();
    } catch {
      body = null;
    }
    const map = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    if (answer.ok && map !== null) return map as T;
    const code = typeof map?.error === "string" ? map.error : `http_${answer.status}`;
    const sentence =
      SENTENCES[code] ??
      (typeof map?.message === "string" && map.message.trim()
        ? map.message
        : answer.ok
          ? "The server's answer could not be read."
          : `The server answered ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ""} without saying why (is /api/admin/ reachable from here?).`);
    throw new AdminRefusal(code, sentence, answer.status);
  }
}

/** What the operator is told when an action succeeded, made from the API's answer. */
export const answered = {
  close(answer: CloseAnswer): string {
    const told = answer.reason ? `its players were told: “${answer.reason}”` : "its players were told the operator closed it";
    return `Room ${answer.room} is closed (recorded as ${answer.status}); ${told}.`;
  },
  kick(answer: KickAnswer): string {
    const after = answer.bot ? `the ${answer.bot} bot plays the seat on` : "the seat is open again";
    return `Removed ${answer.user} from seat ${answer.seat} of room ${answer.room}; ${after}. They watch as a spectator.`;
  },
  mute(answer: MuteAnswer): string {
    return answer.muted ? `${answer.user} can no longer chat in room ${answer.room}.` : `${answer.user} can chat in room ${answer.room} again.`;
  },
  ban(answer: BanAnswer): string {
    const closed = answer.closed === 1 ? "1 open connection was closed" : `${answer.closed} open connections were closed`;
    return `Banned ${answer.banned.kind} ${answer.banned.value}; ${closed}.${unreachable(answer.unreachable)}`;
  },
  unban(answer: UnbanAnswer): string {
    return `Lifted the ban of ${answer.unbanned.kind} ${answer.unbanned.value}.${unreachable(answer.unreachable)}`;
  },
  drain(answer: DrainAnswer): string {
    const handed = answer.handed_over === 1 ? "1 room was handed over" : `${answer.handed_over} rooms were handed over`;
    return `Node ${answer.node} is draining: it takes no new rooms; ${handed}, ${answer.rooms} left on it.`;
  },
};

function unreachable(nodes: string[] | undefined): string {
  return nodes?.length ? ` Not answering in time: ${nodes.join(", ")}.` : "";
}
