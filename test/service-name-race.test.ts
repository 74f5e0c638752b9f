import { expect } from 'chai';
import { ConsoleClient } from './support/console-client.js';
import { describeEachEngine } from './support/engines.js';
import { startTestServer, type TestServer } from './support/test-server.js';

describeEachEngine('one service name made by calls at the same instant (real server, real database)', (engine) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ DETECTD_SIGNUP: 'open' }, engine);
  });
  after(async () => server?.close());

  it('creating or renaming services to one name at once: one succeeds, every other gets the checked case\u2019s 409, none a 500', async () => {
    const client = new ConsoleClient(server.url);
    expect((await client.signUp('race@example.com', 'a long passphrase')).status).to.equal(303);
    await client.get('/console/services/new');
    const created = await Promise.all([1, 2, 3, 4].map(() => client.post('/console/services', { name: 'gate', type: 'object-detection' })));
    expect(created.map((page) => page.status).sort()).to.deep.equal([303, 409, 409, 409]);
    for (const page of created.filter((each) => each.status === 409)) expect(page.text).to.contain('this account already has a service named');

    const ids = [await client.createService('a'), await client.createService('b'), await client.createService('c')];
    const renamed = await Promise.all(ids.map((id) => client.post(`/console/services/${id}/settings`, { name: 'yard', model: '' })));
    expect(renamed.map((page) => page.status).sort()).to.deep.equal([303, 409, 409]);
  });
});
