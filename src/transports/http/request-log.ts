import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { contextOf } from './request-context.js';
import { whenAnswered } from './when-answered.js';

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * One structured line per request once it is answered (or abandoned): never headers, keys,
 * query strings or image data — only what operators need to follow a request.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (request, response, next) => {
    whenAnswered(response, () => {
      const context = contextOf(response);
      const timings = Object.fromEntries(Object.entries(context.timings).map(([stage, ms]) => [stage, round(ms)]));
      const entry = {
        request_id: context.requestId,
        method: request.method,
        path: request.originalUrl.split('?')[0],
        status: response.headersSent ? response.statusCode : 499,
        code: context.errorCode,
        duration_ms: round(performance.now() - context.startedAt),
        timings_ms: Object.keys(timings).length ? timings : undefined,
        service_id: context.service?.id,
        model: context.model,
        objects: context.objects,
        bytes_in: Number(request.get('content-length') ?? 0) || undefined,
      };
      if (entry.status >= 500) logger.error(entry, 'request failed');
      else logger.info(entry, 'request');
    });
    next();
  };
}
