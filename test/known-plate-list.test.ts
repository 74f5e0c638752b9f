import { expect } from 'chai';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { accountDomain } from '../src/accounts/account-domain.js';
import { KnownPlateError, KnownPlateList } from '../src/features/plates/known-plate-list.js';
import { type Database, openDatabase } from '../src/store/database.js';
import { SCHEMA, TASK_DESCRIPTIONS } from '../src/features/index.js';
import { databaseSettingsOf, describeEachEngine, TEST_SECRET } from './support/engines.js';

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, 'a KnownPlateError').to.be.instanceOf(KnownPlateError);
  return (error as KnownPlateError).code;
}

describeEachEngine('known plates in the store: two replicas on one database', (engine) => {
  let store: ScratchStore;
  /** Two connections, as two replicas of the server hold. */
  let replicas: [Database, Database];
  let serviceId: string;
  let otherServiceId: string;

  beforeEach(async () => {
    store = await engine.scratch();
    replicas = [await openDatabase(databaseSettingsOf(store), SCHEMA), await openDatabase(databaseSettingsOf(store), SCHEMA)];
    const domain = accountDomain(replicas[0], TEST_SECRET, { serviceTypes: TASK_DESCRIPTIONS.types });
    const owner = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    serviceId = (await domain.services.create(owner.id, { name: 'gate', type: 'license-plate' })).service.id;
    otherServiceId = (await domain.services.create(owner.id, { name: 'yard', type: 'license-plate' })).service.id;
  });
  afterEach(async () => {
    for (const db of replicas) await db.destroy();
    await store.remove();
  });

  it('a plate added on one replica is matched on the other at once; removed there, no longer matched here', async () => {
    const [a, b] = replicas.map((db) => new KnownPlateList(db));
    expect(await b.matcher(serviceId)).to.equal(undefined);
    await a.add(serviceId, [{ plate: 'DG2-Z6V', name: 'Amy' }]);
    expect((await b.matcher(serviceId))!('DG2Z6U')).to.deep.equal({ name: 'Amy', plate: 'DG2Z6V', distance: 1 });
    expect(await b.matcher(otherServiceId), 'another service lists nothing').to.equal(undefined);
    await b.setDistance(serviceId, 0);
    expect((await a.matcher(serviceId))!('DG2Z6U')).to.equal(undefined);
    expect(await b.remove(serviceId, 'dg2 z6v')).to.equal(true);
    expect(await a.matcher(serviceId)).to.equal(undefined);
    expect(await a.remove(serviceId, 'DG2Z6V')).to.equal(false);
  });

  it('while the database is away, matches against the list it read last', async () => {
    const [a, b] = replicas.map((db) => new KnownPlateList(db));
    await a.add(serviceId, [{ plate: 'DG2-Z6V', name: 'Amy' }]);
    expect((await b.matcher(serviceId))!('DG2Z6U')?.name).to.equal('Amy');
    await replicas[1].destroy();
    replicas[1] = await openDatabase(databaseSettingsOf(store), SCHEMA);
    // b's connection is gone: its list is the one it read.
    expect((await b.matcher(serviceId))!('DG2Z6U')?.name).to.equal('Amy');
  });

  it('keeps one writing per service (O/0 and I/1 as one), all or none, also when two calls add one plate at once (on PostgreSQL from two replicas)', async () => {
    const [a, b] = replicas.map((db) => new KnownPlateList(db));
    // Embedded SQLite serves one server process (the server lock): its calls at one instant share its connection.
    const racer = engine.name === 'sqlite' ? a : b;
    const [first, second] = await Promise.allSettled([a.add(serviceId, [{ plate: 'AB10', name: 'x' }]), racer.add(serviceId, [{ plate: 'ABI0', name: 'y' }])]);
    expect([first.status, second.status].sort()).to.deep.equal(['fulfilled', 'rejected']);
    const rejected = [first, second].find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).to.be.instanceOf(KnownPlateError).and.to.have.property('code', 'plate_exists');
    expect(await refusal(a.add(serviceId, [{ plate: 'NEW1', name: 'x' }, { plate: 'ab-1o', name: 'y' }]))).to.equal('plate_exists');
    expect((await b.list(serviceId)).map((plate) => plate.plate)).to.have.length(1);
    // The same plate in another service is that service's own.
    expect(await a.add(otherServiceId, [{ plate: 'AB10', name: 'z' }])).to.have.length(1);
    expect(await refusal(a.add(serviceId, [{ plate: '', name: 'x' }]))).to.equal('invalid_plate');
    expect(await refusal(a.add(serviceId, [{ plate: 'AB 12', name: '\u0085' }]))).to.equal('invalid_name');
    expect(await refusal(a.setDistance(serviceId, 4))).to.equal('invalid_distance');
    expect(await refusal(a.setDistance(serviceId, -1))).to.equal('invalid_distance');
    expect(await a.distance(serviceId)).to.equal(1);
  });
});
