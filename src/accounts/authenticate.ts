import { DetectdError } from '../core/errors.js';
import type { ServiceKeys } from './service-keys.js';
import type { Service } from '../core/service.js';
import type { Services } from './services.js';
import { withArticle } from '../indefinite-article.js';

/**
 * The service behind an API key, if it may be used for `serviceType`; otherwise a 401/403
 * DetectdError. Injected into every transport: each knows where its callers put the key, only
 * this knows what a key opens.
 */
export type Authenticate = (apiKey: string | undefined, serviceType: string) => Promise<Service>;

/**
 * The service a call without any key acts as, from the caller's address: only services that
 * turned keyless calls on for a range holding it (off by default); otherwise a 401 DetectdError.
 */
export type AuthenticateKeyless = (address: string, serviceType: string) => Promise<Service>;

/** A valid key of a service of another type than the route's: a 403, which a door serving one path for two tasks tells apart (DeepStack's custom route). */
export class ServiceOfAnotherType extends DetectdError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export function keylessAuthenticator(services: Services): AuthenticateKeyless {
  return async (address, serviceType) => {
    const service = await services.keylessServiceFor(address, serviceType);
    if (!service) throw new DetectdError('unauthorized', 'send the service\'s API key (calls without a key are not accepted from this address)');
    return service;
  };
}

export function keyAuthenticator(keys: ServiceKeys): Authenticate {
  return async (apiKey, serviceType) => {
    if (!apiKey) throw new DetectdError('unauthorized', 'send the service\'s API key as "Authorization: ApiKey <key>"');
    const service = await keys.authenticate(apiKey);
    if (!service) throw new DetectdError('unauthorized', 'the API key is unknown, expired or revoked');
    if (service.accountDisabled) throw new DetectdError('forbidden', `the account that owns service "${service.name}" is disabled`);
    if (service.disabled) throw new DetectdError('forbidden', `service "${service.name}" is disabled`);
    if (service.type !== serviceType) throw new ServiceOfAnotherType(`this key belongs to a service of type ${service.type}; this route needs a key of ${withArticle(serviceType)} service`);
    return service;
  };
}
