import { type LocalServer, startLocalServer } from '../../scripts/lib/local-server.js';
import { DEFAULT_TEST_MODEL } from './paths.js';

export type TestServer = LocalServer;

/** The real server in this process on a real port, serving the default test model unless `env` says otherwise. */
export function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startLocalServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL, ...env });
}
