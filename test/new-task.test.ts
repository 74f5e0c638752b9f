import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { Command } from 'commander';
import { refusedUpgrade, StreamClient } from '../scripts/lib/stream-client.js';
import { addServiceCommands } from '../src/cli/service-commands.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { DESCRIBED_MODELS } from '../src/features/feature.js';
import { FEATURES, SCHEMA } from '../src/features/index.js';
import type { TaskTable } from '../src/tasks/task-table.js';
import { launchChromium, LAPTOP, openServicePage } from './support/chromium.js';
import { ConsoleClient } from './support/console-client.js';
import { dogJpeg } from './support/images.js';
import { photoPath, SHARED_DIR } from './support/paths.js';
import { plateModelsFolder } from './support/plate-models.js';
import { plateSummary } from './support/plate-summary/index.js';
import { NO_PLATE, PLATE_SUMMARY, PLATE_SUMMARY_VERB, plateSummaryTask } from './support/plate-summary/plate-summary-task.js';
import { FIRST_ACCOUNT, startTestServer, type TestServer } from './support/test-server.js';

const TASK_FOLDER = path.join('test', 'support', 'plate-summary');
/** A described copy of the task (its schemas, answer field), for what the test checks. */
const TASK = plateSummaryTask(DESCRIBED_MODELS);
/** What the task names that no other task does: its type, its answer field, its verb and its schemas. */
const ITS_NAMES = [`'${PLATE_SUMMARY}'`, `"${PLATE_SUMMARY}"`, `/${PLATE_SUMMARY}`, TASK.answerField, PLATE_SUMMARY_VERB, 'PlateSummary'];
/** A photo whose plate the reader reads (test/license-plate.test.ts), and what it says. */
const CAR = () => fs.readFileSync(path.join(SHARED_DIR, 'eval', 'plates', 'images', 'eu', 'eu1.jpg'));
const CAR_PLATE = 'M5XSX';
/** Every schema the server publishes, with the task's. */
const SCHEMAS = new SchemaCatalogue(undefined, TASK.schemas);

function expectValid(schema: string, answer: unknown, where: string): void {
  expect(SCHEMAS.check(schema, answer), `${where}: ${JSON.stringify(answer).slice(0, 400)}`).to.deep.equal({ ok: true });
}

/** Files under `folder` whose text holds one of `names`. */
function filesNaming(folder: string, names: readonly string[]): string[] {
  return fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((file) => path.join(folder, file))
    .filter((file) => fs.statSync(file).isFile() && names.some((name) => fs.readFileSync(file, 'utf8').includes(name)));
}

/** Runs `detectd service <args…>` as the CLI builds it, with `tasks` for its task table, against the data folder `dataDir`; its standard output. */
async function serviceCommand(tasks: TaskTable, dataDir: string, args: readonly string[]): Promise<string> {
  const program = new Command('detectd').exitOverride();
  addServiceCommands(program, { tasks, schema: SCHEMA, serviceFacts: [] });
  const written: string[] = [];
  const write = process.stdout.write;
  const dataDirBefore = process.env.DETECTD_DATA_DIR;
  process.env.DETECTD_DATA_DIR = dataDir;
  process.stdout.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stdout.write;
  try {
    await program.parseAsync(['service', ...args], { from: 'user' });
  } finally {
    process.stdout.write = write;
    if (dataDirBefore === undefined) delete process.env.DETECTD_DATA_DIR;
    else process.env.DETECTD_DATA_DIR = dataDirBefore;
  }
  return written.join('');
}

/**
 * docs/development.md "Architecture": a new feature is one folder and one line of registration. The
 * test feature of test/support/plate-summary/ (its index.ts, as a folder under src/features/ would be) has a task of a new shape: its answer (`detected_plate_summary`) is
 * one finding about the whole image, with no box; it composes two models of different roles, each
 * declared by its configuration (a plate detector, then a plate reader: the shared pair, real
 * models); and it offers a verb of its own (`summarise-plate`). Registered by one line (the list
 * below), it is served by REST v1 and legacy, the JSON stream, the DeepStack door's
 * `/v1/vision/<verb>`, the OpenAPI document, the console and the CLI, and refused clearly by the
 * Nvision stream, whose protobuf has no field for its answer. Every answer is checked against the
 * schema published for it.
 */
describe('a new task is one folder: a task whose answer has no box, composing two models of different roles, with its own verb, served by every door (real server, real models)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let models: string;
  let apiKey: string;
  // The one line of registration.
  const withPlateSummary = [...FEATURES, plateSummary];
  const post = (route: string, body: BodyInit, contentType?: string) =>
    fetch(`${server.url}${route}`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, ...(contentType && { 'Content-Type': contentType }) }, body });

  before(async () => {
    // The shared plate pair, each model's configuration declaring its family, role and kind.
    models = plateModelsFolder();
    for (const [name, role] of [['yolo-v9-t-416-license-plates-end2end-int8', 'detector'], ['cct_xs_v2_global', 'reader']] as const) {
      const file = path.join(models, `${name}.json`);
      fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), role }));
    }
    server = await startTestServer({ DETECTD_MODELS_DIR: models }, undefined, withPlateSummary);
    apiKey = await server.createService({ email: FIRST_ACCOUNT.email, name: 'plate text', type: PLATE_SUMMARY });
  });
  after(async () => {
    await server?.close();
    if (models) fs.rmSync(models, { recursive: true, force: true });
  });

  it('touches one folder: nothing outside test/support/plate-summary/ (src/, schemas/, scripts/, docs, the README) names its type, answer field, verb or schemas', () => {
    expect(fs.readdirSync(TASK_FOLDER).sort()).to.deep.equal(['index.ts', 'plate-summary-schemas.ts', 'plate-summary-task.ts']);
    expect(['src', 'schemas', 'scripts', 'docs'].flatMap((folder) => filesNaming(folder, ITS_NAMES))).to.deep.equal([]);
    expect(ITS_NAMES.filter((name) => fs.readFileSync('README.md', 'utf8').includes(name))).to.deep.equal([]);
  });

  it('REST v1 and legacy, in the three body forms: one finding for the whole image, no box, the plate read by the reader after the detector, valid against its own schema', async () => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(CAR())], { type: 'image/jpeg' }), 'car.jpg');
    const answers = [
      [`/api/v1/${PLATE_SUMMARY} (JSON)`, await post(`/api/v1/${PLATE_SUMMARY}`, JSON.stringify({ raw_data: CAR().toString('base64'), frame_id: 'f1' }), 'application/json')],
      [`/api/${PLATE_SUMMARY} (upload)`, await post(`/api/${PLATE_SUMMARY}`, new Uint8Array(CAR()), 'image/jpeg')],
      [`/api/v1/${PLATE_SUMMARY} (form)`, await post(`/api/v1/${PLATE_SUMMARY}`, form)],
    ] as const;
    for (const [where, answer] of answers) {
      expect(answer.status, where).to.equal(200);
      const body = (await answer.json()) as { detected_plate_summary: { name: string; text: string; bounding_box?: unknown; attributes: { plates: number } }[] };
      expectValid(TASK.responseSchema, body, where);
      expect(body.detected_plate_summary, where).to.have.length(1);
      const [finding] = body.detected_plate_summary;
      expect(finding, where).to.include({ name: CAR_PLATE, parent: 'image', text: CAR_PLATE });
      expect(finding, 'no box').to.not.have.property('bounding_box');
      expect(finding.attributes.plates, where).to.be.at.least(1);
    }
    const dog = await post(`/api/v1/${PLATE_SUMMARY}`, new Uint8Array(dogJpeg()), 'image/jpeg');
    const dogBody = (await dog.json()) as { detected_plate_summary: { name: string }[] };
    expectValid(TASK.responseSchema, dogBody, 'a photo without a plate');
    expect(dogBody.detected_plate_summary.map((finding) => finding.name), 'a photo without a plate').to.deep.equal([NO_PLATE]);
    const wrong = await post(`/api/v1/${PLATE_SUMMARY}?OutputCroppedImage=true`, new Uint8Array(CAR()), 'image/jpeg');
    expect(wrong.status, 'a parameter it does not take').to.equal(400);
    expectValid('error-response', await wrong.json(), 'a parameter it does not take');
    const ready = JSON.stringify(await (await fetch(`${server.url}/readyz`)).json());
    expect(ready).to.contain('cct_xs_v2_global').and.contain('yolo-v9-t-416-license-plates-end2end-int8');
  });

  it('DeepStack door: its own verb at /v1/vision/summarise-plate, the whole image as the prediction\'s box and its findings as its REST answer says them, valid against deepstack-response', async () => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(CAR())], { type: 'image/jpeg' }), 'car.jpg');
    const answer = await post(`/v1/vision/${PLATE_SUMMARY_VERB}`, form);
    expect(answer.status).to.equal(200);
    const body = (await answer.json()) as { command: string; predictions: { label: string; x_min: number; y_min: number }[]; findings: unknown[] };
    expectValid('deepstack-response', body, `/v1/vision/${PLATE_SUMMARY_VERB}`);
    expect(body.command).to.equal(PLATE_SUMMARY_VERB);
    expect(body.predictions.map((prediction) => prediction.label)).to.deep.equal([CAR_PLATE]);
    expect(body.predictions[0]).to.include({ x_min: 0, y_min: 0 });
    expectValid(TASK.responseSchema, { service_id: 'x', detected_plate_summary: body.findings }, 'its findings');
    const refused = await fetch(`${server.url}/v1/vision/${PLATE_SUMMARY_VERB}`, { method: 'POST', body: form });
    expect(refused.status, 'no key').to.equal(401);
    expectValid('deepstack-response', await refused.json(), 'no key');
  });

  it('JSON stream: the finding without a box and without a track id, valid against the stream schema', async () => {
    const client = await StreamClient.open(`${server.url.replace(/^http/, 'ws')}/api/v1/${PLATE_SUMMARY}/stream`, { headers: { Authorization: `ApiKey ${apiKey}` } });
    client.sendJson({ type: 'start', configurations: [{ parameter: 'ConfidenceThreshold', value: '0.25' }] });
    client.sendFrame(CAR(), 'one');
    const [result] = (await client.waitFor((messages) => messages.some((message) => message.type === 'result'))).filter((message) => message.type === 'result');
    expect(result.detected_plate_summary.map((finding: { name: string }) => finding.name)).to.deep.equal([CAR_PLATE]);
    expect(result.detected_plate_summary[0]).to.not.have.property('bounding_box');
    expect(result.detected_plate_summary[0]).to.not.have.property('track_id');
    expectValid('stream-server-message', result, 'stream result');
    const placed = { ...result, detected_plate_summary: [{ ...result.detected_plate_summary[0], bounding_box: { left: 0, top: 0, right: 10, bottom: 10 } }] };
    expect(SCHEMAS.check('stream-server-message', placed).ok, 'a finding with a box still needs its track id').to.equal(false);
    await client.close();
  });

  it('Nvision stream: refused with 404, saying the protobuf has no field for its answer and where its JSON stream is', async () => {
    const refused = await refusedUpgrade(`${server.url.replace(/^http/, 'ws')}/api/v1/${PLATE_SUMMARY}`, { headers: { Authorization: `ApiKey ${apiKey}` } });
    expect(refused.status).to.equal(404);
    expect(refused.body.error.message).to.contain(TASK.answerField).and.contain(`/api/v1/${PLATE_SUMMARY}/stream`);
  });

  it('OpenAPI: its REST operations with its own schemas, its JSON stream, its DeepStack verb, and no Nvision stream; the document valid', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; responses?: Record<string, { content?: Record<string, { schema: { $ref: string } }> }> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const v1 = document.paths[`/api/v1/${PLATE_SUMMARY}`];
    expect(v1.post.operationId).to.equal(`${PLATE_SUMMARY}-v1`);
    expect(v1.post.responses?.['200'].content?.['application/json'].schema.$ref).to.equal('#/components/schemas/PlateSummaryResponse');
    expect(v1, 'no Nvision stream').to.not.have.property('get');
    expect(document.paths[`/api/${PLATE_SUMMARY}`].post.operationId).to.equal(`${PLATE_SUMMARY}-legacy`);
    expect(document.paths[`/api/v1/${PLATE_SUMMARY}/stream`].get.operationId).to.equal(`${PLATE_SUMMARY}-openVideoStream`);
    expect(document.paths[`/v1/vision/${PLATE_SUMMARY_VERB}`].post.operationId).to.equal(`deepstack-${PLATE_SUMMARY_VERB}`);
    expect(document.components.schemas).to.have.property('PlateSummaryRequest');
    const validity = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(validity.errors, 'a valid OpenAPI document').to.equal(undefined);
    expect(validity.valid).to.equal(true);
  });

  it('console: the new-service form offers its type with the detector of its kind; its overview shows how to call it', async () => {
    const client = new ConsoleClient(server.url);
    expect((await client.signIn(FIRST_ACCOUNT.email, FIRST_ACCOUNT.password)).status).to.equal(303);
    const form = await client.get('/console/services/new');
    expect(form.text).to.contain(`<option value="${PLATE_SUMMARY}"`).and.contain('yolo-v9-t-416-license-plates-end2end-int8');
    const created = await client.post('/console/services', { name: 'plate text from the console', type: PLATE_SUMMARY });
    expect(created.status, created.text.slice(0, 300)).to.equal(303);
    const overview = await client.get(created.location!);
    expect(overview.text).to.contain('id="call-it"').and.contain(`/api/v1/${PLATE_SUMMARY}`).and.contain(`data-answer="${TASK.answerField}"`);
  });

  it('console in Chromium: Try it shows its finding about the whole image, without asking it to draw (it takes no OutputVisualizedImage) and with no box', async () => {
    const browser = await launchChromium();
    try {
      const problems: string[] = [];
      const page = await openServicePage(browser, server.url, 'plate text', LAPTOP, problems);
      expect(await page.getAttribute('#try-form', 'data-draws')).to.equal('false');
      await page.setInputFiles('#try-file', photoPath('dog.jpg'));
      await page.click('button:has-text("Detect")');
      await page.waitForSelector('#try-result:not([hidden])');
      expect(await page.getAttribute('#try-status', 'class')).to.not.contain('is-error');
      const rows = await page.$$eval('#try-table tbody tr', (items) => items.map((row) => Array.from(row.children, (cell) => cell.textContent)));
      expect(rows).to.have.length(1);
      expect(rows[0][0]).to.equal(NO_PLATE);
      expect(rows[0][2]).to.equal('the whole image');
      expect(await page.isHidden('#try-download'), 'nothing drawn to download').to.equal(true);
      expect(await page.getAttribute('#try-image', 'src')).to.match(/^blob:/);
      expect(problems).to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });

  it('CLI: `service create --type` offers and creates a service of it', async () => {
    const created = JSON.parse(await serviceCommand(server.tasks, server.dataDir, ['create', '--account', FIRST_ACCOUNT.email, '--name', 'plate text from the cli', '--type', PLATE_SUMMARY, '--json'])) as { type: string; api_key: string };
    expect(created.type).to.equal(PLATE_SUMMARY);
    const answer = await fetch(`${server.url}/api/v1/${PLATE_SUMMARY}`, { method: 'POST', headers: { Authorization: `ApiKey ${created.api_key}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(CAR()) });
    expect(answer.status).to.equal(200);
    expectValid(TASK.responseSchema, await answer.json(), 'a service the CLI created');
  });
});
