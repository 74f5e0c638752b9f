import { Router } from 'express';
import type { TaskTable } from '../../tasks/task-table.js';
import { renderDocsPage } from './docs-page.js';

export function docsRoutes(openApi: Record<string, unknown>, tasks: TaskTable): Router {
  const router = Router();
  const page = renderDocsPage(openApi, tasks);
  router.get('/openapi.json', (_request, response) => {
    response.json(openApi);
  });
  router.get('/docs', (_request, response) => {
    response.type('html').send(page);
  });
  return router;
}
