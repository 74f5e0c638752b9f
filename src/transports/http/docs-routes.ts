import { Router } from 'express';
import { renderDocsPage } from './docs-page.js';

export function docsRoutes(openApi: Record<string, unknown>): Router {
  const router = Router();
  const page = renderDocsPage(openApi);
  router.get('/openapi.json', (_request, response) => {
    response.json(openApi);
  });
  router.get('/docs', (_request, response) => {
    response.type('html').send(page);
  });
  return router;
}
