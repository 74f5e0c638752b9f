import type { RequestHandler } from 'express';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import { contextOf } from './request-context.js';

/**
 * Counts every API call that reached a service (its key was accepted) once it is answered or
 * abandoned. Only an in-memory add happens here; the recorder's flusher does the writing.
 */
export function usageRecording(recorder: UsageRecorder): RequestHandler {
  return (_request, response, next) => {
    let recorded = false;
    const record = () => {
      const context = contextOf(response);
      if (recorded || !context.service) return;
      recorded = true;
      recorder.record({
        serviceId: context.service.id,
        at: Date.now(),
        latencyMs: performance.now() - context.startedAt,
        images: context.timings.decode === undefined ? 0 : 1,
        detections: context.objects ?? 0,
        errorCode: response.headersSent ? context.errorCode : 'client_closed_request',
      });
    };
    response.on('finish', record);
    response.on('close', record);
    next();
  };
}
