import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ScratchStore, scratchSqliteStore } from '../../scripts/lib/local-server.js';
import { scratchPostgresDatabase } from './postgres.js';

/** Same secret for every process of one PostgreSQL test, as replicas of one service must share it. */
export const TEST_SECRET = 'detectd-test-secret-0123456789-abcdefghij';

export interface Engine {
  readonly name: 'sqlite' | 'postgresql';
  /** A new, empty store of this engine: `env` points a server or the CLI at it. */
  scratch(): Promise<ScratchStore>;
}

export const SQLITE: Engine = {
  name: 'sqlite',
  scratch: async () => scratchSqliteStore(),
};

export const POSTGRESQL: Engine = {
  name: 'postgresql',
  async scratch() {
    const database = await scratchPostgresDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-test-'));
    return {
      env: { DETECTD_DATABASE_URL: database.url, DETECTD_SECRET: TEST_SECRET, DETECTD_DATA_DIR: dataDir },
      async remove() {
        await database.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

/** The database settings a store's `env` stands for, to open it directly. */
export function databaseSettingsOf(store: ScratchStore): { dataDir: string; databaseUrl?: string } {
  return { dataDir: store.env.DETECTD_DATA_DIR, databaseUrl: store.env.DETECTD_DATABASE_URL };
}

export const ENGINES: readonly Engine[] = [SQLITE, POSTGRESQL];

/** Declares the same suite once per storage engine: `title [sqlite]`, `title [postgresql]`; `body` is handed the suite too (to set its timeout). */
export function describeEachEngine(title: string, body: (engine: Engine, suite: Mocha.Suite) => void): void {
  for (const engine of ENGINES) {
    describe(`${title} [${engine.name}]`, function () {
      body(engine, this);
    });
  }
}
