import type { RequestHandler } from 'express';
import { apiKeyFromAuthorization } from '../accounts/api-keys.js';
import type { ServiceKeys } from '../accounts/service-keys.js';
import type { ServiceType } from '../accounts/services.js';
import { ApiError } from '../api/errors.js';
import { contextOf } from './request-context.js';

const CHALLENGE = { 'WWW-Authenticate': 'ApiKey realm="detectd"' };

/**
 * Resolves `Authorization: ApiKey <key>` (or `Bearer <key>`) to its service before anything
 * reads the body, so an unauthenticated request costs neither bandwidth nor model time.
 */
export function requireApiKey(keys: ServiceKeys, serviceTypeOf: (request: Parameters<RequestHandler>[0]) => ServiceType): RequestHandler {
  return async (request, response, next) => {
    const key = apiKeyFromAuthorization(request.get('authorization'));
    if (!key) throw new ApiError('unauthorized', 'send the service\'s API key as "Authorization: ApiKey <key>"', CHALLENGE);
    const service = await keys.authenticate(key);
    if (!service) throw new ApiError('unauthorized', 'the API key is unknown, expired or revoked', CHALLENGE);
    if (service.disabled) throw new ApiError('forbidden', `service "${service.name}" is disabled`);
    const wanted = serviceTypeOf(request);
    if (service.type !== wanted) throw new ApiError('forbidden', `this key belongs to a ${service.type} service, not ${wanted}`);
    contextOf(response).service = service;
    next();
  };
}
