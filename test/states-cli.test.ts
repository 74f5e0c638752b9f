import fs from 'node:fs';
import { expect } from 'chai';
import { pklotFrame as frame, pklotLabel } from './support/pklot.js';
import { cliAsync, requireBuild } from './support/processes.js';
import { FIRST_ACCOUNT, startTestServer, type TestServer } from './support/test-server.js';

const stateOf = (file: string, space: string) => pklotLabel(file, space).state;

/** One parking space, taught from September frames around midday (two of each state), judged on an October frame. */
const TAUGHT = ['2012-09-14_11_06_16', '2012-09-15_11_57_13', '2012-09-16_12_28_10', '2012-09-21_12_50_27'];
const JUDGED = '2012-10-31_12_08_14';
const SERVICE = 'cli parking';

describe('CLI: detectd service regions|region-add|region-remove|state-examples|state-teach|state-example-remove beside a real server (embedded MobileNetV2, PKLot frames)', function () {
  this.timeout(180_000);
  let server: TestServer;
  let key: string;
  let beside: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => cliAsync(['service', ...args, '--account', FIRST_ACCOUNT.email], beside);
  const cliJson = async (...args: string[]) => {
    const run = await cli(...args, '--json');
    expect(run.status, `${args.join(' ')}: ${run.stderr}`).to.equal(0);
    return JSON.parse(run.stdout);
  };

  before(async () => {
    requireBuild();
    server = await startTestServer();
    key = await server.createService({ email: FIRST_ACCOUNT.email, name: SERVICE, type: 'region-states' });
    const { DETECTD_MODEL: _model, DETECTD_MODELS_DIR: _folder, ...shell } = process.env;
    beside = { ...shell, DETECTD_DATA_DIR: server.dataDir };
  });
  after(async () => server?.close());

  it('draws a box and a polygon, teaches a space both states through the server, which then judges a frame never taught from right; lists, removes an example and a region', async () => {
    const box = await cliJson('region-add', SERVICE, 'space_10', '--box', '598,186,634,230', '--source', 'pucpr');
    expect(box).to.deep.include({ source_id: 'pucpr', name: 'space_10', bounding_box: { left: 598, top: 186, right: 634, bottom: 230 }, polygon: null, examples: {} });
    const polygon = await cliJson('region-add', SERVICE, 'space_11', '--polygon', '634,187 664,188 664,226 632,224', '--source', 'pucpr');
    expect(polygon).to.deep.include({ name: 'space_11', bounding_box: { left: 632, top: 187, right: 664, bottom: 226 }, polygon: [[634, 187], [664, 188], [664, 226], [632, 224]] });

    for (const file of TAUGHT) {
      const taught = await cli('state-teach', SERVICE, frame(file), 'space_10', stateOf(file, 'space_10'), '--source', 'pucpr', '--url', server.url);
      expect(taught.status, taught.stderr).to.equal(0);
      expect(taught.stdout).to.match(new RegExp(`^space_10 on camera "pucpr" of ${SERVICE} taught as ${stateOf(file, 'space_10')} \\(example [0-9a-f-]{36}\\)\\n$`));
    }
    const judged = await fetch(`${server.url}/api/v1/region-states`, {
      method: 'POST',
      headers: { Authorization: `ApiKey ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ raw_data: fs.readFileSync(frame(JUDGED)).toString('base64'), source_id: 'pucpr' }),
    });
    const states = ((await judged.json()) as { detected_states: { name: string; state: string }[] }).detected_states;
    expect(states.find((found) => found.name === 'space_10')?.state).to.equal(stateOf(JUDGED, 'space_10'));

    const regions = await cliJson('regions', SERVICE, '--source', 'pucpr');
    expect(regions.regions.map((region: { name: string; examples: object }) => [region.name, region.examples])).to.deep.equal([['space_10', { empty: 2, occupied: 2 }], ['space_11', {}]]);
    const words = await cli('regions', SERVICE, '--source', 'pucpr');
    expect(words.status, words.stderr).to.equal(0);
    expect(words.stdout.split('\n').slice(0, 3)).to.deep.equal([
      'REGION    EXAMPLES             SHAPE',
      'space_10  empty 2, occupied 2  box 598,186,634,230',
      'space_11  none                 polygon 634,187 664,188 664,226 632,224',
    ]);
    const none = await cli('regions', SERVICE);
    expect(none.status, none.stderr).to.equal(0);
    expect(none.stdout).to.equal(`${SERVICE} has no regions on no camera named\n`);

    const { examples } = await cliJson('state-examples', SERVICE, '--source', 'pucpr', '--region', 'space_10');
    expect(examples.map((example: { state: string }) => example.state).sort()).to.deep.equal(['empty', 'empty', 'occupied', 'occupied']);
    expect(examples[0]).to.have.all.keys('id', 'region', 'state', 'embedder', 'created');
    expect(examples[0].embedder).to.match(/^mobilenetv2-12-int8-emb 64x64 \d+$/);
    expect(await cliJson('state-example-remove', SERVICE, examples[0].id)).to.deep.include({ id: examples[0].id, removed: true });
    expect((await cliJson('state-examples', SERVICE, '--source', 'pucpr')).examples.map((example: { id: string }) => example.id)).to.deep.equal(examples.slice(1).map((example: { id: string }) => example.id));

    expect(await cliJson('region-remove', SERVICE, 'space_11', '--source', 'pucpr')).to.deep.include({ region: 'space_11', removed: true });
    expect((await cliJson('regions', SERVICE, '--source', 'pucpr')).regions.map((region: { name: string }) => region.name)).to.deep.equal(['space_10']);
  });

  it('refuses what it cannot do with its own code and exit status: a shape missing or broken, a region or example it lacks, another type of service, no photo, no server', async () => {
    await server.createService({ email: FIRST_ACCOUNT.email, name: 'objects', type: 'object-detection' });
    const refusals: [string[], number, string][] = [
      [['region-add', SERVICE, 'gate'], 2, 'usage'],
      [['region-add', SERVICE, 'gate', '--box', '1,2,3'], 2, 'usage'],
      [['region-add', SERVICE, 'gate', '--box', '1,2,3,4', '--polygon', '1,2 3,4 5,6'], 2, 'usage'],
      [['region-add', SERVICE, 'gate', '--polygon', '1,2 3,4 5'], 2, 'usage'],
      [['region-add', SERVICE, 'gate', '--box', '10,10,5,5'], 1, 'invalid_region'],
      [['region-add', SERVICE, 'gate', '--polygon', '1,1 2,2 3,3'], 1, 'invalid_region'],
      [['region-remove', SERVICE, 'nowhere'], 1, 'region_not_found'],
      [['state-example-remove', SERVICE, '00000000-0000-4000-8000-000000000000'], 1, 'example_not_found'],
      [['regions', 'objects'], 1, 'not_a_states_service'],
      [['state-teach', SERVICE, frame(JUDGED), 'nowhere', 'open', '--url', server.url], 1, 'not_found'],
      [['state-teach', SERVICE, '/nonexistent.jpg', 'space_10', 'open', '--url', server.url], 2, 'unreadable_photo'],
      [['state-teach', SERVICE, frame(JUDGED), 'space_10', 'open', '--url', 'http://127.0.0.1:9'], 3, 'no_server'],
    ];
    for (const [args, status, code] of refusals) {
      const refused = await cli(...args, '--json');
      expect([refused.status, JSON.parse(refused.stderr).error.code], args.join(' ')).to.deep.equal([status, code]);
    }
    expect((await cliJson('regions', SERVICE)).regions).to.deep.equal([]);
  });
});
