import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS, NO_ERROR_CODE } from '../../core/call-metrics.js';
import { contextOf } from '../request-context.js';
import { metricsRouteOf } from '../route-label.js';
import { whenAnswered } from './when-answered.js';

/** Prometheus metrics that only HTTP has: requests by matched route pattern, their latency, requests in flight. */
export function httpMetrics(registry: Registry): RequestHandler {
  const requests = new Counter({
    name: 'detectd_http_requests_total',
    help: 'HTTP requests answered, by route, status and error code ("none" for an answer without one)',
    labelNames: ['route', 'status', 'code'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'detectd_http_request_duration_seconds',
    help: 'Time from request arrival to the response being sent, by route',
    labelNames: ['route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const inFlight = new Gauge({ name: 'detectd_http_requests_in_flight', help: 'HTTP requests being handled now', registers: [registry] });
  return (request, response, next) => {
    inFlight.inc();
    whenAnswered(response, () => {
      inFlight.dec();
      const context = contextOf(response);
      const route = metricsRouteOf(request, response);
      requests.inc({ route, status: response.headersSent ? response.statusCode : 499, code: context.errorCode ?? NO_ERROR_CODE });
      duration.observe({ route }, (performance.now() - context.startedAt) / 1000);
    });
    next();
  };
}
