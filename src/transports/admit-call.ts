import type { Response } from 'express';
import { admitRequest, type AnalysisLimits } from '../core/pipeline.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';

/**
 * Admits an HTTP call, its body already read, to its model's request lane (or throws 503
 * `overloaded`) and returns the signal that ends its wait: the deadline, or the caller hanging up.
 * The place is given back when the response closes. Shared by every HTTP front door.
 */
export function admitHttpCall(response: Response, model: ModelScheduler, limits: AnalysisLimits): AbortSignal {
  const leave = admitRequest(model, limits);
  const disconnected = new AbortController();
  response.once('close', () => {
    disconnected.abort();
    leave();
  });
  return AbortSignal.any([AbortSignal.timeout(limits.deadlineMs), disconnected.signal]);
}
