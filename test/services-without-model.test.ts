import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConsoleClient } from './support/console-client.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { modelPath, photoPath } from './support/paths.js';
import { cli, cliOk, requireBuild, type ServerProcess, startProcess } from './support/processes.js';

interface Readyz {
  status: string;
  services_without_model: { id: string; name: string; model: string | null; problem: string; fix: string }[];
}

describe('a service whose model is no longer loaded is never silent (real server, real models, real database)', function () {
  this.timeout(180_000);
  let folder: string;
  let env: NodeJS.ProcessEnv;
  let server: ServerProcess | undefined;
  const readyz = async (url: string) => (await (await fetch(`${url}/readyz`)).json()) as Readyz;

  before(() => {
    requireBuild();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-without-model-'));
    const { DETECTD_MODEL: _model, DETECTD_MODELS_DIR: _folder, DETECTD_DEFAULT_MODEL: _default, ...inherited } = process.env;
    env = { ...inherited, PORT: '0', HOST: '127.0.0.1', DETECTD_DATA_DIR: path.join(folder, 'data') };
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('warns at start-up, lists the service on /readyz and the console, and `service model --default` puts it back in service', async () => {
    // A server with YOLOX-nano, and a service that names it.
    const first = { ...env, DETECTD_MODEL: modelPath('yolox-nano-416') };
    cliOk(['account', 'create', '--email', 'admin@example.com', '--password', 'correct horse battery'], first);
    const created = cli(['service', 'create', '--account', 'admin@example.com', '--name', 'porch', '--model', 'yolox-nano-416', '--json'], first);
    expect(created.status, created.stderr).to.equal(0);
    const { id, api_key: apiKey } = JSON.parse(created.stdout) as { id: string; api_key: string };
    server = await startProcess(first);
    expect((await readyz(server.url)).services_without_model).to.deep.equal([]);
    expect((await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey })).status).to.equal(200);
    await server.stop();

    // Then another model in the models folder, and the server restarted without the first.
    const models = path.join(folder, 'models');
    fs.mkdirSync(models);
    fs.copyFileSync(modelPath('yolo26n-640-int8'), path.join(models, 'yolo26n-640-int8.onnx'));
    server = await startProcess({ ...env, DETECTD_MODELS_DIR: models });
    const fix = `\`npx detectd service model ${id} --default\` answers it with the default model (yolo26n-640-int8), or \`npx detectd models pull yolox-nano-416\` and restart the server`;
    const warning = server.output.map((line) => line.trim()).filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.service_id === id);
    expect(warning, server.output.join('')).to.deep.include({
      level: 40,
      service: 'detectd',
      service_name: 'porch',
      model: 'yolox-nano-416',
      msg: `service porch answers 503 model_unavailable, as model yolox-nano-416 is not loaded: ${fix}`,
    });

    const ready = await readyz(server.url);
    expect(ready.status, 'the server still serves its other services').to.equal('ready');
    expect(ready.services_without_model).to.deep.equal([{ id, name: 'porch', model: 'yolox-nano-416', problem: 'model yolox-nano-416 is not loaded', fix }]);
    const refused = await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey });
    expect(refused.status).to.equal(503);
    expect(refused.body.error.code).to.equal('model_unavailable');

    const admin = new ConsoleClient(server.url);
    expect((await admin.signIn('admin@example.com', 'correct horse battery')).status).to.equal(303);
    const list = await admin.get('/console/services');
    const row = list.text.slice(list.text.indexOf(`href="/console/services/${id}"`)).split('</tr>')[0];
    expect(row).to.contain('<span class="badge failing" title="model yolox-nano-416 is not loaded">Unavailable</span>');
    expect(row).to.not.contain('Active');
    const overview = await admin.get(`/console/services/${id}`);
    expect(overview.text).to.contain('Unavailable: model yolox-nano-416 is not loaded on this server, so calls are answered with 503 <code>model_unavailable</code>.');
    expect(overview.text).to.contain(`To fix it: <code>npx detectd service model ${id} --default</code> answers it with the default model (yolo26n-640-int8), or <code>npx detectd models pull yolox-nano-416</code> and restart the server`);
    const status = await admin.get('/console/status');
    const section = status.text.slice(status.text.indexOf('id="status-services-without-model"'));
    expect(section).to.contain(`porch <code class="break muted small">${id}</code>`).and.contain('model yolox-nano-416 is not loaded');

    // The fix the warning names, pasted: the service answers again, with the default model, from its next call.
    const fixed = cli(['service', 'model', id, '--default'], { ...env, DETECTD_MODELS_DIR: models });
    expect(fixed.status, fixed.stderr).to.equal(0);
    expect((await readyz(server.url)).services_without_model).to.deep.equal([]);
    expect((await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey })).status).to.equal(200);
    const overviewAfter = (await admin.get(`/console/services/${id}`)).text;
    expect(overviewAfter).to.not.contain('id="model-unavailable"');
    expect(overviewAfter).to.match(/<h1>porch <span class="badge on">Active<\/span><\/h1>/);
    expect((await admin.get('/console/status')).text).to.not.contain('status-services-without-model');
  });

  it('a service back in service when its model is loaded again', async () => {
    const models = path.join(folder, 'models-again');
    fs.mkdirSync(models);
    fs.copyFileSync(modelPath('yolo11n-320-int8'), path.join(models, 'yolo11n-320-int8.onnx'));
    const settings = { ...env, DETECTD_MODELS_DIR: models, DETECTD_DATA_DIR: path.join(folder, 'data-again') };
    cliOk(['account', 'create', '--email', 'owner@example.com', '--password', 'correct horse battery'], settings);
    const created = cli(['service', 'create', '--account', 'owner@example.com', '--name', 'gate', '--model', 'yolo11n-320-int8', '--json'], settings);
    expect(created.status, created.stderr).to.equal(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    // The model moved away: the service is listed; put back: it is not.
    fs.renameSync(path.join(models, 'yolo11n-320-int8.onnx'), path.join(folder, 'yolo11n-320-int8.onnx'));
    fs.copyFileSync(modelPath('yolox-nano-416'), path.join(models, 'yolox-nano-416.onnx'));
    server = await startProcess(settings);
    expect((await readyz(server.url)).services_without_model.map((service) => service.id)).to.deep.equal([id]);
    await server.stop();
    fs.renameSync(path.join(folder, 'yolo11n-320-int8.onnx'), path.join(models, 'yolo11n-320-int8.onnx'));
    server = await startProcess(settings);
    expect((await readyz(server.url)).services_without_model).to.deep.equal([]);
    expect(server.output.join('')).to.not.contain('model_unavailable');

    // A service of a type no loaded model serves (no plate detector here): the fix names the catalogue's model to pull.
    const plates = cli(['service', 'create', '--account', 'owner@example.com', '--name', 'driveway', '--type', 'license-plate', '--json'], settings);
    expect(plates.status, plates.stderr).to.equal(0);
    const { id: platesId } = JSON.parse(plates.stdout) as { id: string };
    expect((await readyz(server.url)).services_without_model).to.deep.equal([{
      id: platesId,
      name: 'driveway',
      model: null,
      problem: 'no model that finds plates is loaded',
      fix: '`npx detectd models pull yolo-v9-t-416-license-plates-end2end-int8` (`npx detectd models pull --list` shows every model that finds plates) and restart the server',
    }]);
  });
});
