import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { type AccountDomain, accountDomain } from '../../src/accounts/account-domain.js';
import { loadServerSecret } from '../../src/accounts/server-secret.js';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { type Database, openDatabase } from '../../src/store/database.js';
import type { Feature } from '../../src/features/feature.js';
import { schemaOf } from '../../src/features/feature-set.js';
import { FEATURES } from '../../src/features/index.js';

export interface LocalServer extends RunningServer {
  readonly dataDir: string;
  /** API key of a fresh object-detection service. */
  readonly apiKey: string;
  /** Every log line the server wrote, raw. */
  readonly logText: () => string;
  /** The account domain over the server's own database, for arranging a test. */
  readonly domain: AccountDomain;
  readonly db: Database;
  /** Creates another account + service (of the first task unless `type` names another) and returns its key. */
  createService(fields?: { email?: string; name?: string; model?: string | null; type?: string }): Promise<string>;
  /** Marks the service of `apiKey` disabled, straight in the database. */
  disableService(apiKey: string): Promise<void>;
}

/** Where a local server keeps its data: settings pointing at a new, empty store, and how to remove it. */
export interface ScratchStore {
  readonly env: Readonly<Record<string, string>>;
  remove(): Promise<void>;
}

/** A new SQLite data folder under the system's temporary folder. */
export function scratchSqliteStore(): ScratchStore {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-local-'));
  return { env: { DETECTD_DATA_DIR: dataDir }, remove: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

/** The account `createService()` makes first (the one of the server's first service), and the password every account it makes has. */
export const FIRST_ACCOUNT = { email: 'user1@example.com', password: 'correct horse battery' } as const;

/**
 * The real server, in this process, on a real loopback port, with a real, new database (SQLite
 * in a temporary folder unless `store` says otherwise) and a real model (`env.DETECTD_MODEL`).
 * Its models folder is `env.DETECTD_MODELS_DIR`, else one in its data folder (none there: it reads
 * none), never the `./models` of the folder it runs from, where a person's `detectd models pull`
 * puts models. Log lines are captured so tests and benchmarks can read them. It serves `features`
 * (a test may add one of its own). Used by the test suite and `npm run bench`.
 */
export async function startLocalServer(
  env: Record<string, string>,
  store: ScratchStore = scratchSqliteStore(),
  features: readonly Feature[] = FEATURES,
): Promise<LocalServer> {
  const settings = loadConfig({ PORT: '0', HOST: '127.0.0.1', ...store.env, ...env });
  const config = env.DETECTD_MODELS_DIR ? settings : { ...settings, modelsDir: { path: path.join(settings.dataDir, 'models'), required: false } };
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const server = await startServer(config, pino({ level: 'debug' }, sink), features);
  const db = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl }, schemaOf(features));
  const domain = accountDomain(db, loadServerSecret(config.secret, config.dataDir), { serviceTypes: server.tasks.types });
  let counter = 0;
  const createService: LocalServer['createService'] = async (fields = {}) => {
    counter++;
    const email = fields.email ?? `user${counter}@example.com`;
    const account = (await domain.accounts.findAccount(email)) ?? (await domain.accounts.createAccount(email, FIRST_ACCOUNT.password));
    const { apiKey } = await domain.services.create(account.id, { name: fields.name ?? `service ${counter}`, model: fields.model, type: fields.type });
    return apiKey;
  };
  const apiKey = await createService();
  return {
    ...server,
    dataDir: config.dataDir,
    apiKey,
    domain,
    db,
    logText: () => lines.join(''),
    createService,
    async disableService(key) {
      const service = await domain.keys.authenticate(key);
      if (!service) throw new Error('no service for that key');
      await domain.services.setDisabled(service, true);
    },
    async close() {
      await server.close();
      await db.destroy();
      await store.remove();
    },
  };
}
