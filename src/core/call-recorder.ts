import type { Logger } from 'pino';
import type { CallContext } from './call-context.js';
import type { CallMetrics } from './call-metrics.js';
import type { IdleCollector } from './idle-collector.js';
import type { RecentErrors } from './recent-errors.js';

/** How a call ended on its wire, as the transport saw it. */
export interface CallOutcome {
  /** The front door: `http`, `stream-json`, … */
  readonly transport: string;
  /** The HTTP status answered (for a stream frame: the status its error code has; 200 for a result). */
  readonly status: number;
  /** The caller went away before the answer was sent. */
  readonly abandoned: boolean;
  /** The transport's own fields for the log line (method, path, stream id, frame id, …): never keys, headers or image data. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** HTTP requests log at info; stream frames, many per second, at debug. */
  readonly logLevel: 'info' | 'debug';
  /** Where the call came in, for a person reading the status page's recent errors (`POST /console/sign-in`). */
  readonly place?: string;
}

/** What one answered API call adds to its service's usage. */
export interface UsageEvent {
  readonly serviceId: string;
  /** Epoch milliseconds when the call was answered. */
  readonly at: number;
  readonly latencyMs: number;
  readonly images: number;
  readonly detections: number;
  /** Error code of a failed call; undefined for a success. */
  readonly errorCode?: string;
}

/** Where answered calls' usage goes (usage/usage-recorder.ts counts it in memory and writes it to the database). */
export interface UsageSink {
  record(event: UsageEvent): void;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * The one place where an answered call becomes its log line, its metrics, its service's usage and
 * (when it failed) an entry of the status page's recent errors (`record`), for every front door alike.
 */
export class CallRecorder {
  constructor(
    private readonly logger: Logger,
    private readonly metrics: CallMetrics,
    private readonly usage: UsageSink,
    private readonly idle: Pick<IdleCollector, 'callEnded'>,
    private readonly recentErrors: Pick<RecentErrors, 'add'>,
  ) {}

  record(call: CallContext, outcome: CallOutcome): void {
    const durationMs = performance.now() - call.startedAt;
    const errorCode = outcome.abandoned ? 'client_closed_request' : call.errorCode;
    const timings = Object.fromEntries(Object.entries(call.timings).map(([stage, ms]) => [stage, round(ms)]));
    const entry = {
      request_id: call.requestId,
      transport: outcome.transport,
      ...outcome.fields,
      status: outcome.abandoned ? 499 : outcome.status,
      code: errorCode,
      duration_ms: round(durationMs),
      timings_ms: Object.keys(timings).length ? timings : undefined,
      service_id: call.service?.id,
      call: call.management ? 'management' : undefined,
      model: call.model,
      objects: call.objects,
    };
    if (entry.status >= 500 && entry.status !== 503) this.logger.error(entry, 'call failed');
    else this.logger[outcome.logLevel](entry, 'call');
    this.metrics.observe(call, outcome.transport, errorCode);
    if (entry.status >= 400) {
      this.recentErrors.add({ at: new Date().toISOString(), requestId: call.requestId, transport: outcome.transport, place: outcome.place, status: entry.status, code: errorCode, serviceId: call.service?.id, model: call.model });
    }
    if (call.service) {
      this.usage.record({
        serviceId: call.service.id,
        at: Date.now(),
        latencyMs: durationMs,
        images: call.timings.decode === undefined ? 0 : 1,
        detections: call.objects ?? 0,
        errorCode,
      });
    }
    this.idle.callEnded();
  }
}
