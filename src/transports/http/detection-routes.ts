import { Router } from 'express';
import type { Gate } from '../../gate/gate.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import type { TaskTable } from '../../tasks/task-table.js';
import type { ApiVersion } from '../../tasks/task.js';
import { answerRestCall } from './rest-call.js';
import { passRestCall } from './rest-body.js';
import { sendJson } from './send-json.js';
import { allowOnly } from './allow-only.js';
import type { RouteLedger } from '../route-ledger.js';

const ROUTES: readonly { path: string; version: ApiVersion }[] = [
  { path: '/api/v1/:serviceType', version: 'v1' },
  { path: '/api/:serviceType', version: 'legacy' },
];

export interface DetectionRouteDependencies {
  readonly gate: Gate;
  readonly tasks: TaskTable;
  /** Each task's request schema checks its JSON bodies and upload fields. */
  readonly schemas: SchemaCatalogue;
  /** The body limit, for the multipart parser's own count. */
  readonly maxBodyBytes: number;
}

/**
 * `POST /api/v1/<task>` and `POST /api/<task>` for every task in the task table, each call through
 * the gate; each task's two paths are claimed in `ledger` as the task's.
 */
export function detectionRoutes(dependencies: DetectionRouteDependencies, ledger: RouteLedger): Router {
  const router = Router();
  const { gate, tasks, schemas, maxBodyBytes } = dependencies;
  for (const { path, version } of ROUTES) {
    for (const task of tasks.all) ledger.claim('POST', path.replace(':serviceType', task.type), `task ${task.type}`);
    router.post(path, async (request, response) => {
      const task = tasks.named(String(request.params.serviceType));
      const { body, call } = await passRestCall(gate, request, response, task, maxBodyBytes);
      await sendJson(response, await answerRestCall(task, body, { version, schemas }, call));
    });
    allowOnly(router, path, ['POST'], (request) => tasks.named(String(request.params.serviceType)));
  }
  return router;
}
