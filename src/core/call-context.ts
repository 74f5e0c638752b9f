import type { Service } from './service.js';
import type { ErrorCode } from './errors.js';

/** Every stage a call can be timed in (the log, the stage metrics, a stream frame's timings). */
export const STAGES = ['receive', 'gate', 'base64', 'decode', 'wait', 'preprocess', 'inference', 'postprocess', 'recognize', 'tracking', 'encode'] as const;
export type Stage = (typeof STAGES)[number];

/** Milliseconds per stage the call went through (a stage it skipped is absent). */
export type StageTimings = Partial<Record<Stage, number>>;

/**
 * What one call — an HTTP request, or one analysed frame of a stream — accumulates on its way
 * through, whatever its front door. `CallRecorder.record` turns it into the log line, metrics and usage.
 */
export interface CallContext {
  readonly requestId: string;
  /** performance.now() when the call arrived. */
  readonly startedAt: number;
  readonly timings: StageTimings;
  service?: Service;
  /** A management call (Gate.manage): what a service remembers, listed, changed or forgotten; no analysis. */
  management?: boolean;
  model?: string;
  objects?: number;
  errorCode?: ErrorCode;
}

export function newCallContext(requestId: string, startedAt = performance.now()): CallContext {
  return { requestId, startedAt, timings: {} };
}
