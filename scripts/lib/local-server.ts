import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Accounts } from '../../src/accounts/accounts.js';
import { loadServerSecret } from '../../src/accounts/server-secret.js';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { openDatabase } from '../../src/store/database.js';

export interface LocalServer extends RunningServer {
  readonly dataDir: string;
  /** API key of a fresh object-detection service. */
  readonly apiKey: string;
  /** Every log line the server wrote, raw. */
  readonly logText: () => string;
  /** Creates another account + service and returns its key. */
  createService(fields?: { email?: string; name?: string; model?: string | null }): Promise<string>;
  /** Marks the service of `apiKey` disabled, straight in the database. */
  disableService(apiKey: string): Promise<void>;
}

/**
 * The real server, in this process, on a real loopback port, with a real SQLite database in a
 * temporary folder and a real model (`env.DETECTD_MODEL`). Log lines are captured so tests and
 * benchmarks can read them. Used by the test suite and `npm run bench`.
 */
export async function startLocalServer(env: Record<string, string>): Promise<LocalServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-local-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DETECTD_DATA_DIR: dataDir, ...env });
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const server = await startServer(config, pino({ level: 'debug' }, sink));
  const db = await openDatabase({ dataDir });
  const accounts = new Accounts(db, loadServerSecret(config.secret, dataDir));
  let counter = 0;
  const createService: LocalServer['createService'] = async (fields = {}) => {
    counter++;
    const email = fields.email ?? `user${counter}@example.com`;
    if (!(await accounts.findAccount(email))) await accounts.createAccount(email, 'correct horse battery');
    const { apiKey } = await accounts.createService(email, { name: fields.name ?? `service ${counter}`, model: fields.model });
    return apiKey;
  };
  const apiKey = await createService();
  return {
    ...server,
    dataDir,
    apiKey,
    logText: () => lines.join(''),
    createService,
    async disableService(key) {
      const service = await accounts.authenticate(key);
      if (!service) throw new Error('no service for that key');
      await db.updateTable('services').set({ disabled_at: new Date().toISOString() }).where('id', '=', service.id).execute();
    },
    async close() {
      await server.close();
      await db.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
