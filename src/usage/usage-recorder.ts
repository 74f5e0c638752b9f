import type { Logger } from 'pino';
import type { UsageEvent, UsageSink } from '../core/call-recorder.js';
import { latencyBucket } from './latency-histogram.js';
import type { UsageCount, UsageStore } from './usage-store.js';

const SEPARATOR = '\n';

/**
 * Usage counting kept off the request path: `record` only adds to in-memory per-minute counters;
 * a timer writes them to the store in one batch every `flushIntervalMs`, and `stop` writes what
 * is left. A failed write keeps its counts for the next flush (through a database outage: the
 * first failure is logged, not each retry).
 */
export class UsageRecorder implements UsageSink {
  #pending = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #failing = false;

  constructor(
    private readonly store: UsageStore,
    private readonly logger: Logger,
    private readonly flushIntervalMs = 1000,
  ) {}

  record(event: UsageEvent): void {
    const prefix = event.serviceId + SEPARATOR + new Date(event.at).toISOString().slice(0, 16) + SEPARATOR;
    this.#add(prefix + 'requests', 1);
    if (event.images) this.#add(prefix + 'images', event.images);
    if (event.detections) this.#add(prefix + 'detections', event.detections);
    if (event.errorCode) this.#add(prefix + 'error:' + event.errorCode, 1);
    this.#add(prefix + 'latency:' + latencyBucket(event.latencyMs), 1);
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.flushIntervalMs).unref();
  }

  /** Writes the pending counters; concurrent calls queue behind each other. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#writePending());
    return this.#flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  #add(key: string, value: number): void {
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + value);
  }

  async #writePending(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    const counts: UsageCount[] = [...batch].map(([key, value]) => {
      const [serviceId, minute, counter] = key.split(SEPARATOR);
      return { serviceId, minute, counter, value };
    });
    try {
      await this.store.add(counts);
      if (this.#failing) this.logger.info({ counters: counts.length }, 'usage written again');
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.logger.warn({ err: error, counters: counts.length }, 'usage flush failed; retrying with each flush until it is written');
      this.#failing = true;
      for (const [key, value] of batch) this.#add(key, value);
    }
  }
}
