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

  /** The named model's scheduler (null: the default model's); undefined when no such model is loaded. */
  find(name: string | null): ModelScheduler | undefined {
    return this.#byName.get(name ?? this.registry.defaultModel.name);
  }

  get all(): ModelScheduler[] {
    return [...this.#byName.values()];
  }
}
