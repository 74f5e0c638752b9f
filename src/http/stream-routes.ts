import fs from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import type { Authenticate } from '../accounts/authenticate.js';
import { DetectdError } from '../core/errors.js';
import { packageRoot } from '../package-root.js';
import { STREAM_PATH, STREAM_TOKENS_PATH } from '../stream/protocol.js';
import type { StreamTokens } from '../stream/stream-tokens.js';
import { requireApiKey } from '../transports/http/api-key-auth.js';
import { contextOf } from '../transports/request-context.js';

/**
 * The HTTP side of the video stream: stream tokens for browsers (whose WebSocket cannot send an
 * Authorization header), a clear 426 for plain GETs of the stream URL, and the demo page.
 */
export function streamRoutes(authenticate: Authenticate, tokens: StreamTokens): Router {
  const router = Router();
  const demoPage = fs.readFileSync(path.join(packageRoot(), 'assets', 'stream-demo', 'stream-demo.html'), 'utf8');

  router.post(STREAM_TOKENS_PATH, requireApiKey(authenticate, () => 'object-detection'), (_request, response) => {
    const { token, expiresAt } = tokens.issue(contextOf(response).service!);
    response.status(201).set('Cache-Control', 'no-store').json({ token, expires_at: expiresAt.toISOString(), stream_path: STREAM_PATH });
  });
  router.all(STREAM_TOKENS_PATH, () => {
    throw new DetectdError('method_not_allowed', 'use POST');
  });
  // WebSocket upgrades never get here (see stream/stream-endpoint.ts); anything else is a client mistake.
  router.all(STREAM_PATH, () => {
    throw new DetectdError('upgrade_required', 'open this URL as a WebSocket; see README "Video stream (WebSocket)"');
  });
  router.get('/stream-demo', (_request, response) => {
    response.type('html').send(demoPage);
  });
  return router;
}
