import type { Response } from 'express';
import type { LimitStanding } from '../limits/service-limits.js';

/**
 * The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names each
 * limit (`q` calls per `w` seconds), `RateLimit` says where it stands (`r` remaining, `t` seconds
 * until it is whole again). As structured-field lists, one item per limit; none for a service without limits.
 */
export function rateLimitHeaders(standings: readonly LimitStanding[]): Record<string, string> {
  if (standings.length === 0) return {};
  return {
    'RateLimit-Policy': standings.map((standing) => `"${standing.policy}";q=${standing.quota};w=${standing.windowSeconds}`).join(', '),
    RateLimit: standings.map((standing) => `"${standing.policy}";r=${standing.remaining};t=${standing.resetSeconds}`).join(', '),
  };
}

/** Every answer of a limited service carries where its limits stand; a refusal's come with its error (http-errors.ts). */
export function setRateLimitHeaders(response: Response, standings: readonly LimitStanding[]): void {
  response.set(rateLimitHeaders(standings));
}
