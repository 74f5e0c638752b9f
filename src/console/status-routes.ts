import { Router } from 'express';
import { type ConsoleDependencies, csrfTokenOf, requireAdmin, requireSignIn, signedInAccount } from './console-context.js';
import { serverStatus } from './server-status.js';
import { statusPage } from './status-page.js';

/** The administrator's status page, `/console/status`. */
export function consoleStatusRoutes(dependencies: ConsoleDependencies): Router {
  const router = Router();
  router.get('/status', requireSignIn, requireAdmin, (_request, response) => {
    response.setHeader('Cache-Control', 'no-store');
    response.send(statusPage({ account: signedInAccount(response)!, csrfToken: csrfTokenOf(response), status: serverStatus(dependencies.status) }));
  });
  return router;
}
