import type { RequestHandler, Response } from 'express';
import { type LimitStanding, LimitExceededError, type ServiceLimits } from '../limits/service-limits.js';
import { contextOf } from './request-context.js';

/**
 * The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names each
 * limit (`q` calls per `w` seconds), `RateLimit` says where it stands (`r` remaining, `t` seconds
 * until it is whole again). As structured-field lists, one item per limit.
 */
function rateLimitHeaders(standings: readonly LimitStanding[]): Record<string, string> {
  if (standings.length === 0) return {};
  return {
    'RateLimit-Policy': standings.map((standing) => `"${standing.policy}";q=${standing.quota};w=${standing.windowSeconds}`).join(', '),
    RateLimit: standings.map((standing) => `"${standing.policy}";r=${standing.remaining};t=${standing.resetSeconds}`).join(', '),
  };
}

const setHeaders = (response: Response, standings: readonly LimitStanding[]) => response.set(rateLimitHeaders(standings));

/**
 * Counts the authenticated call against its service's rate limit and quota; a refusal is the 429
 * of `LimitExceededError`, and every answer of a limited service carries the RateLimit headers.
 */
export async function countAgainstServiceLimits(limits: Pick<ServiceLimits, 'admit'>, response: Response): Promise<void> {
  try {
    setHeaders(response, await limits.admit(contextOf(response).service!));
  } catch (error) {
    if (error instanceof LimitExceededError) setHeaders(response, error.standings);
    throw error;
  }
}

/** countAgainstServiceLimits as middleware, after authentication and before the body is read. */
export function enforceServiceLimits(limits: Pick<ServiceLimits, 'admit'>): RequestHandler {
  return async (_request, response, next) => {
    await countAgainstServiceLimits(limits, response);
    next();
  };
}
