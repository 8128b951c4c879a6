/** A page the app shows (lobby, room, replay, how-to): its element, and cleanup on leaving. */
export interface Page {
  readonly element: HTMLElement;
  /** Stop listening and release what the page holds (sockets stay with the session). */
  destroy(): void;
}
