import { DetectdError } from '../core/errors.js';
import { type ModelStep, serves } from '../models/model-step.js';
import type { ServedModel } from '../models/types.js';
import type { Task } from './task.js';

const ANSWER_FIELD = /^detected_[a-z][a-z_]*$/;

/**
 * The tasks a server offers, as every front door, the OpenAPI document, the console and the CLI
 * see them: built by the composition root from the features' tasks (features/feature-set.ts; a test may add a feature of its own).
 */
export class TaskTable {
  readonly types: readonly string[];
  /** Every model step of every task (its lead, then what it composes): what the server must load. */
  readonly steps: readonly ModelStep[];
  /** Each task's lead step: the models services name. */
  readonly leads: readonly ModelStep[];

  constructor(readonly all: readonly Task[]) {
    for (const task of all) {
      // A type is every door's path segment (`/api/v1/<type>`): a second task of it would never be reached.
      if (all.filter((other) => other.type === task.type).length > 1) throw new Error(`two tasks are of type "${task.type}" (${all.filter((other) => other.type === task.type).map((other) => other.summary).join('; ')}): POST /api/v1/${task.type} would answer one of them`);
      // The JSON stream's schema (schemas/stream-server-message.json) takes any answer field of this form.
      if (!ANSWER_FIELD.test(task.answerField)) throw new Error(`task ${task.type}: its answer field "${task.answerField}" must be detected_<what>, in lowercase letters and "_"`);
    }
    this.steps = all.flatMap((task) => [task.lead, ...(task.composes ?? [])]);
    this.leads = all.map((task) => task.lead);
    this.types = all.map((task) => task.type);
  }

  find(type: string): Task | undefined {
    return this.all.find((task) => task.type === type);
  }

  /** The names of `models` a service of `type` may name: those serving its task's lead step (every one for a type no task serves). */
  modelsFor(type: string, models: readonly Pick<ServedModel, 'name' | 'role' | 'kind'>[]): string[] {
    const task = this.find(type);
    return models.filter((model) => !task || serves(model, task.lead)).map((model) => model.name);
  }

  /** The task of a service type named in a URL; 404 `unknown_service` listing the known ones otherwise. */
  named(type: string): Task {
    const task = this.find(type);
    if (!task) throw new DetectdError('unknown_service', `no service type "${type}"; known: ${this.types.join(', ')}`);
    return task;
  }
}
