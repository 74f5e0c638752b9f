import express, { type Express, type Router } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ErrorCatalogue } from '../../core/error-catalogue.js';
import { DetectdError } from '../../core/errors.js';
import type { CallRecorder } from '../../core/call-recorder.js';
import { type DetectionRouteDependencies, detectionRoutes } from './detection-routes.js';
import { type DocsDependencies, docsRoutes } from './docs-routes.js';
import { errorHandler } from './error-handler.js';
import { healthRoutes, type Readiness } from './health-routes.js';
import { httpMetrics } from './http-metrics.js';
import { checkRequestHead } from './http-server.js';
import { recordHttpCalls } from './record-http-calls.js';
import type { RouteLedger } from '../route-ledger.js';
import { requestId } from './request-id.js';

export interface AppDependencies {
  readonly logger: Logger;
  /** Every error code with its status: the core's and the features'. */
  readonly errors: ErrorCatalogue;
  readonly detection: DetectionRouteDependencies;
  /** Routers of other front doors that answer over this HTTP server (the video stream's token and demo routes, …), mounted before the API routes. */
  readonly frontDoors: readonly Router[];
  readonly readiness: Readiness;
  /** The API reference: /openapi.json and /docs. */
  readonly docs: DocsDependencies;
  readonly calls: CallRecorder;
  /** The process's Prometheus registry, served at /metrics. */
  readonly metrics: Registry;
  /** Express `trust proxy`: which proxies' X-Forwarded-* headers give the client's address and scheme. */
  readonly trustProxy: number | string | undefined;
  /** The server's route ledger, which its own routes are claimed in beside every other door's. */
  readonly routes: RouteLedger;
}

export function createApp(dependencies: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (dependencies.trustProxy !== undefined) app.set('trust proxy', dependencies.trustProxy);
  app.use(requestId, recordHttpCalls(dependencies.calls), httpMetrics(dependencies.metrics), (request, _response, next) => {
    checkRequestHead(request);
    next();
  });
  app.use(healthRoutes(dependencies.readiness, dependencies.metrics, dependencies.routes));
  app.use(docsRoutes(dependencies.docs, dependencies.routes));
  for (const router of dependencies.frontDoors) app.use(router);
  app.use(detectionRoutes(dependencies.detection, dependencies.routes));
  app.use(() => {
    throw new DetectdError('not_found', 'no such route; see /docs');
  });
  app.use(errorHandler(dependencies.logger, dependencies.errors));
  return app;
}
