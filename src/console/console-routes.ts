import path from 'node:path';
import express, { type ErrorRequestHandler, type Request, Router } from 'express';
import type { Logger } from 'pino';
import type { ErrorCatalogue } from '../core/error-catalogue.js';
import { DetectdError } from '../core/errors.js';
import { httpHeadersOf } from '../transports/http-errors.js';
import { errorPage } from './error-page.js';
import { packageRoot } from '../package-root.js';
import { consoleAuthRoutes } from './auth-routes.js';
import { type ConsoleDependencies, loadSession, signedInAccount } from './console-context.js';
import { consoleServiceRoutes } from './service-routes.js';
import { consoleInvitationRoutes } from './invitation-routes.js';
import { consoleAccountRoutes } from './account-routes.js';
import { consoleStatusRoutes } from './status-routes.js';
import { csrfProtection } from './csrf.js';
import { clientFailureOf } from '../transports/http-errors.js';
import { closeAfterEarlyAnswer } from '../transports/early-answer.js';
import { formBody } from './form-body.js';
import { contextOf } from '../transports/request-context.js';
import { pageSecurityHeaders } from '../transports/page-security-headers.js';
import { routeLabel } from '../transports/route-label.js';
import { claimingRouter, type RouteLedger } from '../transports/route-ledger.js';


const TITLES: Partial<Record<number, string>> = { 400: 'Bad request', 403: 'Not allowed', 404: 'Page not found', 408: 'Too slow', 413: 'Too much data', 415: 'Not accepted', 503: 'Try again shortly', 507: 'Disk full' };

/** Console failures as pages (or JSON for the page's own scripts); only real bugs are logged, never with request data. */
function consoleErrors(logger: Logger, errors: ErrorCatalogue): ErrorRequestHandler {
  return (error: unknown, request, response, _next) => {
    const known = clientFailureOf(error);
    const requestId = contextOf(response).requestId;
    if (!known) logger.error({ request_id: requestId, err: error }, 'console error');
    if (response.headersSent) return response.destroy();
    closeAfterEarlyAnswer(request, response);
    const status = known ? errors.status(known.code) : 500;
    contextOf(response).errorCode = known?.code ?? 'internal_error';
    if (known) response.set(httpHeadersOf(known));
    if (request.accepts(['html', 'json']) === 'json') {
      return response.status(status).json({ error: { code: known?.code ?? 'internal_error', message: known?.message ?? 'internal error', request_id: requestId } });
    }
    response.status(status).send(
      errorPage({
        title: TITLES[status] ?? 'Something went wrong',
        message: known?.message ?? 'The console hit an unexpected problem. Please try again; if it persists, quote the request id below.',
        csrfToken: (response.locals.csrfToken as string | undefined) ?? '',
        account: signedInAccount(response),
        requestId,
        backTo: consolePageBefore(request),
      }),
    );
  };
}

/** The console page (path and query) this request came from, by its Referer on this same host; undefined for any other. */
function consolePageBefore(request: Request): string | undefined {
  const referer = request.get('referer');
  if (!referer || !URL.canParse(referer)) return undefined;
  const from = new URL(referer);
  const samePage = from.pathname === request.originalUrl.split('?')[0] && request.method === 'GET';
  return from.host === request.get('host') && from.pathname.startsWith('/console/') && !samePage ? from.pathname + from.search : undefined;
}

/** The web console under /console: static assets, then pages behind CSRF protection and sessions; it claims every path under /console in `ledger`. */
export function consoleRoutes(dependencies: ConsoleDependencies, logger: Logger, ledger: RouteLedger): Router {
  const pages = Router();
  pages.use('/assets', routeLabel('/console/assets/*'), express.static(path.join(packageRoot(), 'assets', 'console'), { maxAge: '1h' }));
  for (const { name, folder } of dependencies.consoleAssets) pages.use(`/assets/${name}`, express.static(folder, { maxAge: '1h' }));
  // A page refused before its route (CSRF, a form body too large) is still the console's.
  pages.use(routeLabel('/console/*'));
  pages.use(pageSecurityHeaders);
  pages.use(formBody(dependencies.bodyTimeoutMs, dependencies.uploads));
  pages.use(csrfProtection(dependencies.secret));
  pages.use(loadSession(dependencies.sessions));
  pages.use(consoleAuthRoutes(dependencies));
  pages.use(consoleServiceRoutes(dependencies));
  pages.use(consoleInvitationRoutes(dependencies));
  pages.use(consoleAccountRoutes(dependencies));
  pages.use(consoleStatusRoutes(dependencies));
  pages.use(() => {
    throw new DetectdError('not_found', 'There is no such page in the console.');
  });
  pages.use(consoleErrors(logger, dependencies.errors));
  // The server's own address is the console's front door (the API lives under /api, /v1 and /docs).
  return claimingRouter(ledger, 'the console')
    .get('/', (_request, response) => response.redirect(303, '/console'))
    .use('/console', pages);
}
