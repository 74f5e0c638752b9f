import { expect } from 'chai';
import { Kysely, Migrator } from '../src/store/kysely.js';
import { type AccountDomain, accountDomain } from '../src/accounts/account-domain.js';
import { AccountError } from '../src/accounts/account-error.js';
import { SESSION_SECONDS } from '../src/accounts/console-sessions.js';
import { generateApiKey, hashApiKey } from '../src/accounts/api-keys.js';
import { SignInThrottle } from '../src/accounts/sign-in-throttle.js';
import { type Database, dialectFor, openDatabase } from '../src/store/database.js';
import type { Tables } from '../src/store/tables.js';
import { SCHEMA, TASK_DESCRIPTIONS } from '../src/features/index.js';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { databaseSettingsOf, describeEachEngine, TEST_SECRET } from './support/engines.js';

async function expectAccountError(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, `expected AccountError ${code}`).to.be.instanceOf(AccountError);
  expect((error as AccountError).code).to.equal(code);
}

describeEachEngine('accounts, services and API keys in the store', (engine) => {
  let store: ScratchStore;
  let db: Database;
  let domain: AccountDomain;
  /** The domain's clock: tests move it instead of waiting. */
  let now: Date;
  const advanceClock = (seconds: number) => (now = new Date(now.getTime() + seconds * 1000));

  beforeEach(async () => {
    store = await engine.scratch();
    db = await openDatabase(databaseSettingsOf(store), SCHEMA);
    now = new Date();
    domain = accountDomain(db, TEST_SECRET, { serviceTypes: TASK_DESCRIPTIONS.types, modelNames: ['yolo26n-640-int8', 'yolox-nano-416'], now: () => now });
  });
  afterEach(async () => {
    await db.destroy();
    await store.remove();
  });

  it('creates accounts with normalised emails, refuses duplicates and bad input, and checks passwords', async () => {
    const account = await domain.accounts.createAccount('  Ann@Example.COM ', 'a long passphrase');
    expect(account.email).to.equal('ann@example.com');
    await expectAccountError(domain.accounts.createAccount('ann@example.com', 'another passphrase'), 'email_taken');
    await expectAccountError(domain.accounts.createAccount('not-an-email', 'a long passphrase'), 'invalid_email');
    await expectAccountError(domain.accounts.createAccount('bob@example.com', 'short'), 'weak_password');
    expect(await domain.accounts.checkCredentials('ANN@example.com', 'a long passphrase')).to.deep.equal(account);
    expect(await domain.accounts.checkCredentials('ann@example.com', 'a wrong passphrase')).to.equal(undefined);
    expect(await domain.accounts.checkCredentials('nobody@example.com', 'a long passphrase')).to.equal(undefined);
    const stored = await db.selectFrom('accounts').select('password_hash').executeTakeFirstOrThrow();
    expect(stored.password_hash).to.match(/^scrypt\$/).and.not.contain('a long passphrase');
  });

  it('answers service_name_taken (and email_taken), never a database error, when calls create or rename services (or create accounts) under one name at the same instant', async () => {
    const ann = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    const outcomes = async (calls: Promise<unknown>[]) =>
      (await Promise.allSettled(calls)).map((outcome) => (outcome.status === 'fulfilled' ? 'ok' : outcome.reason instanceof AccountError ? outcome.reason.code : String(outcome.reason)));
    const created = await outcomes([1, 2, 3, 4].map(() => domain.services.create(ann.id, { name: 'gate' })));
    expect(created.sort()).to.deep.equal(['ok', 'service_name_taken', 'service_name_taken', 'service_name_taken']);
    const others = await Promise.all(['a', 'b', 'c'].map(async (name) => (await domain.services.create(ann.id, { name })).service));
    const renamed = await outcomes(others.map((service) => domain.services.update(service, { name: 'yard', model: null })));
    expect(renamed.sort()).to.deep.equal(['ok', 'service_name_taken', 'service_name_taken']);
    const names = (await domain.services.list(ann.id)).map((service) => service.name);
    expect(names.filter((name) => name === 'gate' || name === 'yard').sort()).to.deep.equal(['gate', 'yard']);
    expect(names).to.have.length(4);
    const emails = await outcomes([1, 2, 3].map(() => domain.accounts.createAccount('bob@example.com', 'a long passphrase')));
    expect(emails.sort()).to.deep.equal(['email_taken', 'email_taken', 'ok']);
  });

  it('keeps each account\u2019s services to itself', async () => {
    const ann = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    const bob = await domain.accounts.createAccount('bob@example.com', 'a long passphrase');
    const { service } = await domain.services.create(ann.id, { name: 'cameras', model: 'yolox-nano-416' });
    await domain.services.create(bob.id, { name: 'cameras' });
    expect(service).to.include({ name: 'cameras', type: 'object-detection', model: 'yolox-nano-416', disabled: false });
    expect((await domain.services.list(ann.id)).map((s) => s.id)).to.deep.equal([service.id]);
    expect(await domain.services.find(bob.id, service.id)).to.equal(undefined);
    expect(await domain.services.find(ann.id, 'not-a-uuid')).to.equal(undefined);
    await expectAccountError(domain.services.create(ann.id, { name: 'cameras' }), 'service_name_taken');
    await expectAccountError(domain.services.create(ann.id, { name: '<script>' }), 'invalid_service_name');
    await expectAccountError(domain.services.create(ann.id, { name: 'x', type: 'face-recognition' }), 'unknown_service_type');
    await expectAccountError(domain.services.create(ann.id, { name: 'y', model: 'gpt' }), 'unknown_model');
  });

  it('stores keys encrypted and hashed, never in plain text, and reveals them to their service only', async () => {
    const ann = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    const { service, apiKey } = await domain.services.create(ann.id, { name: 'cameras' });
    const row = await db.selectFrom('api_keys').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).to.not.contain(apiKey);
    expect(row.key_hash).to.equal(hashApiKey(TEST_SECRET, apiKey));
    expect(row.key_ciphertext).to.match(/^v1\./);
    expect(await domain.keys.reveal(service)).to.equal(apiKey);
    expect((await domain.keys.authenticate(apiKey))?.id).to.equal(service.id);
    // Another server secret can neither find nor decrypt the key.
    const otherSecret = accountDomain(db, 'another-secret-of-at-least-32-characters', { serviceTypes: TASK_DESCRIPTIONS.types });
    expect(await otherSecret.keys.authenticate(apiKey)).to.equal(undefined);
    await otherSecret.keys.reveal(service).then(
      () => expect.fail('decrypted under the wrong secret'),
      (error: unknown) => expect(error).to.be.instanceOf(Error),
    );
  });

  it('rotates with a grace period or at once, revokes, and forgets expired keys', async () => {
    const ann = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    const { service, apiKey: first } = await domain.services.create(ann.id, { name: 'cameras' });

    const second = await domain.keys.rotate(service, 3600);
    expect(await domain.keys.authenticate(first), 'old key in its grace period').to.not.equal(undefined);
    expect(await domain.keys.authenticate(second)).to.not.equal(undefined);
    expect(await domain.keys.reveal(service)).to.equal(second);
    const active = await domain.keys.active(service);
    expect(active.map((key) => key.expiresAt === null)).to.deep.equal([true, false]);
    expect(active[0].hint).to.equal(`dtd_…${second.slice(-4)}`);

    const third = await domain.keys.rotate(service, 0);
    expect(await domain.keys.authenticate(second), 'revoked at once').to.equal(undefined);
    expect(await domain.keys.authenticate(first), 'still in its own grace period').to.not.equal(undefined);
    expect(await domain.keys.revoke(service, active[1].id)).to.equal(true);
    expect(await domain.keys.authenticate(first)).to.equal(undefined);

    const current = (await domain.keys.active(service))[0];
    expect(await domain.keys.revoke(service, current.id)).to.equal(true);
    expect(await domain.keys.authenticate(third)).to.equal(undefined);
    expect(await domain.keys.reveal(service)).to.equal(undefined);
    expect(await domain.keys.active(service)).to.deep.equal([]);

    const fourth = await domain.keys.rotate(service, 60);
    const fifth = await domain.keys.rotate(service, 60);
    advanceClock(59);
    expect(await domain.keys.authenticate(fourth), 'a second before its grace period ends').to.not.equal(undefined);
    expect(await domain.keys.active(service)).to.have.length(2);
    advanceClock(1);
    expect(await domain.keys.authenticate(fourth), 'grace period over').to.equal(undefined);
    expect(await domain.keys.active(service)).to.have.length(1);
    expect(await domain.keys.authenticate(fifth)).to.not.equal(undefined);
  });

  it('refuses to touch a key through another account\u2019s service', async () => {
    const ann = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    const bob = await domain.accounts.createAccount('bob@example.com', 'a long passphrase');
    const { service: annService, apiKey } = await domain.services.create(ann.id, { name: 'cameras' });
    const { service: bobService } = await domain.services.create(bob.id, { name: 'cameras' });
    const [annKey] = await domain.keys.active(annService);
    expect(await domain.keys.revoke(bobService, annKey.id)).to.equal(false);
    expect(await domain.keys.authenticate(apiKey)).to.not.equal(undefined);
  });

  it('disables, enables and deletes services with their keys and usage', async () => {
    const ann = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    const { service, apiKey } = await domain.services.create(ann.id, { name: 'cameras' });
    await domain.services.setDisabled(service, true);
    expect((await domain.keys.authenticate(apiKey))?.disabled).to.equal(true);
    await domain.services.setDisabled(service, false);
    expect((await domain.keys.authenticate(apiKey))?.disabled).to.equal(false);
    await db.insertInto('usage_counters').values({ service_id: service.id, minute: '2026-01-01T00:00', counter: 'requests', value: 3 }).execute();
    await domain.services.delete(service);
    expect(await domain.keys.authenticate(apiKey)).to.equal(undefined);
    expect(await db.selectFrom('api_keys').select('id').execute()).to.deep.equal([]);
    expect(await db.selectFrom('usage_counters').select('service_id').execute()).to.deep.equal([]);
  });

  it('keeps console sessions by hashed token until they end', async () => {
    const ann = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    const token = await domain.sessions.start(ann.id);
    expect(await domain.sessions.account(token)).to.deep.equal(ann);
    const row = await db.selectFrom('console_sessions').selectAll().executeTakeFirstOrThrow();
    expect(row.token_hash).to.not.equal(token);
    expect(await domain.sessions.account(token + 'x')).to.equal(undefined);
    advanceClock(SESSION_SECONDS - 1);
    expect(await domain.sessions.account(token), 'a second before it ends').to.deep.equal(ann);
    advanceClock(1);
    expect(await domain.sessions.account(token), 'expired').to.equal(undefined);
    const again = await domain.sessions.start(ann.id);
    expect(await db.selectFrom('console_sessions').select('token_hash').execute(), 'the expired session was dropped at the next sign-in').to.have.length(1);
    await domain.sessions.end(again);
    expect(await domain.sessions.account(again)).to.equal(undefined);
  });

  it('throttles sign-ins per email and client address after repeated failures', async () => {
    const throttle = new SignInThrottle(db, { maxFailures: 3, windowSeconds: 60 });
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await throttle.retryAfterSeconds('Ann@example.com', '10.0.0.1')).to.equal(0);
      await throttle.recordFailure('ann@example.com', '10.0.0.1');
    }
    const wait = await throttle.retryAfterSeconds('ann@example.com', '10.0.0.1');
    expect(wait).to.be.within(1, 60);
    expect(await throttle.retryAfterSeconds('ann@example.com', '10.0.0.2'), 'another address').to.equal(0);
    expect(await throttle.retryAfterSeconds('bob@example.com', '10.0.0.1'), 'another account').to.equal(0);
    await throttle.clear('ann@example.com', '10.0.0.1');
    expect(await throttle.retryAfterSeconds('ann@example.com', '10.0.0.1')).to.equal(0);
  });

  it('migrates a database from the first release: old keys keep working, and ask to be rotated to be shown', async () => {
    await db.destroy();
    await store.remove();
    store = await engine.scratch();
    // Build the schema as the first release shipped it, with a key stored the old way (hash only).
    const first = new Kysely<Tables>({ dialect: await dialectFor(databaseSettingsOf(store)) });
    const { error } = await new Migrator({ db: first, provider: SCHEMA.provider }).migrateTo('0001-accounts-services-keys');
    expect(error).to.equal(undefined);
    const legacyKey = generateApiKey();
    await first.insertInto('accounts').values({ id: 'a0000000-0000-4000-8000-000000000000', email: 'old@example.com', password_hash: 'x', created_at: '2026-01-01T00:00:00.000Z' }).execute();
    await first
      .insertInto('services')
      .values({ id: 'b0000000-0000-4000-8000-000000000000', account_id: 'a0000000-0000-4000-8000-000000000000', name: 'legacy', type: 'object-detection', model: null, created_at: '2026-01-01T00:00:00.000Z', disabled_at: null })
      .execute();
    await (first as unknown as Kysely<{ api_keys: Omit<Tables['api_keys'], 'key_ciphertext'> }>)
      .insertInto('api_keys')
      .values({ id: 'c0000000-0000-4000-8000-000000000000', service_id: 'b0000000-0000-4000-8000-000000000000', key_hash: hashApiKey(TEST_SECRET, legacyKey), created_at: '2026-01-01T00:00:00.000Z', expires_at: null, revoked_at: null })
      .execute();
    await first.destroy();

    db = await openDatabase(databaseSettingsOf(store), SCHEMA);
    domain = accountDomain(db, TEST_SECRET, { serviceTypes: TASK_DESCRIPTIONS.types });
    const service = await domain.keys.authenticate(legacyKey);
    expect(service?.name).to.equal('legacy');
    expect(await domain.keys.reveal(service!)).to.equal(undefined);
    expect((await domain.keys.active(service!))[0].hint).to.equal(null);
    const rotated = await domain.keys.rotate(service!, 0);
    expect(await domain.keys.reveal(service!)).to.equal(rotated);
    expect(await domain.keys.authenticate(legacyKey)).to.equal(undefined);
  });
});
