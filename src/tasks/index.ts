import { faceDetectionTask } from './face-detection/face-detection-task.js';
import type { FaceRecognition } from '../faces/face-recognition.js';
import type { CompanionModel, ModelKind } from '../models/types.js';
import { licensePlateTask } from './license-plate/license-plate-task.js';
import { objectDetection } from './object-detection/object-detection-task.js';
import { TaskTable } from './task-table.js';

/** What the tasks need of the running server, handed over by the composition root. */
export interface TaskDependencies {
  /** The face task's describer and galleries. */
  readonly faces: FaceRecognition;
  /** The loaded companion model of a kind (Task.companion), looked up when a call needs it; undefined when none is loaded. */
  readonly companions: (kind: ModelKind) => CompanionModel | undefined;
}

/** Every service type the server offers; one line per task folder. */
export function taskTable(dependencies: TaskDependencies): TaskTable {
  return new TaskTable([objectDetection, faceDetectionTask(dependencies.faces), licensePlateTask(dependencies.companions)]);
}

/** Recognition of a table that only describes the tasks (the CLI, tests, scripts): none of its tasks is ever run. */
const NOT_RUNNING: FaceRecognition = {
  describe: notRunning,
  similarity: notRunning,
  smallestFace: 0,
  matcher: notRunning,
  register: notRunning,
  list: notRunning,
  remove: notRunning,
};

function notRunning(): never {
  throw new Error('this task table only describes the tasks; the server builds the one that runs them');
}

/** The tasks as the CLI (and tests and scripts) describe them, without a server running them. */
export const TASK_DESCRIPTIONS = taskTable({ faces: NOT_RUNNING, companions: notRunning });
