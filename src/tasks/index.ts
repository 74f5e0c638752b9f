import { objectDetection } from './object-detection/object-detection-task.js';
import type { Task } from './task.js';
import { TaskTable } from './task-table.js';

/** Every service type the server offers; one line per task folder. */
export const TASKS = [objectDetection] as const satisfies readonly Task[];

/** The table the composition roots (server.ts, cli.ts) hand to every front door, page and command. */
export const TASK_TABLE = new TaskTable(TASKS);

export const TASK_TYPES: readonly string[] = TASK_TABLE.types;
