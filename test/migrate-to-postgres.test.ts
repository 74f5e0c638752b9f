import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { sql } from '../src/store/kysely.js';
import { FIRST_ACCOUNT, startLocalServer } from '../scripts/lib/local-server.js';
import { loadServerSecret } from '../src/accounts/server-secret.js';
import { type Database, openDatabase } from '../src/store/database.js';
import { postDetection } from './support/detection-client.js';
import { TEST_SECRET } from './support/engines.js';
import { dogJpeg } from './support/images.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { scratchPostgresDatabase, type ScratchDatabase } from './support/postgres.js';
import { cli, requireBuild, startProcess } from './support/processes.js';
import { TEST_INFERENCE_SETTINGS } from './support/inference-settings.js';
import { SCHEMA } from '../src/features/index.js';
import { faceTables } from '../src/features/faces/gallery/face-tables.js';

/** Every row of every table, each as sorted JSON with numbers as numbers (PostgreSQL gives bigints as text), for comparing two databases. */
async function contents(db: Database): Promise<Record<string, string[]>> {
  const normalised = (value: unknown) => (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value);
  const tables: Record<string, string[]> = {};
  for (const table of SCHEMA.tables) {
    const rows = await db.withTables<Record<string, Record<string, unknown>>>().selectFrom(table).selectAll().execute();
    tables[table] = rows.map((row) => JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)).map(([column, value]) => [column, normalised(value)]))).sort();
  }
  return tables;
}

describe('detectd migrate-to-postgres: the SQLite database moved into PostgreSQL (real CLI, real PostgreSQL)', function () {
  this.timeout(180_000);
  let dataDir: string;
  let target: ScratchDatabase;
  let apiKey: string;
  /** The CLI's settings: the SQLite data folder, the PostgreSQL database and the SQLite server's secret. */
  let env: NodeJS.ProcessEnv;

  before(async () => {
    requireBuild();
    // A server on SQLite that has been used: accounts, services with keys, usage from real calls, a session, a
    // failed sign-in, an invitation, a stream token, a face gallery's rows.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-to-postgres-'));
    // Closed, the server writes its last usage and leaves its folder (the store's removal does nothing here).
    const server = await startLocalServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL, ...TEST_INFERENCE_SETTINGS }, { env: { DETECTD_DATA_DIR: dataDir }, remove: async () => undefined });
    apiKey = server.apiKey;
    expect((await postDetection(server.url, dogJpeg(), { apiKey, contentType: 'image/jpeg' })).status).to.equal(200);
    const admin = (await server.domain.accounts.findAccount(FIRST_ACCOUNT.email))!;
    await server.domain.sessions.start(admin.id);
    await server.domain.throttle.recordFailure(FIRST_ACCOUNT.email, '192.0.2.1');
    await server.domain.signUps.invite(admin);
    const service = (await server.domain.keys.authenticate(apiKey))!;
    await server.domain.services.setLimits(service, { rateLimitPerMinute: 60, monthlyQuota: 1000 });
    const faces = await server.domain.services.create(admin.id, { name: 'door', type: server.tasks.all.find((task) => task.lead.kind === 'faces')!.type });
    const person = crypto.randomUUID();
    await faceTables(server.db).insertInto('face_people').values({ id: person, service_id: faces.service.id, userid: 'alice', userid_key: 'alice', created_at: new Date().toISOString() }).execute();
    await faceTables(server.db).insertInto('face_samples').values({ id: crypto.randomUUID(), person_id: person, descriptor_ciphertext: 'ciphertext', created_at: new Date().toISOString() }).execute();
    await server.close();
    target = await scratchPostgresDatabase();
    const { DETECTD_MODEL: _model, ...inherited } = process.env;
    env = { ...inherited, DETECTD_DATA_DIR: dataDir, DETECTD_DATABASE_URL: target.url, DETECTD_SECRET: loadServerSecret(undefined, dataDir) };
  });
  after(async () => {
    await target?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('knows every table the migrations make (a new table needs its place in the copy order)', async () => {
    const db = await openDatabase({ dataDir }, SCHEMA);
    try {
      const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`.execute(db);
      expect([...SCHEMA.tables].sort()).to.deep.equal(rows.map((row) => row.name).sort());
    } finally {
      await db.destroy();
    }
  });

  it('refuses another secret than the SQLite server\'s, and a running server on the SQLite folder', async () => {
    const mismatch = cli(['migrate-to-postgres', '--json'], { ...env, DETECTD_SECRET: TEST_SECRET });
    expect(mismatch.status, mismatch.stderr).to.equal(1);
    expect(JSON.parse(mismatch.stderr).error.code).to.equal('secret_mismatch');
    const running = await startProcess({ ...env, DETECTD_DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1' });
    try {
      const refused = cli(['migrate-to-postgres', '--json'], env);
      expect(refused.status, refused.stderr).to.equal(1);
      expect(JSON.parse(refused.stderr).error.code).to.equal('server_running');
    } finally {
      await running.stop();
    }
  });

  it('copies every row of every table, and a server on PostgreSQL with the same secret answers the same key; a second run is refused', async () => {
    const moved = cli(['migrate-to-postgres'], env);
    expect(moved.status, moved.stderr).to.equal(0);
    expect(moved.stdout).to.match(/^copied into PostgreSQL postgres:\/\/detectd@.*accounts 1, invitations 1, services 2, api_keys 2, console_sessions 1, sign_in_failures 1,/);
    const [from, to] = [await openDatabase({ dataDir }, SCHEMA), await openDatabase({ dataDir, databaseUrl: target.url }, SCHEMA)];
    try {
      const [source, copy] = [await contents(from), await contents(to)];
      expect(source.usage_counters.length, 'the calls left usage').to.be.greaterThan(0);
      expect(copy).to.deep.equal(source);
    } finally {
      await Promise.all([from.destroy(), to.destroy()]);
    }

    const server = await startProcess({ ...env, DETECTD_MODEL: DEFAULT_TEST_MODEL, PORT: '0', HOST: '127.0.0.1' });
    try {
      const answer = await postDetection(server.url, dogJpeg(), { apiKey, contentType: 'image/jpeg' });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(server.output.join('')).to.contain('"database":"postgresql"');
    } finally {
      await server.stop();
    }
    const again = cli(['migrate-to-postgres', '--json'], env);
    expect(again.status, again.stderr).to.equal(1);
    expect(JSON.parse(again.stderr).error).to.include({ code: 'postgres_not_empty' });
  });
});
