import { expect } from 'chai';
import { startLocalServer } from '../scripts/lib/local-server.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { describeEachEngine, POSTGRESQL } from './support/engines.js';
import { DEFAULT_TEST_MODEL, photoPath } from './support/paths.js';
import { cli, requireBuild } from './support/processes.js';
import { TEST_INFERENCE_SETTINGS } from './support/inference-settings.js';

describeEachEngine('CLI accounts and services', (engine) => {
  before(requireBuild);

  it('creates an account and a service whose printed api_key the server accepts and its console shows', async () => {
    const store = await engine.scratch();
    const env = { ...process.env, ...store.env };
    const account = cli(['account', 'create', '--email', 'cli@example.com', '--password', 'a long passphrase', '--json'], env);
    expect(account.status, account.stderr).to.equal(0);
    expect(JSON.parse(account.stdout)).to.include({ email: 'cli@example.com' });
    const service = cli(['service', 'create', '--account', 'cli@example.com', '--name', 'from the cli', '--json'], env);
    expect(service.status, service.stderr).to.equal(0);
    const created = JSON.parse(service.stdout) as { id: string; api_key: string };
    expect(created.api_key).to.match(/^dtd_[\w-]{43}$/);
    const unknown = cli(['service', 'create', '--account', 'nobody@example.com', '--name', 'x'], env);
    expect(unknown.status, unknown.stderr).to.equal(1);
    expect(unknown.stderr).to.contain('no account for nobody@example.com');

    const server = await startLocalServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL, ...TEST_INFERENCE_SETTINGS }, store);
    try {
      expect((await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey: created.api_key })).status).to.equal(200);
      const owner = (await server.domain.accounts.findAccount('cli@example.com'))!;
      const stored = (await server.domain.services.find(owner.id, created.id))!;
      expect(await server.domain.keys.reveal(stored)).to.equal(created.api_key);
    } finally {
      await server.close();
    }
  });
});

describe('CLI configuration errors', () => {
  before(requireBuild);

  it('refuses a PostgreSQL URL without the shared DETECTD_SECRET, with a clear message and exit status 3', async () => {
    const store = await POSTGRESQL.scratch();
    try {
      const result = cli(['account', 'create', '--email', 'x@example.com', '--password', 'a long passphrase'], { ...process.env, ...store.env, DETECTD_SECRET: '' });
      expect(result.status, result.stderr).to.equal(3);
      expect(result.stderr).to.contain('DETECTD_DATABASE_URL needs DETECTD_SECRET').and.not.contain('    at ');
    } finally {
      await store.remove();
    }
  });
});
