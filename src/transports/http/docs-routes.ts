import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { packageRoot } from '../../package-root.js';
import { baseUrlOf } from '../base-url.js';
import { pageSecurityHeaders } from '../page-security-headers.js';
import { routeLabel } from '../route-label.js';
import { claimingRouter, type RouteLedger } from '../route-ledger.js';

export interface DocsDependencies {
  /** The OpenAPI document for callers who reach this server at `serverUrl`. */
  readonly openApi: (serverUrl: string) => Record<string, unknown>;
  /** DETECTD_PUBLIC_URL: the base URL callers reach the server at, when it is not the request's own. */
  readonly publicUrl: string | undefined;
}

/** Swagger UI's files, from the installed package: detectd works offline, so never from a CDN. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** The two files the reference page loads; the package's other files (its demo page among them) are not served. */
const SWAGGER_UI_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css'];
const DOCS_ASSETS_DIR = path.join(packageRoot(), 'assets', 'docs');
const ASSET_MAX_AGE_SECONDS = 3600;

/**
 * Serves a Swagger UI file gzip'd to a browser that takes it: the bundle is megabytes as shipped, far
 * less compressed, which a phone feels. Compressed once, off the event loop, on its first request.
 */
function swaggerUiFile(file: string): RequestHandler {
  let compressed: Promise<Buffer> | undefined;
  return async (request: Request, response: Response) => {
    response.vary('Accept-Encoding');
    if (!request.acceptsEncodings('gzip')) return response.sendFile(file, { root: SWAGGER_UI_DIR, maxAge: ASSET_MAX_AGE_SECONDS * 1000 });
    compressed ??= fs
      .readFile(path.join(SWAGGER_UI_DIR, file))
      .then((bytes) => promisify(zlib.gzip)(bytes))
      .catch((error: unknown) => {
        compressed = undefined; // the next request tries again
        throw error;
      });
    response
      .type(path.extname(file))
      .set({ 'Content-Encoding': 'gzip', 'Cache-Control': `public, max-age=${ASSET_MAX_AGE_SECONDS}` })
      .send(await compressed);
  };
}


/**
 * The API reference: `/openapi.json` (its `servers` and examples aimed at the base URL the caller
 * reached) and `/docs`, an interactive reference (Swagger UI) generated from it, where a key and an
 * image can be tried.
 */
export function docsRoutes(dependencies: DocsDependencies, ledger: RouteLedger): Router {
  const router = claimingRouter(ledger, 'the API reference');
  router.get('/openapi.json', (request, response) => {
    response.json(dependencies.openApi(baseUrlOf(request, dependencies.publicUrl)));
  });
  router.get('/docs', pageSecurityHeaders, (_request, response) => {
    response.sendFile('docs.html', { root: DOCS_ASSETS_DIR });
  });
  router.use('/docs/assets', routeLabel('/docs/assets/*'), express.static(DOCS_ASSETS_DIR, { maxAge: ASSET_MAX_AGE_SECONDS * 1000, index: false }));
  for (const file of SWAGGER_UI_FILES) router.get(`/docs/swagger-ui/${file}`, swaggerUiFile(file));
  return router;
}
