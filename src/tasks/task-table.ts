import { DetectdError } from '../core/errors.js';
import type { ModelStep } from '../models/model-roles.js';
import type { Detector, ModelKind } from '../models/types.js';
import type { Task } from './task.js';

const ANSWER_FIELD = /^detected_[a-z][a-z_]*$/;

/**
 * The tasks a server offers, as every front door, the OpenAPI document, the console and the CLI
 * see them: built by the composition root from the features' tasks (features/feature-set.ts; a test may add a feature of its own).
 */
export class TaskTable {
  readonly types: readonly string[];
  /** What the tasks find, together: the kinds of detector services name. */
  readonly kinds: ReadonlySet<ModelKind>;
  /** Every model step of every task (Task.models, else its detector alone): what the server must load. */
  readonly steps: readonly ModelStep[];

  constructor(readonly all: readonly Task[]) {
    for (const task of all) {
      // The JSON stream's schema (schemas/stream-server-message.json) takes any answer field of this form.
      if (!ANSWER_FIELD.test(task.answerField)) throw new Error(`task ${task.type}: its answer field "${task.answerField}" must be detected_<what>, in lowercase letters and "_"`);
      if (task.models && !task.models.some((step) => step.role === 'detector' && step.kind === task.detects)) {
        throw new Error(`task ${task.type}: its models must include its service's model, a detector of ${task.detects}`);
      }
    }
    this.steps = all.flatMap((task) => task.models ?? [{ role: 'detector' as const, kind: task.detects }]);
    this.types = all.map((task) => task.type);
    this.kinds = new Set(all.map((task) => task.detects));
  }

  find(type: string): Task | undefined {
    return this.all.find((task) => task.type === type);
  }

  /** The names of `models` a service of `type` may name: those that find what its task finds (every one for a type no task serves). */
  modelsFor(type: string, models: readonly Pick<Detector, 'name' | 'kind'>[]): string[] {
    const task = this.find(type);
    return models.filter((model) => !task || model.kind === task.detects).map((model) => model.name);
  }

  /** The task of a service type named in a URL; 404 `unknown_service` listing the known ones otherwise. */
  named(type: string): Task {
    const task = this.find(type);
    if (!task) throw new DetectdError('unknown_service', `no service type "${type}"; known: ${this.types.join(', ')}`);
    return task;
  }
}
