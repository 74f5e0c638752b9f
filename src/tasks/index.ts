import { faceDetectionTask } from './face-detection/face-detection-task.js';
import type { FaceRecognition } from '../faces/face-recognition.js';
import type { KnownPlates } from '../plates/known-plate-list.js';
import type { ComposedModels } from '../core/service-scheduler.js';
import { licensePlateTask } from './license-plate/license-plate-task.js';
import { objectDetection } from './object-detection/object-detection-task.js';
import { TaskTable } from './task-table.js';

/** What the tasks need of the running server, handed over by the composition root. */
export interface TaskDependencies {
  /** The face task's galleries. */
  readonly faces: FaceRecognition;
  /** The licence-plate task's known plates. */
  readonly knownPlates: KnownPlates;
  /** The models the tasks compose beside their service's own (Task.models), each through its scheduler. */
  readonly models: ComposedModels;
}

/** Every service type the server offers; one line per task folder. */
export function taskTable(dependencies: TaskDependencies): TaskTable {
  return new TaskTable([objectDetection, faceDetectionTask(dependencies.faces, dependencies.models), licensePlateTask(dependencies.models, dependencies.knownPlates)]);
}

/** Recognition of a table that only describes the tasks (the CLI, tests, scripts): none of its tasks is ever run. */
const NOT_RUNNING: FaceRecognition = {
  similarity: notRunning,
  smallestFace: 0,
  matcher: notRunning,
  register: notRunning,
  addNegative: notRunning,
  list: notRunning,
  remove: notRunning,
  remembersUnknown: notRunning,
  keepUnknown: notRunning,
};

/** Known plates of a table that only describes the tasks. */
const NO_KNOWN_PLATES: KnownPlates = { list: notRunning, add: notRunning, remove: notRunning, distance: notRunning, setDistance: notRunning, matcher: notRunning };

function notRunning(): never {
  throw new Error('this task table only describes the tasks; the server builds the one that runs them');
}

/** What a table that only describes the tasks is handed: nothing of it runs. */
export const DESCRIBING_ONLY: TaskDependencies = { faces: NOT_RUNNING, knownPlates: NO_KNOWN_PLATES, models: { run: notRunning, model: notRunning } };

/** The tasks as the CLI (and tests and scripts) describe them, without a server running them. */
export const TASK_DESCRIPTIONS = taskTable(DESCRIBING_ONLY);
