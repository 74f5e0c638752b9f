import { objectDetection } from './object-detection/object-detection-task.js';
import type { Task } from './task.js';

/** Every service type the server offers; one line per task folder. */
export const TASKS = [objectDetection] as const satisfies readonly Task[];

export const TASK_TYPES: readonly string[] = TASKS.map((task) => task.type);

export function taskByType(type: string): Task | undefined {
  return TASKS.find((task) => task.type === type);
}
