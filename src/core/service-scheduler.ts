import type { Service } from './service.js';
import type { ModelScheduler, ModelTurn } from '../scheduler/model-scheduler.js';
import { type AnalysisLimits, schedulingFailure } from './pipeline.js';
import type { ModelSchedulers } from '../scheduler/model-schedulers.js';
import { DetectdError } from './errors.js';
import { type ModelStep, stepName } from '../models/model-step.js';
import type { RoleModel } from '../models/role-models.js';

/**
 * The scheduler of the model a service answers with, a model serving its task's lead step (any
 * role and kind); 503 `model_unavailable` when this server did not load it, never another model.
 */
export function schedulerOfService<Model extends RoleModel>(schedulers: ModelSchedulers, service: Service, lead: ModelStep<Model>): ModelScheduler<Model> {
  const scheduler = schedulers.forService(service.model, lead);
  if (!scheduler) {
    throw new DetectdError(
      'model_unavailable',
      service.model === null ? `this server has loaded no ${stepName(lead)}` : `this service uses model "${service.model}", which this server has not loaded as a ${stepName(lead)}`,
    );
  }
  return scheduler;
}

/** A call running a task's composed models: its deadline and limits, and whether it is a stream frame's (it holds a turn). */
export interface ComposedCall {
  readonly signal: AbortSignal;
  readonly limits: AnalysisLimits;
  readonly turn?: ModelTurn;
}

/** The models a task composes beside its service's own (Task.composes), as the running server serves them. */
export interface ComposedModels {
  /**
   * Runs `work` on the model serving `step` (the first loaded of its role and kind; typed by the
   * step, e.g. a PlateReader for `ModelStep<PlateReader>`) through its scheduler, in the call's
   * lane and within its deadline: 503 `model_unavailable` with the step's remedy when none is
   * loaded, and the scheduler's refusals as the pipeline's (`deadline_exceeded`, …).
   */
  run<Model extends RoleModel, Result>(step: ModelStep<Model>, call: ComposedCall, work: (model: Model, alone: boolean) => Promise<Result>): Promise<Result>;
  /** The model serving `step`, to read what it is (a reader's `regions`): 503 `model_unavailable` with the step's remedy when none is loaded. */
  model<Model extends RoleModel>(step: ModelStep<Model>): Model;
}

/** The composed models of a running server: its schedulers, the one way to every model. */
export function composedModels(schedulers: ModelSchedulers): ComposedModels {
  const schedulerOf = <Model extends RoleModel>(step: ModelStep<Model>): ModelScheduler<Model> => {
    const scheduler = schedulers.forStep(step);
    if (!scheduler) throw new DetectdError('model_unavailable', `No ${stepName(step)} is loaded${step.remedy ? `: ${step.remedy}` : ''}`);
    return scheduler;
  };
  return {
    async run(step, call, work) {
      const scheduler = schedulerOf(step);
      try {
        return await scheduler.run(call.turn ? 'stream' : 'request', call.signal, (alone) => work(scheduler.model, alone));
      } catch (error) {
        throw schedulingFailure(error, call.limits);
      }
    },
    model: (step) => schedulerOf(step).model,
  };
}
