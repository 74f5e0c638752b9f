import { Gauge, Histogram, type Registry } from 'prom-client';
import type { ServedModel } from '../models/types.js';
import type { ModelScheduler } from './model-scheduler.js';
import type { ModelSchedulers } from './model-schedulers.js';

/** Seconds; from a plate read (~5 ms) to a large image's run on a slow machine (~10 s). */
const RUN_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Per-model metrics of every model of every role, as its scheduler sees it: each run's seconds
 * (`detectd_model_run_seconds`, whose count is the runs), and the runs in flight and calls
 * waiting now (`detectd_model_runs_in_flight`, `detectd_model_waiting`).
 */
export class ModelRunMetrics {
  readonly #runs: Histogram<'model' | 'role'>;

  constructor(readonly registry: Registry) {
    this.#runs = new Histogram({
      name: 'detectd_model_run_seconds',
      help: 'Time of one run of a model (detector, reader, landmarker, describer, …), from its run slot to its result (a detector’s postprocessing included), by model and role',
      labelNames: ['model', 'role'] as const,
      buckets: RUN_BUCKETS,
      registers: [registry],
    });
  }

  /** What a scheduler tells of each run (SchedulerSettings.onRun). */
  readonly ran = (model: ServedModel, runMs: number): void => {
    this.#runs.observe({ model: model.name, role: model.role }, runMs / 1000);
  };

  /** Gauges of the schedulers' load, read when scraped. */
  watch(schedulers: ModelSchedulers): void {
    const gauges: readonly [name: string, help: string, value: (load: ModelScheduler['load']) => number][] = [
      ['detectd_model_runs_in_flight', 'Runs of a model in flight now, by model and role', (load) => load.runsInFlight],
      ['detectd_model_waiting', 'Calls waiting for a turn on a model now (requests and stream frames), by model and role', (load) => load.waiting.request + load.waiting.stream],
    ];
    for (const [name, help, value] of gauges) {
      new Gauge({
        name,
        help,
        labelNames: ['model', 'role'] as const,
        registers: [this.registry],
        collect() {
          for (const { model, load } of schedulers.all) this.set({ model: model.name, role: model.role }, value(load));
        },
      });
    }
  }
}
