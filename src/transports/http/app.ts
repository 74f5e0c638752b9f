import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { ServiceKeys } from '../../accounts/service-keys.js';
import { ApiError } from '../../core/errors.js';
import type { ObjectDetectionDependencies } from '../../tasks/object-detection/run.js';
import type { StreamTokens } from '../../stream/stream-tokens.js';
import type { UsageRecorder } from '../../usage/usage-recorder.js';
import type { ConsoleDependencies } from '../../console/console-context.js';
import { consoleRoutes } from '../../console/console-routes.js';
import { detectionRoutes } from './detection-routes.js';
import { docsRoutes } from './docs-routes.js';
import { errorHandler } from './error-handler.js';
import { healthRoutes, type Readiness } from './health-routes.js';
import { ServiceMetrics } from './metrics.js';
import { requestId } from './request-id.js';
import { requestLog } from './request-log.js';
import { streamRoutes } from '../../http/stream-routes.js';
import { usageRecording } from './usage-recording.js';

export interface AppDependencies {
  readonly logger: Logger;
  readonly keys: ServiceKeys;
  readonly detection: ObjectDetectionDependencies;
  readonly streamTokens: StreamTokens;
  readonly readiness: Readiness;
  readonly openApi: Record<string, unknown>;
  readonly console: ConsoleDependencies;
  readonly usage: UsageRecorder;
  /** Express `trust proxy`: which proxies' X-Forwarded-* headers give the client's address and scheme. */
  readonly trustProxy: number | string | undefined;
}

export function createApp(dependencies: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (dependencies.trustProxy !== undefined) app.set('trust proxy', dependencies.trustProxy);
  const metrics = new ServiceMetrics();
  app.use(requestId, requestLog(dependencies.logger), metrics.recording);
  app.use(healthRoutes(dependencies.readiness), metrics.routes());
  app.use(docsRoutes(dependencies.openApi));
  app.use(consoleRoutes(dependencies.console, dependencies.logger));
  app.use(streamRoutes(dependencies.keys, dependencies.streamTokens));
  app.use(usageRecording(dependencies.usage));
  app.use(detectionRoutes(dependencies.keys, dependencies.detection));
  app.use(() => {
    throw new ApiError('not_found', 'no such route; see /docs');
  });
  app.use(errorHandler(dependencies.logger));
  return app;
}
