import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { Command } from 'commander';
import { refusedUpgrade, StreamClient } from '../scripts/lib/stream-client.js';
import { addServiceCommands } from '../src/cli/service-commands.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { EMBEDDED_MODEL_FILE } from '../src/models/embedded-model.js';
import { taskTable } from '../src/tasks/index.js';
import { TaskTable } from '../src/tasks/task-table.js';
import { ANIMAL_DETECTION, ANIMALS, animalDetectionTask } from './support/animal-detection/animal-detection-task.js';
import { ConsoleClient } from './support/console-client.js';
import { dogJpeg } from './support/images.js';
import { FIRST_ACCOUNT, startTestServer, type TestServer } from './support/test-server.js';

const TASK_FOLDER = path.join('test', 'support', 'animal-detection');
/** What the task names that no other task does: its type, its answer field, its kind of model. */
const ITS_NAMES = [ANIMAL_DETECTION, animalDetectionTask.answerField, `'${ANIMALS}'`, `"${ANIMALS}"`];

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
  addServiceCommands(program, tasks);
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
 * docs/development.md "Architecture": a new task is one folder and one line of registration. The test task of
 * test/support/animal-detection/ brings a new answer field (`detected_animals`), a new kind of
 * model (`animals`, declared in the model's configuration, `animals.json`), its own request and
 * response schemas and parameters; registered by one line (the table below), it is served by REST
 * v1 and legacy, the JSON stream, the OpenAPI document, the console and the CLI, and refused
 * clearly by the Nvision stream, whose protobuf has no field for its answer.
 */
describe('a new task is one folder: a task with a new answer field and a new kind of model, served by every door (real server, real model)', () => {
  let server: TestServer;
  let models: string;
  let apiKey: string;
  // The one line of registration.
  const withAnimals = (tasks: TaskTable) => new TaskTable([...tasks.all, animalDetectionTask]);

  before(async () => {
    // A real object model, declared to find animals: the kind of model the task needs.
    models = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-animals-'));
    fs.copyFileSync(EMBEDDED_MODEL_FILE, path.join(models, 'animal-spotter.onnx'));
    fs.writeFileSync(path.join(models, 'animal-spotter.json'), JSON.stringify({ kind: ANIMALS }));
    server = await startTestServer({ DETECTD_MODELS_DIR: models }, undefined, (dependencies) => withAnimals(taskTable(dependencies)));
    apiKey = await server.createService({ name: 'animals', type: ANIMAL_DETECTION });
  });
  after(async () => {
    await server?.close();
    fs.rmSync(models, { recursive: true, force: true });
  });

  it('touches one folder: nothing outside test/support/animal-detection/ (src/, schemas/, docs, the README) names its type, answer field or kind', () => {
    expect(fs.readdirSync(TASK_FOLDER).sort()).to.deep.equal(['animal-detection-schemas.ts', 'animal-detection-task.ts']);
    expect(['src', 'schemas', 'docs'].flatMap((folder) => filesNaming(folder, ITS_NAMES))).to.deep.equal([]);
    expect(ITS_NAMES.filter((name) => fs.readFileSync('README.md', 'utf8').includes(name))).to.deep.equal([]);
  });

  it('REST v1 and legacy: the dog under detected_animals (no other field), by the model of its kind, the answer valid against its own schema', async () => {
    const schemas = new SchemaCatalogue(undefined, animalDetectionTask.schemas);
    for (const route of [`/api/v1/${ANIMAL_DETECTION}`, `/api/${ANIMAL_DETECTION}`]) {
      const answer = await fetch(`${server.url}${route}`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ raw_data: dogJpeg().toString('base64'), frame_id: 'f1' }) });
      expect(answer.status, route).to.equal(200);
      const body = (await answer.json()) as Record<string, unknown> & { detected_animals: { name: string; parent: string }[] };
      expect(body.detected_animals.map((animal) => animal.name), route).to.include('dog');
      expect(body.detected_animals.every((animal) => animal.parent === 'animal'), 'only animals').to.equal(true);
      expect(body).to.not.have.property('detected_objects');
      expect(body.frame_id).to.equal('f1');
      expect(schemas.check(animalDetectionTask.responseSchema, body)).to.deep.equal({ ok: true });
    }
    const upload = await fetch(`${server.url}/api/v1/${ANIMAL_DETECTION}?ConfidenceThreshold=0.99`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(dogJpeg()) });
    expect(((await upload.json()) as { detected_animals: unknown[] }).detected_animals, 'its parameters, from the query string').to.deep.equal([]);
    const wrong = await fetch(`${server.url}/api/v1/${ANIMAL_DETECTION}?TargetClasses=dog`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(dogJpeg()) });
    expect(wrong.status, 'a parameter it does not take').to.equal(400);
    const models = (await (await fetch(`${server.url}/readyz`)).json()) as unknown;
    expect(JSON.stringify(models)).to.contain('animal-spotter');
  });

  it('JSON stream: results under detected_animals with track ids, valid against the stream schema', async () => {
    const client = await StreamClient.open(`${server.url.replace(/^http/, 'ws')}/api/v1/${ANIMAL_DETECTION}/stream`, { headers: { Authorization: `ApiKey ${apiKey}` } });
    client.sendJson({ type: 'start', configurations: [{ parameter: 'ConfidenceThreshold', value: '0.3' }] });
    client.sendFrame(dogJpeg(), 'one');
    const [result] = (await client.waitFor((messages) => messages.some((message) => message.type === 'result'))).filter((message) => message.type === 'result');
    expect(result.detected_animals.map((animal: { name: string }) => animal.name)).to.include('dog');
    expect(result.detected_animals[0].track_id).to.be.a('number');
    expect(result).to.not.have.property('detected_objects');
    expect(new SchemaCatalogue().check('stream-server-message', result)).to.deep.equal({ ok: true });
    await client.close();
  });

  it('Nvision stream: refused with 404, saying the protobuf has no field for its answer and where its JSON stream is', async () => {
    const refused = await refusedUpgrade(`${server.url.replace(/^http/, 'ws')}/api/v1/${ANIMAL_DETECTION}`, { headers: { Authorization: `ApiKey ${apiKey}` } });
    expect(refused.status).to.equal(404);
    expect(refused.body.error.message).to.contain('detected_animals').and.contain(`/api/v1/${ANIMAL_DETECTION}/stream`);
  });

  it('OpenAPI: its REST operations with its own request and response schemas, its JSON stream, and no Nvision stream; the document valid', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; responses?: Record<string, { content?: Record<string, { schema: { $ref: string } }> }> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const v1 = document.paths[`/api/v1/${ANIMAL_DETECTION}`];
    expect(v1.post.operationId).to.equal(`${ANIMAL_DETECTION}-v1`);
    expect(v1.post.responses?.['200'].content?.['application/json'].schema.$ref).to.equal('#/components/schemas/AnimalDetectionResponse');
    expect(v1, 'no Nvision stream').to.not.have.property('get');
    expect(document.paths[`/api/${ANIMAL_DETECTION}`].post.operationId).to.equal(`${ANIMAL_DETECTION}-legacy`);
    expect(document.paths[`/api/v1/${ANIMAL_DETECTION}/stream`].get.operationId).to.equal(`${ANIMAL_DETECTION}-openVideoStream`);
    expect(document.components.schemas).to.have.property('AnimalDetectionRequest');
    const validity = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(validity.errors, 'a valid OpenAPI document').to.equal(undefined);
    expect(validity.valid).to.equal(true);
  });

  it('console: the new-service form offers its type with the model of its kind; its overview shows how to call it', async () => {
    const client = new ConsoleClient(server.url);
    expect((await client.signIn(FIRST_ACCOUNT.email, FIRST_ACCOUNT.password)).status).to.equal(303);
    const form = await client.get('/console/services/new');
    expect(form.text).to.contain(`<option value="${ANIMAL_DETECTION}"`).and.contain('animal-spotter');
    const created = await client.post('/console/services', { name: 'animals from the console', type: ANIMAL_DETECTION });
    expect(created.status, created.text.slice(0, 300)).to.equal(303);
    const overview = await client.get(created.location!);
    expect(overview.text).to.contain('id="call-it"').and.contain(`/api/v1/${ANIMAL_DETECTION}`).and.contain('data-answer="detected_animals"');
  });

  it('CLI: `service create --type` offers and creates a service of it', async () => {
    const created = JSON.parse(await serviceCommand(server.tasks, server.dataDir, ['create', '--account', FIRST_ACCOUNT.email, '--name', 'animals from the cli', '--type', ANIMAL_DETECTION, '--json'])) as { type: string; api_key: string };
    expect(created.type).to.equal(ANIMAL_DETECTION);
    const answer = await fetch(`${server.url}/api/v1/${ANIMAL_DETECTION}`, { method: 'POST', headers: { Authorization: `ApiKey ${created.api_key}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(dogJpeg()) });
    expect(answer.status).to.equal(200);
  });
});
