/**
 * Protocol error codes (docs/protocol.md, "Error codes") and the error the client layer raises.
 *
 * `bad_patch` and `out_of_sync` never travel on the wire: the client raises them when a delta
 * does not fit its copy of a room. `try_again` (version 2) refuses a request for a reason that
 * passes; the session retries it. `disconnected`, `timeout`, `game_changed` and
 * `too_many_moves` are this client's own: a request whose connection dropped before the
 * answer, one that waited too long, a move not sent again after its room changed node because
 * it was no longer legal there, and a request sent on from node to node too often (src/net).
 */

export type ErrorCode =
  | "not_msgpack"
  | "not_a_map"
  | "unknown_type"
  | "missing_field"
  | "bad_field"
  | "too_deep"
  | "too_large"
  | "unsupported_version"
  | "bad_patch"
  | "out_of_sync"
  | "try_again"
  | (string & {});

/** A frame that failed to decode, a delta that does not fit, or a refused request. */
export class ProtocolError extends Error {
  readonly code: ErrorCode;
  /** The request id the failure answers, when known. */
  readonly ref: number | null;

  constructor(code: ErrorCode, message: string, ref: number | null = null) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.ref = ref;
  }
}

/** The server refused a request (`error` or `rejected`): its code and sentence, as sent. */
export class ServerError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = "ServerError";
    this.code = code;
  }
}
