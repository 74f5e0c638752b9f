import { DetectdError } from '../core/errors.js';
import { LimitExceededError } from '../limits/service-limits.js';
import { rateLimitHeaders } from './rate-limit-headers.js';

/** The challenge of a 401: which scheme the API expects. */
const API_KEY_CHALLENGE = 'ApiKey realm="detectd"';

/** A failure the client caused, as our error; undefined for a bug. Express's router throws a URIError for a path parameter with a bad percent-escape. */
export function clientFailureOf(error: unknown): DetectdError | undefined {
  if (error instanceof DetectdError) return error;
  if (error instanceof URIError) return new DetectdError('invalid_path', 'the URL path has a malformed percent-escape');
  return undefined;
}

/** The headers HTTP adds to an error answer, shared by every front door that answers over HTTP (a 405's `Allow` is the refusing route's: it sets it). */
export function httpHeadersOf(error: DetectdError): Record<string, string> {
  // A refusal by a service's limit says where every limit stands, as a counted call's answer does.
  const headers: Record<string, string> = error instanceof LimitExceededError ? rateLimitHeaders(error.standings) : {};
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  if (error.code === 'unauthorized') headers['WWW-Authenticate'] = API_KEY_CHALLENGE;
  if (error.code === 'upgrade_required') headers.Upgrade = 'websocket';
  return headers;
}
