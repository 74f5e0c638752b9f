import type { Service } from './service.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';
import type { ModelSchedulers } from '../scheduler/model-schedulers.js';
import { DetectdError } from './errors.js';

/** The scheduler of the model a service answers with; 503 `model_unavailable` when this server did not load it, never another model. */
export function schedulerOfService(schedulers: ModelSchedulers, service: Service): ModelScheduler {
  const scheduler = schedulers.find(service.model);
  if (!scheduler) throw new DetectdError('model_unavailable', `this service uses model "${service.model}", which this server has not loaded`);
  return scheduler;
}
