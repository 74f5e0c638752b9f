import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS } from '../core/call-metrics.js';

/** What became of a frame a client sent. */
export type FrameFate = 'analysed' | 'failed' | 'dropped' | 'cancelled';

/**
 * The video streams' own metrics, beside the per-call ones every analysed frame also feeds
 * (core/call-metrics.ts): how many streams are open, what became of their frames, and how long a
 * frame takes from receipt to its answer.
 */
export class StreamMetrics {
  readonly #open: Gauge<'transport'>;
  readonly #frames: Counter<'transport' | 'fate'>;
  readonly #latency: Histogram<'transport' | 'model'>;

  constructor(registry: Registry) {
    this.#open = new Gauge({
      name: 'detectd_streams_open',
      help: 'Video streams open now, by transport (stream-json, stream-nvision)',
      labelNames: ['transport'] as const,
      registers: [registry],
    });
    this.#frames = new Counter({
      name: 'detectd_stream_frames_total',
      help: 'Stream frames received, by transport and fate: analysed, failed (answered with an error), dropped (superseded by a newer frame while waiting), cancelled (the stream closed first)',
      labelNames: ['transport', 'fate'] as const,
      registers: [registry],
    });
    this.#latency = new Histogram({
      name: 'detectd_stream_frame_latency_seconds',
      help: 'Time from receipt of a stream frame to its answer being handed to the socket, by transport and model',
      labelNames: ['transport', 'model'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
  }

  opened(transport: string): void {
    this.#open.inc({ transport });
  }

  closed(transport: string): void {
    this.#open.dec({ transport });
  }

  frames(transport: string, fate: FrameFate, count = 1): void {
    if (count > 0) this.#frames.inc({ transport, fate }, count);
  }

  answered(transport: string, model: string, ms: number): void {
    this.#latency.observe({ transport, model }, ms / 1000);
  }
}
