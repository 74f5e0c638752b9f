import { Router } from 'express';
import { type ConsoleDependencies, csrfTokenOf, requireAdmin, requireSignIn, signedInAccount } from './console-context.js';
import { serverStatus } from './server-status.js';
import { statusPage } from './status-page.js';
import { servicesWithoutModel } from '../services-without-model.js';

/** The administrator's status page, `/console/status`. */
export function consoleStatusRoutes(dependencies: ConsoleDependencies): Router {
  const router = Router();
  router.get('/status', requireSignIn, requireAdmin, async (_request, response) => {
    response.setHeader('Cache-Control', 'no-store');
    const withoutModel = servicesWithoutModel(await dependencies.services.listAll(), dependencies.tasks, dependencies.models);
    response.send(statusPage({ account: signedInAccount(response)!, csrfToken: csrfTokenOf(response), status: serverStatus(dependencies.status), servicesWithoutModel: withoutModel }));
  });
  return router;
}
