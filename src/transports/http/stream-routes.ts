import fs from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import type { Authenticate } from '../../accounts/authenticate.js';
import type { StreamTokens } from '../../accounts/stream-tokens.js';
import { DetectdError } from '../../core/errors.js';
import { packageRoot } from '../../package-root.js';
import { STREAM_PATHS } from '../stream-paths.js';
import { requireApiKey } from './api-key-auth.js';
import { contextOf } from '../request-context.js';

/**
 * The HTTP side of the video streams: stream tokens for browsers (whose WebSocket cannot send an
 * Authorization header), a clear 426 for plain GETs of the JSON stream URL, and the demo page.
 */
export function streamRoutes(authenticate: Authenticate, tokens: StreamTokens): Router {
  const router = Router();
  const demoPage = fs.readFileSync(path.join(packageRoot(), 'assets', 'stream-demo', 'stream-demo.html'), 'utf8');

  router.post(STREAM_PATHS.tokens, requireApiKey(authenticate, () => 'object-detection'), async (_request, response) => {
    const { token, expiresAt } = await tokens.issue(contextOf(response).service!);
    response.status(201).set('Cache-Control', 'no-store').json({ token, expires_at: expiresAt.toISOString(), stream_path: STREAM_PATHS.json });
  });
  router.all(STREAM_PATHS.tokens, () => {
    throw new DetectdError('method_not_allowed', 'use POST');
  });
  // WebSocket upgrades never get here (see transports/websocket-upgrade.ts); anything else is a client mistake.
  router.all(STREAM_PATHS.json, () => {
    throw new DetectdError('upgrade_required', 'open this URL as a WebSocket; see README "Video stream (WebSocket)"');
  });
  router.get('/stream-demo', (_request, response) => {
    response.type('html').send(demoPage);
  });
  return router;
}
