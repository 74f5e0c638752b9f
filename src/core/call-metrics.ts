import { Counter, Histogram, type Registry } from 'prom-client';
import { type CallContext, STAGES } from './call-context.js';

/** The `code` label of a call answered without an error code (a success, or a console page's refusal, whose status says it). */
export const NO_ERROR_CODE = 'none';

/** Seconds; from a fast model's inference (~10 ms) to a slow request (~10 s). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10];

/** The metrics every call feeds, whatever its front door: pipeline stages and objects per model, outcomes per transport. */
export class CallMetrics {
  readonly #calls: Counter<'transport' | 'code'>;
  readonly #stages: Histogram<'stage' | 'model'>;
  readonly #objects: Counter<'model'>;

  constructor(registry: Registry) {
    this.#calls = new Counter({
      name: 'detectd_calls_total',
      help: `Calls answered (an HTTP request, or one analysed stream frame), by transport and error code ("${NO_ERROR_CODE}" for an answer without one)`,
      labelNames: ['transport', 'code'] as const,
      registers: [registry],
    });
    this.#stages = new Histogram({
      name: 'detectd_detection_stage_seconds',
      help: `Time per stage of a call (${STAGES.join(', ')}: those the call went through), by model`,
      labelNames: ['stage', 'model'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.#objects = new Counter({
      name: 'detectd_detected_objects_total',
      help: 'Objects returned, by model',
      labelNames: ['model'] as const,
      registers: [registry],
    });
  }

  /** `code`: the call's error code, or `client_closed_request` when the caller left first. */
  observe(call: CallContext, transport: string, code: string | undefined): void {
    this.#calls.inc({ transport, code: code ?? NO_ERROR_CODE });
    if (!call.model) return;
    for (const [stage, ms] of Object.entries(call.timings)) this.#stages.observe({ stage, model: call.model }, ms / 1000);
    this.#objects.inc({ model: call.model }, call.objects ?? 0);
  }
}
