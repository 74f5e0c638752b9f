import type { RequestHandler } from 'express';
import { withoutApiKeys } from '../../accounts/api-keys.js';
import type { CallRecorder } from '../../core/call-recorder.js';
import { contextOf } from '../request-context.js';
import { whenAnswered } from './when-answered.js';

/** A path longer than this (a probe, a typo) is cut in the status page's list. */
const MAX_PLACE_PATH = 120;

/**
 * Hands every HTTP request to `CallRecorder.record` once it is answered or abandoned: one log line
 * (method, path without the query, status, bytes in — never headers, keys or image data: a key
 * in the path, as CompreFace's static image URL sends it, is cut), metrics, and usage when its
 * key reached a service.
 */
export function recordHttpCalls(recorder: CallRecorder): RequestHandler {
  return (request, response, next) => {
    whenAnswered(response, () => {
      const path = withoutApiKeys(request.originalUrl.split('?')[0]);
      recorder.record(contextOf(response), {
        transport: 'http',
        status: response.statusCode,
        abandoned: !response.headersSent,
        fields: { method: request.method, path, bytes_in: Number(request.get('content-length') ?? 0) || undefined },
        logLevel: 'info',
        place: `${request.method} ${path.length > MAX_PLACE_PATH ? `${path.slice(0, MAX_PLACE_PATH)}…` : path}`,
      });
    });
    next();
  };
}
