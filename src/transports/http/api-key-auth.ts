import type { RequestHandler } from 'express';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import type { Authenticate } from '../../accounts/authenticate.js';
import { contextOf } from '../request-context.js';

/**
 * Resolves the API key in `Authorization` to its service before anything reads the body, so an
 * unauthenticated request costs neither bandwidth nor model time.
 */
export function requireApiKey(authenticate: Authenticate, serviceTypeOf: (request: Parameters<RequestHandler>[0]) => string): RequestHandler {
  return async (request, response, next) => {
    contextOf(response).service = await authenticate(apiKeyFromAuthorization(request.get('authorization')), serviceTypeOf(request));
    next();
  };
}
