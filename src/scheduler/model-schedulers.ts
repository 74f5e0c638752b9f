import { type ModelStep, serves } from '../models/model-step.js';
import type { ModelRegistry } from '../models/registry.js';
import type { RoleModel } from '../models/role-models.js';
import { ModelScheduler, type SchedulerSettings } from './model-scheduler.js';

/** Whether `scheduler` runs a model serving `step`, so that it is that step's scheduler. */
const schedules = <Model extends RoleModel>(scheduler: ModelScheduler<RoleModel>, step: ModelStep<Model>): scheduler is ModelScheduler<Model> => serves(scheduler.model, step);

/** One scheduler per loaded model, of every role, by model name: the one way to run a model. */
export class ModelSchedulers {
  readonly #byName: ReadonlyMap<string, ModelScheduler<RoleModel>>;

  constructor(
    readonly registry: ModelRegistry,
    settings: SchedulerSettings,
  ) {
    this.#byName = new Map(registry.models.map((model) => [model.name, new ModelScheduler<RoleModel>(model, settings)]));
  }

  /**
   * The scheduler of the model that `name` names or aliases when it serves `step` (a task's lead:
   * any role and kind; null: the step's default); undefined when no such model is loaded.
   */
  forService<Model extends RoleModel>(name: string | null, step: ModelStep<Model>): ModelScheduler<Model> | undefined {
    const model = name === null ? this.registry.defaultOf(step) : this.registry.find(name);
    const scheduler = model && this.#byName.get(model.name);
    return scheduler && schedules(scheduler, step) ? scheduler : undefined;
  }

  /** The names and aliases of the loaded models serving `step`: what a service of a task led by it may name. */
  namesFor(step: ModelStep): string[] {
    return this.registry.ofStep(step).flatMap((model) => [model.name, ...model.aliases]);
  }

  /** The scheduler of the model serving a task's step (the first loaded of its role and kind); undefined when none is loaded. */
  forStep<Model extends RoleModel>(step: ModelStep<Model>): ModelScheduler<Model> | undefined {
    return this.forService(null, step);
  }

  get all(): ModelScheduler<RoleModel>[] {
    return [...this.#byName.values()];
  }
}
