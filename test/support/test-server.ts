import type { Feature } from '../../src/features/feature.js';
import { type LocalServer, startLocalServer } from '../../scripts/lib/local-server.js';
import { type Engine, SQLITE } from './engines.js';
import { TEST_INFERENCE_SETTINGS } from './inference-settings.js';
import { DEFAULT_TEST_MODEL } from './paths.js';

export { FIRST_ACCOUNT } from '../../scripts/lib/local-server.js';
export type TestServer = LocalServer;

/** The real server in this process on a real port, on a new database of `engine`, serving the default test model unless `env` says otherwise (and the registered features unless `features` names others). */
export async function startTestServer(env: Record<string, string> = {}, engine: Engine = SQLITE, features?: readonly Feature[]): Promise<TestServer> {
  return startLocalServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL, ...TEST_INFERENCE_SETTINGS, ...env }, await engine.scratch(), features);
}
