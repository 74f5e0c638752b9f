import type { ModelRegistry } from '../models/registry.js';
import { ModelScheduler, type SchedulerSettings } from './model-scheduler.js';

/** One scheduler per loaded model, by model name. */
export class ModelSchedulers {
  readonly #byName: ReadonlyMap<string, ModelScheduler>;

  constructor(
    readonly registry: ModelRegistry,
    settings: SchedulerSettings,
  ) {
    this.#byName = new Map(registry.detectors.map((detector) => [detector.name, new ModelScheduler(detector, settings)]));
  }

  /** The scheduler of the model that `name` names or aliases (null: the default model's); undefined when no such model is loaded. */
  find(name: string | null): ModelScheduler | undefined {
    const detector = name === null ? this.registry.defaultModel : this.registry.find(name);
    return detector && this.#byName.get(detector.name);
  }

  get all(): ModelScheduler[] {
    return [...this.#byName.values()];
  }
}
