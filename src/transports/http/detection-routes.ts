import express, { type Request, type RequestHandler, Router } from 'express';
import type { ServiceKeys } from '../../accounts/service-keys.js';
import { isServiceType, type ServiceType } from '../../accounts/services.js';
import type { ApiVersion } from '../../tasks/object-detection/parameters.js';
import { ApiError } from '../../core/errors.js';
import { detectObjects, type ObjectDetectionDependencies } from '../../tasks/object-detection/run.js';
import { requireApiKey } from './api-key-auth.js';
import { contextOf } from './request-context.js';

const JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const ROUTES: readonly { path: string; version: ApiVersion }[] = [
  { path: '/api/v1/:serviceType', version: 'v1' },
  { path: '/api/:serviceType', version: 'legacy' },
];

const serviceTypeOf = (request: Request) => request.params.serviceType as ServiceType;

const knownServiceType: RequestHandler = (request, _response, next) => {
  const type = String(request.params.serviceType);
  if (!isServiceType(type)) throw new ApiError('unknown_service', `no service type "${type}"; use object-detection`);
  next();
};

const jsonContentType: RequestHandler = (request, _response, next) => {
  if (!JSON_CONTENT_TYPE.test(request.get('content-type') ?? '')) {
    throw new ApiError('unsupported_media_type', 'send the body as Content-Type: application/json (UTF-8)');
  }
  next();
};

/**
 * Bounds the requests inside the decode → model pipeline. Admission happens before the body is
 * read, so a flood costs neither memory nor CPU: excess requests get 503 at once.
 */
function admission(maxPending: number): RequestHandler {
  let inFlight = 0;
  return (_request, response, next) => {
    if (inFlight >= maxPending) {
      throw new ApiError('overloaded', `the server is busy (${maxPending} requests in flight); retry shortly`, { 'Retry-After': '1' });
    }
    inFlight++;
    response.once('close', () => inFlight--);
    next();
  };
}

export function detectionRoutes(keys: ServiceKeys, dependencies: ObjectDetectionDependencies): Router {
  const router = Router();
  const { limits } = dependencies;
  const parseJson = express.json({ limit: limits.maxBodyBytes, strict: false, type: () => true });
  const admit = admission(limits.maxPendingRequests);
  const authenticate = requireApiKey(keys, serviceTypeOf);

  for (const { path, version } of ROUTES) {
    router.post(path, knownServiceType, authenticate, jsonContentType, admit, parseJson, async (request, response) => {
      const context = contextOf(response);
      // The deadline, and a caller who hung up, both stop the wait for the model.
      const disconnected = new AbortController();
      response.once('close', () => disconnected.abort());
      const signal = AbortSignal.any([AbortSignal.timeout(limits.requestTimeoutMs), disconnected.signal]);
      const result = await detectObjects(request.body, version, context.service!, dependencies, signal, context);
      response.json(result);
    });
    router.all(path, knownServiceType, () => {
      throw new ApiError('method_not_allowed', 'use POST', { Allow: 'POST' });
    });
  }
  return router;
}
