import type { Request, RequestHandler, Response } from 'express';
import type { AccountDomain } from '../accounts/account-domain.js';
import type { Account } from '../accounts/accounts.js';
import type { ServiceLimits } from '../limits/service-limits.js';
import type { ModelRegistry } from '../models/registry.js';
import type { UploadBudget } from '../gate/upload-budget.js';
import type { UsageStore } from '../usage/usage-store.js';
import type { ErrorCatalogue } from '../core/error-catalogue.js';
import { DetectdError } from '../core/errors.js';
import { readCookie } from './cookies.js';
import type { StatusSources } from './server-status.js';
import type { TaskTable } from '../tasks/task-table.js';
import type { DeepStackRoute } from '../transports/deepstack/deepstack-route-table.js';
import type { ConsoleAssets, ServiceCard } from './service-card.js';

/** What the console's routes work with; built once in the composition root. */
export interface ConsoleDependencies extends AccountDomain {
  readonly usage: UsageStore;
  readonly serviceLimits: Pick<ServiceLimits, 'callsThisMonth'>;
  readonly models: Pick<ModelRegistry, 'models' | 'defaultModel' | 'defaultOf' | 'find'>;
  /** The tasks a service may be of: the table every front door serves. */
  readonly tasks: TaskTable;
  /** The DeepStack door's routes (its route table), whose paths a service's overview lists. */
  readonly deepStackRoutes: readonly DeepStackRoute[];
  /** The cards the features add to their services' overview pages. */
  readonly cards: readonly ServiceCard[];
  /** The features' scripts and stylesheets of those cards. */
  readonly consoleAssets: readonly ConsoleAssets[];
  /** Every error code with its status: the core's and the features' (a card's routes may throw theirs). */
  readonly errors: ErrorCatalogue;
  /** Server secret: keys the CSRF tokens. */
  readonly secret: string;
  readonly keyRotationGraceSeconds: number;
  /** Lifetime of the stream token the overview page gets for the live-video demo. */
  readonly streamTokenSeconds: number;
  readonly publicUrl: string | undefined;
  /** A posted form must arrive within this long. */
  readonly bodyTimeoutMs: number;
  /** The server's budget of request-body bytes, shared with the API. */
  readonly uploads: UploadBudget;
  /** What the administrator's status page reads. */
  readonly status: StatusSources;
}

export const SESSION_COOKIE = 'detectd_session';

/** The signed-in account of this request (set by `loadSession`), if any. */
export function signedInAccount(response: Response): Account | undefined {
  return response.locals.account as Account | undefined;
}

export function csrfTokenOf(response: Response): string {
  return response.locals.csrfToken as string;
}

/** Resolves the session cookie to its account, for every console request. */
export function loadSession(sessions: AccountDomain['sessions']): RequestHandler {
  return async (request, response, next) => {
    const token = readCookie(request, SESSION_COOKIE);
    if (token) response.locals.account = await sessions.account(token);
    next();
  };
}

/** Sends visitors who are not signed in to the sign-in page. */
export const requireSignIn: RequestHandler = (_request, response, next) => {
  if (signedInAccount(response)) return next();
  response.redirect(303, '/console/sign-in');
};

/** Lets only the administrator through; anyone else is told the page is not theirs. */
export const requireAdmin: RequestHandler = (_request, response, next) => {
  if (signedInAccount(response)?.role === 'admin') return next();
  throw new DetectdError('forbidden', 'Only the administrator of this server can do this.');
};

/** A string form field; anything else (absent, repeated, nested) reads as empty. */
export function formField(request: Request, name: string): string {
  const value = (request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}
