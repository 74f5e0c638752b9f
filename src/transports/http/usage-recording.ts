import type { RequestHandler } from 'express';
import type { UsageRecorder } from '../../usage/usage-recorder.js';
import { contextOf } from './request-context.js';
import { whenAnswered } from './when-answered.js';

/**
 * Counts every API call that reached a service (its key was accepted) once it is answered or
 * abandoned. Only an in-memory add happens here; the recorder's flusher does the writing.
 */
export function usageRecording(recorder: UsageRecorder): RequestHandler {
  return (_request, response, next) => {
    whenAnswered(response, () => {
      const context = contextOf(response);
      if (!context.service) return;
      recorder.record({
        serviceId: context.service.id,
        at: Date.now(),
        latencyMs: performance.now() - context.startedAt,
        images: context.timings.decode === undefined ? 0 : 1,
        detections: context.objects ?? 0,
        errorCode: response.headersSent ? context.errorCode : 'client_closed_request',
      });
    });
    next();
  };
}
