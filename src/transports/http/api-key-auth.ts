import type { RequestHandler } from 'express';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import type { ServiceKeys } from '../../accounts/service-keys.js';
import type { Service, ServiceType } from '../../accounts/services.js';
import { ApiError } from '../../core/errors.js';
import { contextOf } from './request-context.js';

export const API_KEY_CHALLENGE = { 'WWW-Authenticate': 'ApiKey realm="detectd"' };

/** The service behind `Authorization: ApiKey <key>` (or `Bearer <key>`), if it may use `wanted`; otherwise a 401/403 ApiError. */
export async function authenticateService(keys: ServiceKeys, authorization: string | undefined, wanted: ServiceType): Promise<Service> {
  const key = apiKeyFromAuthorization(authorization);
  if (!key) throw new ApiError('unauthorized', 'send the service\'s API key as "Authorization: ApiKey <key>"', API_KEY_CHALLENGE);
  const service = await keys.authenticate(key);
  if (!service) throw new ApiError('unauthorized', 'the API key is unknown, expired or revoked', API_KEY_CHALLENGE);
  if (service.disabled) throw new ApiError('forbidden', `service "${service.name}" is disabled`);
  if (service.type !== wanted) throw new ApiError('forbidden', `this key belongs to a ${service.type} service, not ${wanted}`);
  return service;
}

/**
 * Resolves the API key to its service before anything reads the body, so an unauthenticated
 * request costs neither bandwidth nor model time.
 */
export function requireApiKey(keys: ServiceKeys, serviceTypeOf: (request: Parameters<RequestHandler>[0]) => ServiceType): RequestHandler {
  return async (request, response, next) => {
    contextOf(response).service = await authenticateService(keys, request.get('authorization'), serviceTypeOf(request));
    next();
  };
}
