import type { Service } from './service.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';
import type { ModelSchedulers } from '../scheduler/model-schedulers.js';
import { DetectdError } from './errors.js';
import type { ModelKind } from '../models/types.js';

/**
 * The scheduler of the model a service answers with, a model that finds what its task finds; 503
 * `model_unavailable` when this server did not load it, never another model.
 */
export function schedulerOfService(schedulers: ModelSchedulers, service: Service, kind: ModelKind): ModelScheduler {
  const scheduler = schedulers.findOfKind(service.model, kind);
  if (!scheduler) {
    throw new DetectdError(
      'model_unavailable',
      service.model === null ? `this server has loaded no model that finds ${kind}` : `this service uses model "${service.model}", which this server has not loaded as a model that finds ${kind}`,
    );
  }
  return scheduler;
}
