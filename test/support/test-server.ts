import type { TaskTable } from '../../src/tasks/task-table.js';
import { type LocalServer, startLocalServer } from '../../scripts/lib/local-server.js';
import { type Engine, SQLITE } from './engines.js';
import { DEFAULT_TEST_MODEL } from './paths.js';

export type TestServer = LocalServer;

/** The real server in this process on a real port, on a new database of `engine`, serving the default test model unless `env` says otherwise (and the task table's tasks unless `tasks` says otherwise). */
export async function startTestServer(env: Record<string, string> = {}, engine: Engine = SQLITE, tasks?: TaskTable): Promise<TestServer> {
  return startLocalServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL, ...env }, await engine.scratch(), tasks);
}
