/**
 * A finished game's downloadable log (`GET /rooms/<id>/log`, docs/operating.md). A private
 * game's log needs its code (`?code=`) or the token of one of its players (`Authorization:
 * Bearer`); the page sends whichever it knows.
 */

/** What lets this page read a private game's log and replay. */
export interface LogAccess {
  code: string | null;
  token: string | null;
}

/** Fetch `room`'s log with `access`. */
export function fetchLog(room: string, access: LogAccess): Promise<Response> {
  const query = access.code ? `?code=${encodeURIComponent(access.code)}` : "";
  const headers: Record<string, string> = { Accept: "application/json" };
  if (access.token) headers.Authorization = `Bearer ${access.token}`;
  return fetch(`rooms/${encodeURIComponent(room)}/log${query}`, { headers });
}
