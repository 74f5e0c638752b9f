import type { RequestHandler } from 'express';
import type { CallRecorder } from '../../core/call-recorder.js';
import { contextOf } from '../request-context.js';
import { whenAnswered } from './when-answered.js';

/**
 * Hands every HTTP request to `CallRecorder.record` once it is answered or abandoned: one log line
 * (method, path without the query, status, bytes in — never headers, keys or image data),
 * metrics, and usage when its key reached a service.
 */
export function recordHttpCalls(recorder: CallRecorder): RequestHandler {
  return (request, response, next) => {
    whenAnswered(response, () => {
      recorder.record(contextOf(response), {
        transport: 'http',
        status: response.statusCode,
        abandoned: !response.headersSent,
        fields: { method: request.method, path: request.originalUrl.split('?')[0], bytes_in: Number(request.get('content-length') ?? 0) || undefined },
        logLevel: 'info',
      });
    });
    next();
  };
}
