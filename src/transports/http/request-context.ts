import type { Response } from 'express';
import type { Service } from '../../accounts/services.js';
import type { ErrorCode } from '../../core/errors.js';

/** What one request accumulates on its way through; the request log line prints it. */
export interface RequestContext {
  requestId: string;
  startedAt: number;
  /** Milliseconds per pipeline stage (decode, preprocess, inference, postprocess, encode, …). */
  timings: Record<string, number>;
  errorCode?: ErrorCode;
  service?: Service;
  model?: string;
  objects?: number;
}

export function contextOf(response: Response): RequestContext {
  return response.locals as RequestContext;
}
