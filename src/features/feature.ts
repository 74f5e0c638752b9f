import type { Command } from 'commander';
import type { Migration } from 'kysely';
import type { Logger } from 'pino';
import type { Served, ServiceFacts, Store } from '../cli/command-context.js';
import type { ServiceCard } from '../console/service-card.js';
import type { ErrorTable } from '../core/errors.js';
import type { Service } from '../core/service.js';
import type { ComposedModels } from '../core/service-scheduler.js';
import type { Database } from '../store/database.js';
import type { OwnedSchema } from '../store/schema.js';
import type { Task } from '../tasks/task.js';
import type { DeepStackOffer } from '../transports/deepstack/deepstack-form.js';
import type { RestRoutes } from '../transports/http/rest-routes.js';

/**
 * What a running server hands a feature when it builds it: the store (the database and the server's
 * secret), the logger, and the models its tasks compose beside their service's own, each through its scheduler.
 */
export interface FeatureServer {
  readonly db: Database;
  readonly secret: string;
  readonly logger: Logger;
  readonly models: ComposedModels;
}

/**
 * A feature's parts, as every door, the API reference, the console and the model loader take them.
 * The doors serve every task's analysis (REST v1 and legacy, both streams) from the task table;
 * what a feature says beyond it, it says here.
 */
export interface FeatureParts {
  /** Its service types, each a Task (pipeline and finding shape). */
  readonly tasks: readonly Task[];
  /** Its routes of the DeepStack / CodeProject.AI door, each offer with the task that answers it. */
  readonly deepStack?: readonly DeepStackOffer[];
  /** Its REST routes beyond the analysis (what its services keep, managed), with their part of the API reference. */
  readonly rest?: readonly RestRoutes[];
  /** Its cards on a service's overview page in the console. */
  readonly consoleCards?: readonly ServiceCard[];
  /** Once the server has built every feature, before it listens: what it starts (a sweep, a warning about its stored data). */
  start?(): Promise<void>;
  /** When the server stops, after the last call: what `start` started, stopped. */
  stop?(): void;
}

/** Anything of a feature described only (Feature.parts without a server), called: never, since nothing of it runs. */
export function notRunning(): never {
  throw new Error('this feature is described only; the server builds the one it runs');
}

/** The composed models of a feature described only. */
export const DESCRIBED_MODELS: ComposedModels = { run: notRunning, model: notRunning };

/**
 * One feature: a folder under src/features/ (objects/, plates/, …) holding its task, its routes on
 * each door, its CLI commands, its console card, its tables' migrations and its docs page, and one
 * line in features/index.ts. Doors, gate, core, store, the console shell and the CLI shell know no
 * feature: the composition roots (server.ts, cli.ts) hand them what the features declare here.
 */
export interface Feature extends OwnedSchema {
  /** The folder's name, for messages (`plates`). */
  readonly name: string;
  /** Its page under docs/, which its routes and commands point at (`docs/plates.md`). */
  readonly docs: string;
  /**
   * Its tables' migrations, each under its frozen name in the one global order (`0015-known-plates`:
   * the next free number, whoever took the one before): store/schema.ts runs them with the store's
   * own, sorted by name, and refuses a number taken twice. A name, once shipped, never changes.
   */
  readonly migrations?: Readonly<Record<string, Migration>>;
  /**
   * Its tables, in the order their rows can be inserted (after the store's): what `detectd
   * migrate-to-postgres` copies. Its code reaches them through `db.withTables<ItsTables>()`
   * (Kysely), so store/tables.ts names none of them.
   */
  readonly tables?: readonly string[];
  /**
   * Its own error codes, each with its status and summary (`known_plate_exists`: 409), beside the
   * core's generic ones (core/errors.ts CORE_ERRORS): every door answers them with their status and
   * the API reference and docs/api.md list them (core/error-catalogue.ts). Declared for the compiler
   * too, in the same file as the table (`interface FeatureErrors { <name>: typeof ITS_ERRORS }`), so a
   * code is checked where thrown; one the core or another feature declares stops start-up.
   */
  readonly errors?: ErrorTable;
  /**
   * The folder of its console cards' scripts and stylesheets, from the package root
   * (`src/features/plates/console`): served under `/console/assets/<name>/`, where its cards' HTML names them.
   */
  readonly consoleAssets?: string;
  /**
   * Its parts on a running server (`server` given), or as described only (undefined): the CLI, the
   * API reference and the model loader read them, and nothing of them runs.
   */
  parts(server: FeatureServer | undefined): FeatureParts;
  /** Adds its `detectd service …` commands to `service`, serving what the CLI serves (imported only when a `service` command runs). */
  addServiceCommands?(service: Command, served: Served): Promise<void>;
  /** What `detectd service show` says of one of its services beyond what every service has (its store read as the command runs); undefined for another feature's service. */
  serviceFacts?(service: Service, store: Store): Promise<ServiceFacts | undefined>;
}
