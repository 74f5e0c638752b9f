import { DetectdError } from '../core/errors.js';
import type { Task } from './task.js';

/**
 * The tasks a server offers, as every front door, the OpenAPI document, the console and the CLI
 * see them: built by the composition root from tasks/index.ts (a test may add its own task).
 */
export class TaskTable {
  readonly types: readonly string[];

  constructor(readonly all: readonly Task[]) {
    this.types = all.map((task) => task.type);
  }

  find(type: string): Task | undefined {
    return this.all.find((task) => task.type === type);
  }

  /** The task of a service type named in a URL; 404 `unknown_service` listing the known ones otherwise. */
  named(type: string): Task {
    const task = this.find(type);
    if (!task) throw new DetectdError('unknown_service', `no service type "${type}"; known: ${this.types.join(', ')}`);
    return task;
  }
}
