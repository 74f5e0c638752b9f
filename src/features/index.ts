import type { Feature } from './feature.js';
import { FeatureSet, schemaOf } from './feature-set.js';
import { faces } from './faces/index.js';
import { objects } from './objects/index.js';
import { plates } from './plates/index.js';
import { states } from './states/index.js';

/**
 * Every feature the server offers, one line per folder under features/, in the order the CLI, the
 * API reference and the console list them. Only the composition roots (server.ts, cli.ts) read it.
 */
export const FEATURES: readonly Feature[] = [objects, faces, plates, states];

/** The database of a server of the features: the store's own migrations and tables, and theirs. */
export const SCHEMA = schemaOf(FEATURES);

/** The features described only, as the CLI (and tests and scripts) read them: nothing of them runs. */
export const DESCRIBED_FEATURES = new FeatureSet(FEATURES, undefined);

/** The tasks as the CLI (and tests and scripts) describe them, without a server running them. */
export const TASK_DESCRIPTIONS = DESCRIBED_FEATURES.tasks;
