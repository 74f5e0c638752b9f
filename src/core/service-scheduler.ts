import type { Service } from './service.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';
import type { ModelSchedulers } from '../scheduler/model-schedulers.js';
import { DetectdError } from './errors.js';
import type { ModelKind, ModelStep } from '../models/model-roles.js';
import type { ServedModel } from '../models/types.js';

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

/** The models a task composes beside its service's own (Task.models), as the running server serves them. */
export interface ComposedModels {
  /**
   * The scheduler of the model serving `step` (the first loaded of its role and kind); 503
   * `model_unavailable` with `remedy` when none is loaded. `Model`: what the step's role is (e.g. PlateReader).
   */
  schedulerOf<Model extends ServedModel>(step: ModelStep, remedy: string): ModelScheduler<Model>;
  /** Whether a model serving `step` is loaded (an optional step is skipped without one). */
  serves(step: ModelStep): boolean;
}

/** The composed models of a running server: its schedulers, the one way to every model. */
export function composedModels(schedulers: ModelSchedulers): ComposedModels {
  return {
    schedulerOf<Model extends ServedModel>(step: ModelStep, remedy: string): ModelScheduler<Model> {
      const scheduler = schedulers.forStep(step);
      if (!scheduler) throw new DetectdError('model_unavailable', `No ${step.role} of ${step.kind} is loaded: ${remedy}`);
      // The registry gave the first model of the step's role, which is what the step's role says it is.
      return scheduler as ModelScheduler<ServedModel> as ModelScheduler<Model>;
    },
    serves: (step) => schedulers.forStep(step) !== undefined,
  };
}
