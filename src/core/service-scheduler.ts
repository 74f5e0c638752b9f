import type { Service } from './service.js';
import type { ModelScheduler, ModelTurn } from '../scheduler/model-scheduler.js';
import { type AnalysisLimits, schedulingFailure } from './pipeline.js';
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

/** A call running a task's composed models: its deadline and limits, and whether it is a stream frame's (it holds a turn). */
export interface ComposedCall {
  readonly signal: AbortSignal;
  readonly limits: AnalysisLimits;
  readonly turn?: ModelTurn;
}

/** The models a task composes beside its service's own (Task.models), as the running server serves them. */
export interface ComposedModels {
  /**
   * Runs `work` on the model serving `step` (the first loaded of its role and kind; `Model`: what
   * the step's role is, e.g. PlateReader) through its scheduler, in the call's lane and within its
   * deadline: 503 `model_unavailable` with the step's remedy when none is loaded, and the
   * scheduler's refusals as the pipeline's (`deadline_exceeded`, …).
   */
  run<Model extends ServedModel, Result>(step: ModelStep, call: ComposedCall, work: (model: Model, alone: boolean) => Promise<Result>): Promise<Result>;
  /** The model serving `step`, to read what it is (a reader's `regions`): 503 `model_unavailable` with the step's remedy when none is loaded. */
  model<Model extends ServedModel>(step: ModelStep): Model;
}

/** The composed models of a running server: its schedulers, the one way to every model. */
export function composedModels(schedulers: ModelSchedulers): ComposedModels {
  const unavailable = (step: ModelStep) => new DetectdError('model_unavailable', `No ${step.role} of ${step.kind} is loaded${step.remedy ? `: ${step.remedy}` : ''}`);
  const schedulerOf = (step: ModelStep): ModelScheduler<ServedModel> => {
    const scheduler = schedulers.forStep(step);
    if (!scheduler) throw unavailable(step);
    return scheduler;
  };
  return {
    async run<Model extends ServedModel, Result>(step: ModelStep, call: ComposedCall, work: (model: Model, alone: boolean) => Promise<Result>): Promise<Result> {
      const scheduler = schedulerOf(step);
      // The registry gave the first model of the step's role and kind: what the step's role says it is.
      const model = scheduler.model as Model;
      try {
        return await scheduler.run(call.turn ? 'stream' : 'request', call.signal, (alone) => work(model, alone));
      } catch (error) {
        throw schedulingFailure(error, call.limits);
      }
    },
    model: <Model extends ServedModel>(step: ModelStep) => schedulerOf(step).model as Model,
  };
}
