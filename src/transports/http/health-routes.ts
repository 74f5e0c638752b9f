import type { Router } from 'express';
import type { Registry } from 'prom-client';
import type { StorageState } from '../../store/storage-health.js';
import { claimingRouter, type RouteLedger } from '../route-ledger.js';

export interface Readiness {
  /** The loaded models of every role: each one's name, role (`detector`, `reader`, …) and what it finds or makes (`objects`, `faces`, `plate-text`, …). */
  models(): readonly { readonly name: string; readonly role: string; readonly kind: string }[];
  databaseReachable(): Promise<boolean>;
  /** Whether the database answers and has room, as the last queries found it (`full`: reads work, writes are refused). */
  storage(): StorageState;
  /** Services this server cannot answer because their model is not loaded: named on /readyz, which stays ready for the others. */
  servicesWithoutModel(): Promise<readonly { readonly service: { readonly id: string; readonly name: string }; readonly model: string | null; readonly problem: string; readonly fix: string }[]>;
}

/**
 * `/healthz`: the process answers (through a database outage or a full disk too). `/readyz`: it can
 * serve everything (model loaded, database reachable, room to write), which models it serves, and
 * what is wrong with storage. `/metrics`: Prometheus text.
 */
export function healthRoutes(readiness: Readiness, metrics: Registry, ledger: RouteLedger): Router {
  const router = claimingRouter(ledger, 'the health checks');
  router.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  router.get('/readyz', async (_request, response) => {
    const models = readiness.models();
    const database = await readiness.databaseReachable();
    const withoutModel = database ? await readiness.servicesWithoutModel() : [];
    const storage = readiness.storage();
    const ready = models.length > 0 && database && storage.state === 'ok';
    response.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not_ready',
      models: models.map((model) => model.name),
      // What each does and finds, so that a client (the CLI) offers a service only detectors of its kind.
      model_kinds: Object.fromEntries(models.map((model) => [model.name, model.kind])),
      model_roles: Object.fromEntries(models.map((model) => [model.name, model.role])),
      database: database ? 'reachable' : 'unreachable',
      storage,
      services_without_model: withoutModel.map(({ service, model, problem, fix }) => ({ id: service.id, name: service.name, model, problem, fix })),
    });
  });
  router.get('/metrics', async (_request, response) => {
    response.type(metrics.contentType).send(await metrics.metrics());
  });
  return router;
}
