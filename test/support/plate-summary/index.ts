import { DESCRIBED_MODELS, type Feature } from '../../../src/features/feature.js';
import { plateSummaryTask } from './plate-summary-task.js';

/** The test feature of this folder, as features/index.ts would register it: its one task. */
export const plateSummary: Feature = {
  name: 'plate-summary',
  docs: 'test/support/plate-summary/plate-summary-task.ts',
  parts: (server) => ({ tasks: [plateSummaryTask(server?.models ?? DESCRIBED_MODELS)] }),
};
