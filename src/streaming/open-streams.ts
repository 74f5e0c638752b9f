import { DetectdError } from '../core/errors.js';
import type { StreamMetrics } from './stream-metrics.js';

/** What shutdown needs of an open stream, whatever its protocol. */
export interface OpenStream {
  readonly transport: string;
  /** Asks the client to go (the protocol's "going away"); frames in work finish. */
  shutDown(): void;
  /** Cuts the connection without a goodbye. */
  terminate(): void;
  /** Settles once the stream is closed and none of its frames is in work. */
  readonly finished: Promise<void>;
}

/** How long streams get to say goodbye at shutdown before their connections are cut. */
const SHUTDOWN_GRACE_MS = 2000;

/**
 * Every stream open on this server, of every protocol: the stream limit, the open-streams gauge
 * and the shutdown all read this one registry.
 */
export class OpenStreams {
  readonly #streams = new Set<OpenStream>();

  constructor(
    private readonly maxStreams: number,
    private readonly metrics: StreamMetrics,
  ) {}

  /** Throws 503 `overloaded` when the server already serves its limit of streams. */
  checkRoom(): void {
    if (this.#streams.size >= this.maxStreams) {
      throw new DetectdError('overloaded', `the server already serves ${this.maxStreams} streams; retry later`, 5);
    }
  }

  add(stream: OpenStream): void {
    this.#streams.add(stream);
    this.metrics.opened(stream.transport);
    void stream.finished.then(() => {
      this.#streams.delete(stream);
      this.metrics.closed(stream.transport);
    });
  }

  /** Asks every stream to go, cuts those still there after a grace period, and waits for their frames in work. */
  async closeAll(): Promise<void> {
    const streams = [...this.#streams];
    for (const stream of streams) stream.shutDown();
    const grace = setTimeout(() => streams.forEach((stream) => stream.terminate()), SHUTDOWN_GRACE_MS);
    await Promise.all(streams.map((stream) => stream.finished));
    clearTimeout(grace);
  }
}
