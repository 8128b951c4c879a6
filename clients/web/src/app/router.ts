/**
 * Hash routes, so every page has a shareable address that the server's static fallback serves:
 *
 * | hash | page |
 * | --- | --- |
 * | `#/` | the lobby |
 * | `#/room/<id>` (`?code=<code>` for a private room) | a room: seats, board, chat |
 * | `#/replay/<id>` (`?viewer=<seat>`) | a finished game's replay |
 * | `#/howto/<game>` | how to play a game |
 * | `#/leaderboard/<game>` (`?pool=<pool>`) | a game's leaderboard |
 * | `#/player/<user>` | a player's ratings and recent games |
 *
 * One page has a path of its own instead: `/admin`, the operator's admin page (src/app/admin.ts),
 * which src/main.ts loads apart from the players' app. The server's static fallback serves
 * index.html for it as for any unknown path.
 */

export type Route =
  | { page: "lobby" }
  | { page: "room"; room: string; code: string | null }
  | { page: "replay"; room: string; viewer: number | null }
  | { page: "howto"; game: string }
  | { page: "leaderboard"; game: string; pool: string | null }
  | { page: "player"; user: string };

/** Whether a location's path is the admin page's: `/admin` (also under a prefix, `/lumin/admin`). */
export function isAdminPath(pathname: string): boolean {
  return /\/admin$/.test(pathname);
}

/** The route a location hash names; anything unknown is the lobby. */
export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "room" && parts[1]) return { page: "room", room: parts[1], code: params.get("code") };
  if (parts[0] === "replay" && parts[1]) {
    const viewer = params.get("viewer");
    return { page: "replay", room: parts[1], viewer: viewer !== null && /^\d+$/.test(viewer) ? Number(viewer) : null };
  }
  if (parts[0] === "howto" && parts[1]) return { page: "howto", game: parts[1] };
  if (parts[0] === "leaderboard") return { page: "leaderboard", game: parts[1] ?? "flip_over_frog", pool: params.get("pool") };
  if (parts[0] === "player" && parts[1]) return { page: "player", user: parts[1] };
  return { page: "lobby" };
}

/** The hash of a route. */
export function routeHash(route: Route): string {
  switch (route.page) {
    case "lobby":
      return "#/";
    case "room":
      return `#/room/${encodeURIComponent(route.room)}${route.code ? `?code=${encodeURIComponent(route.code)}` : ""}`;
    case "replay":
      return `#/replay/${encodeURIComponent(route.room)}${route.viewer !== null ? `?viewer=${route.viewer}` : ""}`;
    case "howto":
      return `#/howto/${encodeURIComponent(route.game)}`;
    case "leaderboard":
      return `#/leaderboard/${encodeURIComponent(route.game)}${route.pool ? `?pool=${encodeURIComponent(route.pool)}` : ""}`;
    case "player":
      return `#/player/${encodeURIComponent(route.user)}`;
  }
}

/** Go to a route (the app re-renders on `hashchange`). */
export function navigate(route: Route): void {
  const hash = routeHash(route);
  if (window.location.hash === hash) window.dispatchEvent(new HashChangeEvent("hashchange"));
  else window.location.hash = hash;
}

/** The full shareable address of a room (with its code when private). */
export function roomLink(room: string, code: string | null): string {
  const base = window.location.href.split("#")[0];
  return `${base}${routeHash({ page: "room", room, code })}`;
}

/**
 * What someone pasted to join a room: a link (`…#/room/<id>?code=X`) or `<room id> <code>`.
 * Returns null when it names no room.
 */
export function parseJoin(text: string): { room: string; code: string | null } | null {
  const trimmed = text.trim();
  const hashAt = trimmed.indexOf("#");
  if (hashAt >= 0) {
    const route = parseRoute(trimmed.slice(hashAt));
    return route.page === "room" ? { room: route.room, code: route.code } : null;
  }
  const [room, code] = trimmed.split(/[\s/,]+/);
  if (!room || !/^[A-Za-z0-9_-]+$/.test(room)) return null;
  return { room, code: code ? code.toUpperCase() : null };
}
