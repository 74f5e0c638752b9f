import fs from 'node:fs';
import path from 'node:path';
import type { Router } from 'express';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import type { StreamTokens } from '../../accounts/stream-tokens.js';
import { DetectdError } from '../../core/errors.js';
import type { Gate } from '../../gate/gate.js';
import { packageRoot } from '../../package-root.js';
import type { TaskTable } from '../../tasks/task-table.js';
import { contextOf } from '../request-context.js';
import { claimingRouter, type RouteLedger } from '../route-ledger.js';
import { streamPaths } from '../stream-paths.js';
import { allowOnly } from './allow-only.js';

/**
 * The HTTP side of every task's video streams: stream tokens for browsers (whose WebSocket cannot
 * send an Authorization header), a clear 426 for plain GETs of the JSON stream URL, and the demo page.
 * Each task's stream paths are claimed in `ledger` as its own: the JSON stream's upgrade is a GET.
 */
export function streamRoutes(gate: Gate, tasks: TaskTable, tokens: StreamTokens, ledger: RouteLedger): Router {
  const router = claimingRouter(ledger, 'the video streams');
  const demoPage = fs.readFileSync(path.join(packageRoot(), 'assets', 'stream-demo', 'stream-demo.html'), 'utf8');

  for (const task of tasks.all) {
    const paths = streamPaths(task.type);
    ledger.claim('GET', paths.json, `task ${task.type} (its JSON stream)`);
    router.post(paths.tokens, async (request, response) => {
      // The gate's first steps (who, service state): a token is no analysis, so it counts against no limit.
      const { service } = await gate.identify({ apiKey: apiKeyFromAuthorization(request.get('authorization')) }, task);
      contextOf(response).service = service;
      const { token, expiresAt } = await tokens.issue(service);
      response.status(201).set('Cache-Control', 'no-store').json({ token, expires_at: expiresAt.toISOString(), stream_path: paths.json });
    });
    allowOnly(router, paths.tokens, ['POST']);
    // WebSocket upgrades never get here (see transports/websocket-upgrade.ts); anything else is a client mistake.
    router.all(paths.json, () => {
      throw new DetectdError('upgrade_required', 'open this URL as a WebSocket; see docs/streams.md');
    });
  }
  router.get('/stream-demo', (_request, response) => {
    response.type('html').send(demoPage);
  });
  return router;
}
