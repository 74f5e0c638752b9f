import { expect } from 'chai';
import { sql } from '../src/store/kysely.js';
import { type Database, openDatabase } from '../src/store/database.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { ConsoleClient } from './support/console-client.js';
import { databaseSettingsOf, POSTGRESQL } from './support/engines.js';
import { DEFAULT_TEST_MODEL, photoPath } from './support/paths.js';
import { cli, cliOk, requireBuild, type ServerProcess, startProcess } from './support/processes.js';
import { consoleUsageRequests } from './support/usage.js';
import { refusedUpgrade, StreamClient, streamUrl } from '../scripts/lib/stream-client.js';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { SCHEMA } from '../src/features/index.js';

const dog = () => imageRequest(photoPath('dog.jpg'));

describe('migrations on a fresh PostgreSQL database, run by many processes at once', () => {
  it('eight openDatabase calls at once all succeed, and each migration runs exactly once', async () => {
    const store = await POSTGRESQL.scratch();
    const opened = await Promise.allSettled(Array.from({ length: 8 }, () => openDatabase(databaseSettingsOf(store), SCHEMA)));
    try {
      for (const result of opened) expect(result.status, String((result as PromiseRejectedResult).reason)).to.equal('fulfilled');
      const db = (opened[0] as PromiseFulfilledResult<Database>).value;
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
      expect(applied.rows.map((row) => row.name)).to.deep.equal(SCHEMA.migrationNames);
    } finally {
      for (const result of opened) if (result.status === 'fulfilled') await result.value.destroy();
      await store.remove();
    }
  });
});

describe('two server processes on one PostgreSQL database behave as one service', () => {
  let store: ScratchStore;
  let replicas: ServerProcess[] = [];

  before(async () => {
    requireBuild();
    store = await POSTGRESQL.scratch();
    const env = { ...process.env, ...store.env, DETECTD_MODEL: DEFAULT_TEST_MODEL, HOST: '127.0.0.1', DETECTD_INFERENCE_THREADS: '1' };
    // Started at once on a fresh database: both run the migrations at the same time.
    const started = await Promise.allSettled([startProcess({ ...env, PORT: '0' }), startProcess({ ...env, PORT: '0' })]);
    replicas = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    for (const result of started) if (result.status === 'rejected') throw result.reason;
  });
  after(async () => {
    for (const replica of replicas) expect(await replica.stop()).to.equal(0);
    await store?.remove();
  });

  it('accepts on B a key made in A\u2019s console, counts calls on both, and refuses a rotated-out or revoked key on both at once', async () => {
    const [a, b] = replicas;
    expect(a.url).to.not.equal(b.url);
    const consoleA = new ConsoleClient(a.url);
    await consoleA.signUp('replicas@example.com', 'a long passphrase');
    const id = await consoleA.createService('shared');
    const first = (await consoleA.revealKey(id)).body.api_key as string;

    expect((await postDetection(b.url, dog(), { apiKey: first })).status, 'B accepts A\u2019s key').to.equal(200);
    expect((await postDetection(a.url, dog(), { apiKey: first })).status).to.equal(200);

    // B's console shows the same service and key, and its rotation holds on A at once.
    const consoleB = new ConsoleClient(b.url);
    expect((await consoleB.signIn('replicas@example.com', 'a long passphrase')).status).to.equal(303);
    expect((await consoleB.revealKey(id)).body.api_key).to.equal(first);
    await consoleB.post(`/console/services/${id}/rotate`, { old_key: 'revoke' });
    expect((await postDetection(a.url, dog(), { apiKey: first })).status, 'A refuses the revoked key').to.equal(401);
    expect((await postDetection(b.url, dog(), { apiKey: first })).status, 'B refuses the revoked key').to.equal(401);
    const second = (await consoleA.revealKey(id)).body.api_key as string;
    expect((await postDetection(a.url, dog(), { apiKey: second })).status).to.equal(200);

    // Revoking the current key in A's console stops it on B.
    const keyId = /\/keys\/([0-9a-f-]{36})\/revoke/.exec((await consoleA.get(`/console/services/${id}`)).text)![1];
    await consoleA.post(`/console/services/${id}/keys/${keyId}/revoke`);
    expect((await postDetection(b.url, dog(), { apiKey: second })).status, 'B refuses the revoked key').to.equal(401);

    // Usage from both processes adds up.
    expect(await consoleUsageRequests(consoleB, id, 3), 'one call answered on B, two on A; a refused key reaches no service').to.equal(3);
    for (const replica of replicas) expect(replica.output.join('')).to.not.contain(first).and.not.contain(second);
  });

  it('redeems on B a stream token issued by A, once: a second redeem on A is refused', async () => {
    const [a, b] = replicas;
    const env = { ...process.env, ...store.env };
    cliOk(['account', 'create', '--email', 'tokens@example.com', '--password', 'a long passphrase'], env);
    const created = cli(['service', 'create', '--account', 'tokens@example.com', '--name', 'tokens', '--json'], env);
    expect(created.status, created.stderr).to.equal(0);
    const apiKey = (JSON.parse(created.stdout) as { api_key: string }).api_key;

    const issued = await postDetection(a.url, '', { apiKey, path: '/api/v1/object-detection/stream-tokens' });
    expect(issued.status).to.equal(201);
    const token = issued.body.token as string;
    const stream = await StreamClient.open(streamUrl(b.url, token));
    stream.sendJson({ type: 'start' });
    await stream.waitFor((messages) => messages.some((message) => message.type === 'ready'));
    await stream.close();

    const again = await refusedUpgrade(streamUrl(a.url, token));
    expect(again.status, 'A refuses the token B redeemed').to.equal(401);
    expect(again.body.error.message).to.match(/token/);

    // Redeemed on both at the same moment, a token still opens one stream only.
    const raced = (await postDetection(a.url, '', { apiKey, path: '/api/v1/object-detection/stream-tokens' })).body.token as string;
    const attempts = await Promise.allSettled([StreamClient.open(streamUrl(a.url, raced)), StreamClient.open(streamUrl(b.url, raced))]);
    expect(attempts.map((attempt) => attempt.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    for (const attempt of attempts) if (attempt.status === 'fulfilled') await attempt.value.close();
    for (const replica of replicas) expect(replica.output.join('')).to.not.contain(token).and.not.contain(apiKey);
  });
});
