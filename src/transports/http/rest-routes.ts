import type { Router } from 'express';
import type { ErrorCatalogue } from '../../core/error-catalogue.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import type { Gate } from '../../gate/gate.js';
import type { ModelSchedulers } from '../../scheduler/model-schedulers.js';
import type { TaskTable } from '../../tasks/task-table.js';
import type { PathItems } from './openapi.js';

/** What the REST door hands the routes a feature brings: the gate every call passes, the task table every door serves, the loaded models' schedulers, the schemas its bodies are checked against, the body limit, the error catalogue, and the router to declare them on. */
export interface RestRouteContext {
  /** A router that claims each route it declares in the server's route ledger, under the feature's name (route-ledger.ts): declare the routes on it. */
  router(): Router;
  readonly gate: Gate;
  readonly tasks: TaskTable;
  readonly schedulers: ModelSchedulers;
  readonly schemas: SchemaCatalogue;
  readonly maxBodyBytes: number;
  /** Every error code with its status: the core's and the features'. */
  readonly errors: ErrorCatalogue;
}

/**
 * REST routes beyond a task's analysis (what a service keeps, managed: its known plates, its people),
 * as a feature declares them: mounted by the composition root before the API routes, and their
 * part of the API reference, built once.
 */
export interface RestRoutes {
  router(context: RestRouteContext): Router;
  openApiPaths(tasks: TaskTable): PathItems;
}
