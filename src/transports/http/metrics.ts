import { type RequestHandler, Router } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { contextOf } from './request-context.js';
import { whenAnswered } from './when-answered.js';

/** Seconds; from a fast model's inference (~10 ms) to a slow request (~10 s). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Prometheus metrics of one server, in a registry of its own (no process-wide singletons, so
 * several servers in one process — the tests — keep separate counts).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({
    name: 'detectd_http_requests_total',
    help: 'HTTP requests answered, by route, status and error code',
    labelNames: ['route', 'status', 'code'] as const,
    registers: [this.registry],
  });
  readonly #duration = new Histogram({
    name: 'detectd_http_request_duration_seconds',
    help: 'Time from request arrival to the response being sent, by route',
    labelNames: ['route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #stages = new Histogram({
    name: 'detectd_detection_stage_seconds',
    help: 'Time per detection pipeline stage (decode, preprocess, inference, postprocess, encode), by model',
    labelNames: ['stage', 'model'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #objects = new Counter({
    name: 'detectd_detected_objects_total',
    help: 'Objects returned, by model',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });
  readonly #inFlight = new Gauge({
    name: 'detectd_http_requests_in_flight',
    help: 'HTTP requests being handled now',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'detectd_' });
  }

  /** Middleware counting every request once it is answered. */
  readonly recording: RequestHandler = (request, response, next) => {
    this.#inFlight.inc();
    whenAnswered(response, () => {
      this.#inFlight.dec();
      const context = contextOf(response);
      // The matched route pattern (never the raw path: ids and typos would explode the label set).
      const route = request.route ? request.baseUrl + String(request.route.path) : 'unmatched';
      this.#requests.inc({ route, status: response.headersSent ? response.statusCode : 499, code: context.errorCode ?? '' });
      this.#duration.observe({ route }, (performance.now() - context.startedAt) / 1000);
      if (context.model) {
        for (const [stage, ms] of Object.entries(context.timings)) this.#stages.observe({ stage, model: context.model }, ms / 1000);
        this.#objects.inc({ model: context.model }, context.objects ?? 0);
      }
    });
    next();
  };

  routes(): Router {
    return Router().get('/metrics', async (_request, response) => {
      response.type(this.registry.contentType).send(await this.registry.metrics());
    });
  }
}
