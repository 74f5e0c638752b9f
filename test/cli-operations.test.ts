import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type LocalServer, startLocalServer, type ScratchStore } from '../scripts/lib/local-server.js';
import { ConsoleClient } from './support/console-client.js';
import { imageRequest } from './support/detection-client.js';
import { databaseLocation } from '../src/store/database.js';
import { databaseSettingsOf, describeEachEngine, SQLITE } from './support/engines.js';
import { smallDogJpeg } from './support/images.js';
import { DEFAULT_TEST_MODEL, modelPath } from './support/paths.js';
import { CLI, cli, cliAsync, cliAsyncOk, cliOk, requireBuild } from './support/processes.js';
import { TEST_INFERENCE_SETTINGS } from './support/inference-settings.js';

const PASSWORD = 'a long passphrase';

/** A loopback port nothing listens on (just released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const listener = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = listener.address() as net.AddressInfo;
      listener.close(() => resolve(port));
    });
  });
}
const OWNER = 'ops@example.com';

describeEachEngine('CLI operations on accounts, services and keys (real process, real database, real server)', (engine, suite) => {
  // A test runs up to 20 commands one after another, each a process of its own: on a loaded machine each takes seconds.
  suite.timeout(180_000);
  let store: ScratchStore;
  let server: LocalServer;
  let env: NodeJS.ProcessEnv;
  /** Runs the CLI and parses its --json answer, expecting exit status `status`. */
  const json = (args: string[], status = 0) => {
    const result = cli([...args, '--json'], env);
    expect(result.status, `${args.join(' ')}: ${result.stderr}`).to.equal(status);
    return JSON.parse(status === 0 ? result.stdout : result.stderr);
  };
  let photo: Buffer;
  /**
   * The status of one detection call, on a connection of its own: a refusal is answered before
   * the body is read, and a pooled keep-alive connection could then be reset under the next call.
   */
  const call = (apiKey: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const body = JSON.stringify(imageRequest(photo));
      const request = http.request(`${server.url}/api/v1/object-detection`, {
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', Authorization: `ApiKey ${apiKey}` },
      });
      request.on('response', async (response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of response) chunks.push(chunk as Buffer);
        resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      });
      request.on('error', reject);
      request.end(body);
    });
  const detect = async (apiKey: string) => (await call(apiKey)).status;

  before(async () => {
    requireBuild();
    photo = await smallDogJpeg();
    store = await engine.scratch();
    env = { ...process.env, ...store.env, DETECTD_MODEL: DEFAULT_TEST_MODEL };
    server = await startLocalServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL, ...TEST_INFERENCE_SETTINGS }, store);
    json(['account', 'create', '--email', OWNER, '--password', PASSWORD]);
  });
  after(async () => {
    await server.close();
    await store.remove();
  });

  it('lists and shows services by id or by name, and explains a wrong reference', () => {
    const created = json(['service', 'create', '--account', OWNER, '--name', 'gate camera']);
    const listed = json(['service', 'list']).services;
    expect(listed).to.deep.include({
      id: created.id,
      account: OWNER,
      name: 'gate camera',
      type: 'object-detection',
      model: null,
      disabled: false,
      created_at: created.created_at,
      rate_limit_per_minute: null,
      monthly_quota: null,
      keyless_address_ranges: null,
      deepstack_max_predictions: null,
    });
    expect(json(['service', 'list', '--account', OWNER]).services.map((entry: { id: string }) => entry.id)).to.deep.equal([created.id]);
    const byName = json(['service', 'show', 'gate camera', '--account', OWNER]);
    expect(byName).to.deep.include({ id: created.id, name: 'gate camera' });
    expect(byName.keys).to.have.length(1);
    expect(byName.keys[0]).to.include({ expires_at: null, hint: `dtd_…${created.api_key.slice(-4)}` });
    expect(JSON.stringify(byName)).not.to.contain(created.api_key);
    expect(json(['service', 'show', created.id])).to.deep.equal(byName);

    expect(json(['service', 'show', 'gate camera'], 1).error).to.deep.equal({
      code: 'service_not_found',
      message: '"gate camera" is not a service id; to name a service by its name, add --account <owner email>',
    });
    expect(json(['service', 'show', 'nothing', '--account', OWNER], 1).error.code).to.equal('service_not_found');
    expect(json(['service', 'show', 'x', '--account', 'nobody@example.com'], 1).error).to.deep.equal({ code: 'account_not_found', message: 'no account for nobody@example.com' });
    const human = cliOk(['service', 'list'], env);
    expect(human.stdout).to.match(/^ACCOUNT\s+NAME\s+TYPE\s+MODEL\s+STATUS\s+ID\n/).and.contain('gate camera');
  });

  it('rotates, revokes, disables, enables and deletes, each taking effect on the running server at once', async () => {
    const first = json(['service', 'create', '--account', OWNER, '--name', 'yard']);
    expect(await detect(first.api_key)).to.equal(200);

    const rotated = json(['service', 'rotate-key', 'yard', '--account', OWNER]);
    expect(rotated).to.include({ id: first.id, old_key_works_for_seconds: 0 });
    expect(await detect(first.api_key)).to.equal(401);
    expect(await detect(rotated.api_key)).to.equal(200);

    const graceful = json(['service', 'rotate-key', first.id, '--grace', '3600']);
    expect(await detect(rotated.api_key)).to.equal(200, 'the old key works through its grace period');
    const keys = json(['service', 'show', first.id]).keys as { id: string; expires_at: string | null }[];
    const old = keys.find((key) => key.expires_at !== null)!;
    expect(json(['service', 'revoke-key', first.id, '--key', old.id])).to.include({ revoked_key: old.id });
    expect(await detect(rotated.api_key)).to.equal(401);
    expect(json(['service', 'revoke-key', first.id, '--key', old.id], 1).error.code).to.equal('key_not_found');
    json(['service', 'revoke-key', first.id]);
    expect(await detect(graceful.api_key)).to.equal(401);
    expect(json(['service', 'show', first.id]).keys).to.deep.equal([]);

    const live = json(['service', 'rotate-key', first.id]).api_key as string;
    expect(json(['service', 'disable', first.id])).to.include({ disabled: true });
    expect(await detect(live)).to.equal(403);
    expect(json(['service', 'list']).services.find((entry: { id: string }) => entry.id === first.id).disabled).to.equal(true);
    json(['service', 'enable', 'yard', '--account', OWNER]);
    expect(await detect(live)).to.equal(200);

    const unconfirmed = cli(['service', 'delete', first.id], env);
    expect(unconfirmed.status, unconfirmed.stderr).to.equal(2);
    expect(unconfirmed.stderr).to.contain('add --yes to confirm');
    expect(await detect(live)).to.equal(200);
    expect(json(['service', 'delete', first.id, '--yes'])).to.include({ deleted: true });
    expect(await detect(live)).to.equal(401);
    expect(json(['service', 'show', first.id], 1).error.code).to.equal('service_not_found');
  });

  it('sets and clears a service\'s rate limit, quota, DeepStack prediction cap and keyless ranges; `service show` shows them; the running server honours them at once', async () => {
    const created = json(['service', 'create', '--account', OWNER, '--name', 'driveway']);
    expect(json(['service', 'show', created.id])).to.include({ rate_limit_per_minute: null, monthly_quota: null, keyless_address_ranges: null });

    expect(json(['service', 'limits', created.id, '--monthly-quota', '1'])).to.deep.equal({ id: created.id, name: 'driveway', rate_limit_per_minute: null, monthly_quota: 1, deepstack_max_predictions: null, keyless_address_ranges: null });
    expect(await detect(created.api_key)).to.equal(200);
    const spent = await call(created.api_key);
    expect(spent.status).to.equal(429);
    expect(spent.body.error.code).to.equal('quota_exceeded');
    // An option left out keeps its value; "none" removes a limit.
    expect(json(['service', 'limits', 'driveway', '--account', OWNER, '--rate-per-minute', '600'])).to.include({ rate_limit_per_minute: 600, monthly_quota: 1 });
    expect(json(['service', 'limits', created.id, '--monthly-quota', 'none'])).to.include({ rate_limit_per_minute: 600, monthly_quota: null });
    expect(await detect(created.api_key)).to.equal(200);
    const shown = cliOk(['service', 'show', created.id], env).stdout;
    expect(shown).to.match(/^rate {6}600 requests per minute$/m).and.match(/^quota {5}none$/m).and.match(/^keyless {3}off$/m);
    expect(json(['service', 'limits', created.id, '--rate-per-minute', 'none'])).to.include({ rate_limit_per_minute: null, monthly_quota: null });
    expect(json(['service', 'limits', created.id, '--deepstack-max-predictions', '20'])).to.include({ rate_limit_per_minute: null, monthly_quota: null, deepstack_max_predictions: 20 });
    const owner = (await server.domain.accounts.findAccount(OWNER))!;
    expect((await server.domain.services.find(owner.id, created.id))?.deepStackMaxPredictions, 'stored').to.equal(20);
    expect(cliOk(['service', 'show', created.id], env).stdout).to.match(/^deepstack 20 predictions per answer at most$/m);
    expect(json(['service', 'limits', created.id, '--deepstack-max-predictions', '0'], 1).error).to.deep.equal({ code: 'invalid_limit', message: 'DeepStack predictions per answer must be a whole number from 1 to 10000, or empty for no limit' });
    expect(json(['service', 'limits', created.id, '--deepstack-max-predictions', 'none'])).to.include({ deepstack_max_predictions: null });

    expect(json(['service', 'limits', created.id, '--rate-per-minute', 'fast'], 2).error.message).to.equal('--rate-per-minute must be a whole number, or "none" to remove the limit; got "fast"');
    expect(json(['service', 'limits', created.id, '--monthly-quota', '0'], 1).error).to.deep.equal({ code: 'invalid_limit', message: 'calls per month must be a whole number from 1 to 1000000000, or empty for no limit' });
    expect(json(['service', 'limits', created.id], 2).error.code).to.equal('usage');

    expect(json(['service', 'keyless', created.id, '--allow', '127.0.0.3', '10.1.0.0/16'])).to.deep.equal({ id: created.id, name: 'driveway', keyless_address_ranges: ['127.0.0.3/32', '10.1.0.0/16'] });
    expect(cliOk(['service', 'show', created.id], env).stdout).to.match(/^keyless {3}on, from 127\.0\.0\.3\/32 10\.1\.0\.0\/16$/m);
    expect((await server.domain.services.keylessServiceFor('10.1.2.3', 'object-detection'))?.id).to.equal(created.id);
    expect(json(['service', 'keyless', created.id, '--none'])).to.deep.equal({ id: created.id, name: 'driveway', keyless_address_ranges: null });
    expect(await server.domain.services.keylessServiceFor('10.1.2.3', 'object-detection')).to.equal(undefined);
    expect(json(['service', 'keyless', created.id, '--allow', '10.1.0.0/33'], 1).error.code).to.equal('invalid_address_range');
    expect(json(['service', 'keyless', created.id], 2).error.message).to.equal('give either --allow <ranges...> or --none');
    expect(json(['service', 'keyless', created.id, '--none', '--allow', '10.0.0.1'], 2).error.code).to.equal('usage');
  });

  it('disables an account: its keys get 403, its keyless ranges, console sign-in and sessions are refused, until enabled', async () => {
    const email = 'disabled@example.com';
    json(['account', 'create', '--email', email, '--password', PASSWORD]);
    const { api_key: apiKey } = json(['service', 'create', '--account', email, '--name', 'door']);
    const browser = new ConsoleClient(server.url);
    expect((await browser.signIn(email, PASSWORD)).status).to.equal(303);
    expect((await browser.get('/console/services')).status).to.equal(200);

    const owner = (await server.domain.accounts.findAccount(email))!;
    const door = (await server.domain.services.findByName(owner.id, 'door'))!;
    await server.domain.services.setKeylessAddressRanges(door, '');
    expect((await server.domain.services.keylessServiceFor('127.0.0.1', 'object-detection'))?.id).to.equal(door.id);

    expect(json(['account', 'disable', email])).to.include({ email, disabled: true });
    expect(await server.domain.services.keylessServiceFor('127.0.0.1', 'object-detection'), 'nor keyless calls').to.equal(undefined);
    const refused = await call(apiKey);
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.include({ code: 'forbidden' });
    expect(refused.body.error.message).to.contain('account').and.contain('disabled');
    expect((await browser.get('/console/services')).status, 'the open session ends').to.equal(303);
    const signIn = await new ConsoleClient(server.url).signIn(email, PASSWORD);
    expect(signIn.status).to.equal(403);
    expect(signIn.text).to.contain('This account is disabled');
    expect((await new ConsoleClient(server.url).signIn(email, 'a wrong passphrase')).status, 'a wrong password still reads as wrong').to.equal(401);
    expect(json(['account', 'list']).accounts.find((entry: { email: string }) => entry.email === email)).to.include({ disabled: true, services: 1 });

    json(['account', 'enable', email]);
    expect(await detect(apiKey)).to.equal(200);
    expect((await server.domain.services.keylessServiceFor('127.0.0.1', 'object-detection'))?.id).to.equal(door.id);
    await server.domain.services.setKeylessAddressRanges(door, null);
    expect((await new ConsoleClient(server.url).signIn(email, PASSWORD)).status).to.equal(303);
    expect(json(['account', 'disable', 'nobody@example.com'], 1).error.code).to.equal('account_not_found');
  });

  it('renames a service and changes its model as the console does, checked by the same rules; the running server follows', async () => {
    const created = json(['service', 'create', '--account', OWNER, '--name', 'porch']);
    json(['service', 'create', '--account', OWNER, '--name', 'garage']);
    expect(json(['service', 'rename', created.id, 'front porch'])).to.include({ id: created.id, name: 'front porch' });
    expect(json(['service', 'rename', 'front porch', 'garage', '--account', OWNER], 1).error).to.deep.equal({ code: 'service_name_taken', message: 'this account already has a service named "garage"' });
    expect(json(['service', 'rename', created.id, '!'], 1).error.code).to.equal('invalid_service_name');

    expect(json(['service', 'model', created.id, 'yolo26n-640-int8'])).to.include({ name: 'front porch', model: 'yolo26n-640-int8' });
    expect(await detect(created.api_key)).to.equal(200);
    expect(json(['service', 'model', created.id, 'no-such-model'], 1).error.code).to.equal('unknown_model');
    expect(json(['service', 'model', created.id, '--default'])).to.include({ model: null });
    expect(json(['service', 'show', created.id])).to.include({ name: 'front porch', model: null });
    for (const args of [['service', 'model', created.id], ['service', 'model', created.id, 'yolo26n-640-int8', '--default']]) {
      const result = cli(args, env);
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).to.equal(2);
      expect(result.stderr).to.contain('give either a model name or --default');
    }
    const human = cliOk(['service', 'rename', created.id, 'porch'], env);
    expect(human.stdout).to.equal('service front porch renamed to porch\n');
  });

  it('says which database it uses; every command but `account create` refuses a database that is not there instead of creating one', () => {
    const location = databaseLocation(databaseSettingsOf(store));
    const listed = cli(['account', 'list'], env);
    expect(listed.stderr).to.equal(`detectd: database: ${location}\n`);
    expect(listed.stdout).to.match(/^EMAIL\s+ROLE\s+/).and.match(/ops@example\.com\s+member\s+active/);
    if (engine.name === 'postgresql') {
      const url = new URL(store.env.DETECTD_DATABASE_URL);
      expect(location).to.equal(`PostgreSQL ${url.protocol}//${url.username}@${url.host}${url.pathname}`);
    }
    expect(cliOk(['account', 'create', '--email', 'member@example.com', '--password', PASSWORD], env).stdout).to.equal('account created: member@example.com (member)\n');

    // Another folder, no DETECTD_DATA_DIR nor DETECTD_DATABASE_URL: ./data of that folder, which nothing made.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-elsewhere-'));
    try {
      const { DETECTD_DATA_DIR: _dataDir, DETECTD_DATABASE_URL: _url, ...unset } = env;
      for (const args of [['account', 'list'], ['account', 'invite'], ['service', 'list'], ['service', 'show', '00000000-0000-4000-8000-000000000000'], ['service', 'rename', 'porch', 'yard', '--account', OWNER]]) {
        const result = spawnSync(process.execPath, [CLI, ...args], { env: unset, cwd: elsewhere, encoding: 'utf8' });
        expect(result.status, `${args.join(' ')}: ${result.stderr}`).to.equal(3);
        const file = path.join(fs.realpathSync(elsewhere), 'data', 'detectd.sqlite');
        expect(result.stderr).to.equal(
          `detectd: database: SQLite ${file}\n` +
            `detectd: no database at SQLite ${file}: the server makes it on its first start in DETECTD_DATA_DIR (here ${path.dirname(file)}), and so does \`detectd account create\`; ` +
            'run the command with the server\'s settings (DETECTD_DATA_DIR, or DETECTD_DATABASE_URL) or in its folder\n',
        );
      }
      expect(fs.readdirSync(elsewhere), 'nothing created').to.deep.equal([]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  // What the CLI decides before it writes (its arguments and settings, the models a --model may name, a documented command's
  // words) is the same whichever database it then writes to: checked once, on SQLite. Each write these make is one the
  // tests above make on both engines.
  if (engine === SQLITE) {
    it('runs docs/deepstack.md\u2019s keyless command for Blue Iris as pasted, its placeholders filled in (a service named by its owner)', () => {
      // An owner of its own: no other test's list of services sees this one.
      const owner = 'blue-iris@example.com';
      json(['account', 'create', '--email', owner, '--password', PASSWORD]);
      const created = json(['service', 'create', '--account', owner, '--name', 'blue iris']);
      const documented = /`npx detectd (service keyless <service name> --account <owner email> --allow [^`]+)`/.exec(fs.readFileSync('docs/deepstack.md', 'utf8'))![1]!;
      // The service's name is one argument, as a shell passes "blue iris" quoted.
      const pasted = documented.replace('<owner email>', owner).replace('<service name>', 'SERVICE').split(' ').map((word) => (word === 'SERVICE' ? 'blue iris' : word));
      expect(json(pasted)).to.deep.equal({ id: created.id, name: 'blue iris', keyless_address_ranges: ['192.168.1.20/32'] });
    });

    it('takes --model only when it names a configured model, listing the known ones otherwise', () => {
      const twoModels = { ...env, DETECTD_MODEL: `${DEFAULT_TEST_MODEL},${modelPath('yolox-nano-416')}` };
      const refused = cli(['service', 'create', '--account', OWNER, '--name', 'm1', '--model', 'no-such-model'], twoModels);
      expect(refused.status, refused.stderr).to.equal(1);
      expect(refused.stderr).to.equal(`detectd: database: ${databaseLocation(databaseSettingsOf(store))}\ndetectd: this server has no model named "no-such-model"; choose one of: yolo26n-640-int8, yolox-nano-416\n`);
      const created = cli(['service', 'create', '--account', OWNER, '--name', 'm1', '--model', 'yolox-nano-416', '--json'], twoModels);
      expect(created.status, created.stderr).to.equal(0);
      expect(JSON.parse(created.stdout)).to.include({ model: 'yolox-nano-416' });
    });

    it('checks --model against the server on this machine when the shell configures no model, else against what a server with these settings would serve, each service type offered its own kind', async () => {
      const { DETECTD_MODEL: _model, DETECTD_MODELS_DIR: _folder, ...shell } = env;
      const besideServer = { ...shell, PORT: new URL(server.url).port, HOST: '127.0.0.1' };
      const created = await cliAsync(['service', 'create', '--account', OWNER, '--name', 'pasted', '--model', 'yolo26n-640-int8', '--json'], besideServer);
      expect(created.status, created.stderr).to.equal(0);
      expect(JSON.parse(created.stdout)).to.include({ model: 'yolo26n-640-int8' });
      expect(await detect(JSON.parse(created.stdout).api_key)).to.equal(200);
      const refused = await cliAsync(['service', 'create', '--account', OWNER, '--name', 'unserved', '--model', 'yolox-nano-416', '--json'], besideServer);
      expect(refused.status, refused.stderr).to.equal(1);
      // The server's /readyz says what each of its models finds: an object service is offered its object models only, not the embedded YuNet-n.
      expect(JSON.parse(refused.stderr).error).to.deep.equal({ code: 'unknown_model', message: 'this server has no model named "yolox-nano-416"; choose one of: yolo26n-640-int8' });
      // A type whose default this server lacks (no plate model): created, and said so with the fix; a type it serves: no warning.
      const plates = await cliAsync(['service', 'create', '--account', OWNER, '--name', 'plates unserved', '--type', 'license-plate'], besideServer);
      expect(plates.status, plates.stderr).to.equal(0);
      expect(plates.stdout).to.contain('service created: plates unserved (license-plate, model the server default)');
      expect(plates.stderr).to.match(
        new RegExp(`detectd: warning: the server at ${server.url} answers this service 503 model_unavailable: no model that finds plates is loaded; fix: \`npx detectd models pull [\\w-]+\` .* and restart the server\n$`),
      );
      const platesJson = await cliAsyncOk(['service', 'create', '--account', OWNER, '--name', 'plates unserved json', '--type', 'license-plate', '--json'], besideServer);
      expect(JSON.parse(platesJson.stdout).warning).to.match(/^the server at .* answers this service 503 model_unavailable: no model that finds plates is loaded; fix: /);
      expect(platesJson.stderr, 'standard error holds only the database line with --json').to.not.contain('warning');
      const objects = await cliAsync(['service', 'create', '--account', OWNER, '--name', 'objects served'], besideServer);
      expect(objects.status, objects.stderr).to.equal(0);
      expect(objects.stderr).to.not.contain('warning');

      // No server, no model settings: what `npm start` here would serve, the embedded models.
      const noServer = { ...shell, PORT: String(await closedPort()), HOST: '127.0.0.1' };
      const typo = cli(['service', 'create', '--account', OWNER, '--name', 'typo', '--model', 'yolo-typo'], noServer);
      expect(typo.status, typo.stderr).to.equal(1);
      expect(typo.stderr).to.contain(
        `detectd: no server answers at http://127.0.0.1:${noServer.PORT}/readyz, and this shell configures no model (DETECTD_MODEL, or a model file in ${path.resolve('models')}): ` +
          'checked against the models a server started with these settings serves: yolox-nano-416, yunet-n, mobilenetv2-12-int8-emb\n',
      );
      expect(typo.stderr).to.contain('detectd: this server has no model named "yolo-typo"; choose one of: yolox-nano-416\n');
      const faceForObjects = JSON.parse(cli(['service', 'create', '--account', OWNER, '--name', 'faces wrong', '--model', 'yunet-n', '--json'], noServer).stderr);
      expect(faceForObjects.error).to.deep.equal({ code: 'unknown_model', message: '"yunet-n" does not serve object-detection services; choose one of: yolox-nano-416' });
      const objectsForFaces = JSON.parse(cli(['service', 'create', '--account', OWNER, '--name', 'objects wrong', '--type', 'face-detection', '--model', 'yolox-nano-416', '--json'], noServer).stderr);
      expect(objectsForFaces.error).to.deep.equal({ code: 'unknown_model', message: '"yolox-nano-416" does not serve face-detection services; choose one of: yunet-n' });
      const embedded = cli(['service', 'create', '--account', OWNER, '--name', 'embedded', '--model', 'yolox-nano-416', '--json'], noServer);
      expect(embedded.status, embedded.stderr).to.equal(0);
      expect(JSON.parse(embedded.stdout)).to.include({ model: 'yolox-nano-416' });
    });

    it('exits 2 on usage errors and 3 when the settings are wrong, without a stack trace', () => {
      for (const args of [['service', 'bogus'], ['service', 'show'], ['service', 'rotate-key', 'x', '--grace', 'soon'], ['account', 'create', '--email', 'x@example.com']]) {
        const result = cli(args, env);
        expect(result.status, `${args.join(' ')}: ${result.stderr}`).to.equal(2);
        expect(result.stderr).to.not.contain('    at ');
      }
      const badSetting = cli(['account', 'list'], { ...env, DETECTD_SECRET: 'short' });
      expect(badSetting.status, badSetting.stderr).to.equal(3);
      expect(badSetting.stderr).to.equal('detectd: DETECTD_SECRET must be at least 32 characters\n');
      const help = cli(['--help'], env);
      expect(help.status, help.stderr).to.equal(0);
      expect(help.stdout).to.contain('account').and.contain('service').and.contain('models');
    });
  }
});
