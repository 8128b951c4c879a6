/**
 * Server clock estimation from `ping`/`pong` (docs/protocol.md, "Clock").
 *
 * For a ping sent at client time `t0` and answered at `t1` with the server's `server_time`,
 * the round trip is `t1 - t0` and the server clock read `server_time + rtt / 2` at `t1`. The
 * estimate in force is the one from the sample with the smallest round trip among the most
 * recent {@link ClockSync.keep} samples (a slow answer says little about the offset).
 * All times are seconds.
 */

export interface ClockSample {
  rtt: number;
  /** server clock − client clock, as this sample measured it. */
  offset: number;
}

export class ClockSync {
  private samples: ClockSample[] = [];

  constructor(readonly keep = 8) {}

  /** Record one ping's answer. Negative round trips (a clock jump) are ignored. */
  add(clientSent: number, clientReceived: number, serverTime: number): void {
    const rtt = clientReceived - clientSent;
    if (!(rtt >= 0)) return;
    this.samples.push({ rtt, offset: serverTime + rtt / 2 - clientReceived });
    if (this.samples.length > this.keep) this.samples.shift();
  }

  /** Seed the offset from a single server time (the `welcome`), until pings arrive. */
  seed(clientNow: number, serverTime: number): void {
    if (this.samples.length === 0) this.samples.push({ rtt: Number.POSITIVE_INFINITY, offset: serverTime - clientNow });
  }

  private best(): ClockSample | null {
    let best: ClockSample | null = null;
    for (const sample of this.samples) if (best === null || sample.rtt < best.rtt) best = sample;
    return best;
  }

  /** server clock − client clock (seconds); 0 before any sample. */
  get offset(): number {
    return this.best()?.offset ?? 0;
  }

  /** The latest measured round trip (seconds), or null before the first pong. */
  get lastRtt(): number | null {
    for (let i = this.samples.length - 1; i >= 0; i--) {
      const rtt = this.samples[i]!.rtt;
      if (Number.isFinite(rtt)) return rtt;
    }
    return null;
  }

  /** The server clock now, given the client clock now. */
  serverTime(clientNow: number): number {
    return clientNow + this.offset;
  }
}

/** The client clock in seconds since the epoch, with sub-millisecond precision. */
export function clientNow(): number {
  return (performance.timeOrigin + performance.now()) / 1000;
}
