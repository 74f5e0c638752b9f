import type { Request, RequestHandler, Response } from 'express';

/**
 * The route a request is counted under in /metrics: its matched Express route pattern, else the
 * label a middleware that answers without a route (static files, a router's own refusals) put on
 * it, else `unmatched`. Never the raw path: ids and typos would explode the label set.
 */
export function metricsRouteOf(request: Request, response: Response): string {
  if (request.route) return request.baseUrl + String(request.route.path);
  return (response.locals as { routeLabel?: string }).routeLabel ?? 'unmatched';
}

/** Labels the requests that reach this middleware as `pattern` (e.g. `/console/assets/*`) unless a route matches later. */
export function routeLabel(pattern: string): RequestHandler {
  return (_request, response, next) => {
    (response.locals as { routeLabel?: string }).routeLabel = pattern;
    next();
  };
}
