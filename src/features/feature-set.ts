import path from 'node:path';
import type { ConsoleAssets, ServiceCard } from '../console/service-card.js';
import { packageRoot } from '../package-root.js';
import { ErrorCatalogue } from '../core/error-catalogue.js';
import { Schema } from '../store/schema.js';
import { TaskTable } from '../tasks/task-table.js';
import type { DeepStackOffer } from '../transports/deepstack/deepstack-form.js';
import type { RestRoutes } from '../transports/http/rest-routes.js';
import type { Feature, FeatureParts, FeatureServer } from './feature.js';

/**
 * The parts of the registered features together, as the composition roots hand them to the doors,
 * the console and the CLI: built on a running server (`server` given), or described only.
 */
export class FeatureSet {
  /** Every feature's tasks: the table every door, the API reference, the console and the CLI serve. */
  readonly tasks: TaskTable;
  readonly deepStack: readonly DeepStackOffer[];
  /** Every feature's REST routes, each with its owner as the route ledger names it (`feature plates`). */
  readonly rest: readonly { readonly owner: string; readonly routes: RestRoutes }[];
  readonly cards: readonly ServiceCard[];
  /** Each feature's folder of its cards' scripts and stylesheets (absolute), by the feature's name: the console serves them. */
  readonly consoleAssets: readonly ConsoleAssets[];
  /** The core's error codes and every feature's own, as every door maps them to statuses and the API reference lists them. */
  readonly errors: ErrorCatalogue;
  readonly #parts: readonly FeatureParts[];

  constructor(features: readonly Feature[], server: FeatureServer | undefined) {
    this.errors = new ErrorCatalogue(features.flatMap((feature) => (feature.errors ? [{ owner: `feature ${feature.name}`, errors: feature.errors }] : [])));
    this.#parts = features.map((feature) => feature.parts(server));
    this.tasks = new TaskTable(this.#parts.flatMap((parts) => parts.tasks));
    this.deepStack = this.#parts.flatMap((parts) => parts.deepStack ?? []);
    this.rest = this.#parts.flatMap((parts, n) => (parts.rest ?? []).map((routes) => ({ owner: `feature ${features[n].name}`, routes })));
    this.cards = this.#parts.flatMap((parts) => parts.consoleCards ?? []);
    this.consoleAssets = features.flatMap((feature) => (feature.consoleAssets ? [{ name: feature.name, folder: path.join(packageRoot(), feature.consoleAssets) }] : []));
  }

  /** Starts what each feature starts (FeatureParts.start), in the order of their registration. */
  async start(): Promise<void> {
    for (const parts of this.#parts) await parts.start?.();
  }

  /** Stops what each feature started. */
  stop(): void {
    for (const parts of this.#parts) parts.stop?.();
  }
}

/** The database of a server of `features`: the store's own migrations and tables, and theirs. */
export const schemaOf = (features: readonly Feature[]): Schema => new Schema(features);
