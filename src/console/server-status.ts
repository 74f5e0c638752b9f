import type { RecentError, RecentErrors } from '../core/recent-errors.js';
import type { ModelStep } from '../models/model-step.js';
import type { ModelSchedulers } from '../scheduler/model-schedulers.js';
import type { StorageState } from '../store/storage-health.js';

/** One loaded model as the status page shows it. */
export interface ModelStatus {
  readonly name: string;
  /** What it does in a task's pipeline (detector, reader, …) and what it finds or makes. */
  readonly role: string;
  readonly kind: string;
  readonly family: string;
  readonly runtime: string;
  readonly device: string;
  readonly inputSize: { readonly width: number; readonly height: number };
  /** It answers a service that names no model: the default of a task's lead step (a model a task only composes is never named). */
  readonly isDefault: boolean;
  /** Calls admitted to it now, waiting for a run (HTTP requests and stream frames), and runs in flight. */
  readonly load: { readonly admitted: number; readonly waiting: number; readonly runsInFlight: number };
  /** Its server errors (500s) among the recent errors: a model that fails its calls is not healthy. */
  readonly recentFailures: number;
}

/** What the status page shows: this process, its models, its last failed calls; nothing secret. */
export interface ServerStatus {
  readonly version: string;
  readonly nodeVersion: string;
  /** When this process started, ISO 8601. */
  readonly startedAt: string;
  readonly uptimeSeconds: number;
  readonly database: 'sqlite' | 'postgresql';
  /** Whether the database answers and has room (a full disk: reads work, writes are refused). */
  readonly storage: StorageState;
  readonly inference: { readonly threads: number; readonly concurrency: number };
  readonly models: readonly ModelStatus[];
  readonly recentErrors: readonly RecentError[];
}

/** Where the status page reads this process's state from; built once in the composition root. */
export interface StatusSources {
  readonly version: string;
  readonly startedAt: Date;
  readonly database: ServerStatus['database'];
  readonly storage: () => StorageState;
  readonly inference: ServerStatus['inference'];
  readonly schedulers: ModelSchedulers;
  /** Each task's lead step: the models services name. */
  readonly leads: readonly ModelStep[];
  readonly recentErrors: Pick<RecentErrors, 'list'>;
}

/** A model is unhealthy while its own failures (500; not the 503 of a full queue, nor a storage refusal) are among the recent errors. */
const isModelFailure = (status: number) => status === 500;

/** This process's state, now. */
export function serverStatus(sources: StatusSources, now = Date.now()): ServerStatus {
  const recentErrors = sources.recentErrors.list();
  return {
    version: sources.version,
    nodeVersion: process.version,
    startedAt: sources.startedAt.toISOString(),
    uptimeSeconds: Math.floor((now - sources.startedAt.getTime()) / 1000),
    database: sources.database,
    storage: sources.storage(),
    inference: sources.inference,
    models: sources.schedulers.all.map(({ model, load }) => ({
      name: model.name,
      role: model.role,
      kind: model.kind,
      family: model.family,
      runtime: model.runtime,
      device: model.device,
      inputSize: model.inputSize,
      isDefault: sources.leads.some((lead) => lead.role === model.role && lead.kind === model.kind) && sources.schedulers.registry.isDefault(model),
      load: { admitted: load.admitted, waiting: load.waiting.request + load.waiting.stream, runsInFlight: load.runsInFlight },
      recentFailures: recentErrors.filter((error) => error.model === model.name && isModelFailure(error.status)).length,
    })),
    recentErrors,
  };
}
