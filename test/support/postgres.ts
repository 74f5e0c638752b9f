import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../scripts/lib/free-port.js';

const CLUSTER_SCRIPT = path.resolve('scripts/postgres-test-cluster.sh');

let baseUrl: Promise<string> | undefined;

/** PostgreSQL's SQLSTATE for a statement the role may not run. */
const INSUFFICIENT_PRIVILEGE = '42501';

export { freePort };

/**
 * The PostgreSQL server the tests use: DETECTD_TEST_DATABASE_URL (CI starts one), else a cluster
 * this process starts from the Debian package and stops on exit. Without either the PostgreSQL
 * tests fail, loudly: they are never skipped.
 */
async function startOrFindServer(): Promise<string> {
  const configured = process.env.DETECTD_TEST_DATABASE_URL;
  if (configured) return configured;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pg-'));
  const started = spawnSync('bash', [CLUSTER_SCRIPT, 'start', dir, String(await freePort())], { encoding: 'utf8' });
  if (started.status !== 0) {
    throw new Error(`no PostgreSQL for the tests: set DETECTD_TEST_DATABASE_URL or install Debian's postgresql package.\n${started.stderr}`);
  }
  process.once('exit', () => spawnSync('bash', [CLUSTER_SCRIPT, 'stop', dir]));
  return started.stdout.trim();
}

export interface ScratchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the test server, so every suite starts from nothing. */
export async function scratchPostgresDatabase(): Promise<ScratchDatabase> {
  const server = await (baseUrl ??= startOrFindServer());
  const name = `detectd_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  // FORCE ends the servers' leftover connections; it may not end an autovacuum worker (a role the test's
  // is not a member of: 42501), which a plain DROP DATABASE stops by itself.
  const drop = () => admin(`drop database if exists ${name} with (force)`).catch((error: { code?: string }) => (error.code === INSUFFICIENT_PRIVILEGE ? admin(`drop database if exists ${name}`) : Promise.reject(error)));
  return { url: url.toString(), drop };
}
