export interface LivenessSettings {
  /** How often the peer is pinged; one that has not answered the previous ping is cut. */
  readonly pingIntervalMs: number;
  /** Silence after which an idle stream is closed. */
  readonly idleTimeoutMs: number;
}

/** What liveness needs of a connection, whatever carries it. */
export interface LivenessPeer {
  ping(): void;
  /** Cuts a peer that stopped answering pings. */
  terminate(): void;
  /** Closes a stream that has been silent for `idleTimeoutMs`. */
  closeIdle(reason: string): void;
  /** A client waiting for a slow result is not idle. */
  busy(): boolean;
}

/**
 * A stream's heartbeat and idle timer: pings the peer, cuts it when a ping went unanswered, and
 * closes the stream after a silence while none of its frames is in work.
 */
export class Liveness {
  readonly #heartbeat: NodeJS.Timeout;
  #idleTimer: NodeJS.Timeout | undefined;
  #answeredPing = true;

  constructor(
    private readonly settings: LivenessSettings,
    private readonly peer: LivenessPeer,
  ) {
    this.#heartbeat = setInterval(() => this.#ping(), settings.pingIntervalMs);
    this.heardFrom();
  }

  /** Any message from the peer: the idle clock starts again. */
  heardFrom(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.peer.busy()) return this.heardFrom();
      this.peer.closeIdle(`no message for ${this.settings.idleTimeoutMs} ms`);
    }, this.settings.idleTimeoutMs);
  }

  pong(): void {
    this.#answeredPing = true;
  }

  stop(): void {
    clearInterval(this.#heartbeat);
    clearTimeout(this.#idleTimer);
  }

  #ping(): void {
    if (!this.#answeredPing) {
      // No pong since the last ping: the peer is gone without closing; free its resources now.
      this.peer.terminate();
      return;
    }
    this.#answeredPing = false;
    this.peer.ping();
  }
}
