import { Router } from 'express';
import type { Registry } from 'prom-client';

export interface Readiness {
  /** Names of the loaded models. */
  models(): string[];
  databaseReachable(): Promise<boolean>;
}

/**
 * `/healthz`: the process answers. `/readyz`: it can serve detections (model loaded, database
 * reachable). `/metrics`: Prometheus text.
 */
export function healthRoutes(readiness: Readiness, metrics: Registry): Router {
  const router = Router();
  router.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  router.get('/readyz', async (_request, response) => {
    const models = readiness.models();
    const database = await readiness.databaseReachable();
    const ready = models.length > 0 && database;
    response.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', models, database: database ? 'reachable' : 'unreachable' });
  });
  router.get('/metrics', async (_request, response) => {
    response.type(metrics.contentType).send(await metrics.metrics());
  });
  return router;
}
