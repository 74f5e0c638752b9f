import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { ConsoleClient } from './support/console-client.js';
import { DEFAULT_TEST_MODEL, modelPath, photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { TASK_DESCRIPTIONS } from '../src/features/index.js';

describe('console: a new service names only a model this server loaded', () => {
  let server: TestServer;
  let client: ConsoleClient;

  before(async () => {
    server = await startTestServer({ DETECTD_MODEL: `${DEFAULT_TEST_MODEL},${modelPath('yolox-nano-416')}`, DETECTD_SIGNUP: 'open' });
    client = new ConsoleClient(server.url);
    expect((await client.signUp('models@example.com', 'a long passphrase')).status).to.equal(303);
  });
  after(async () => server?.close());

  const createWith = async (fields: Record<string, string>) => {
    await client.get('/console/services/new');
    return client.post('/console/services', { type: 'object-detection', ...fields });
  };

  it('offers the loaded models in the form, each under the type of service it serves, after the type\'s server default', async () => {
    const form = (await client.get('/console/services/new')).text;
    const select = /<select id="field-model" name="model"[^>]*>([\s\S]*?)<\/select>/.exec(form)![1];
    expect(select).to.match(/^<option value="" selected>Server default for the type<\/option><optgroup /);
    const groups = [...select.matchAll(/<optgroup label="([^"]*)" data-type="([^"]*)" data-default-model="([^"]*)">(.*?)<\/optgroup>/g)].map(([, label, type, defaultModel, options]) => ({
      label,
      type,
      defaultModel,
      models: [...options.matchAll(/<option value="([^"]*)">/g)].map((match) => match[1]),
    }));
    expect(groups.map((group) => group.type)).to.deep.equal(TASK_DESCRIPTIONS.types);
    expect(groups[0]).to.deep.equal({ label: 'object-detection models', type: 'object-detection', defaultModel: 'yolo26n-640-int8', models: ['yolo26n-640-int8', 'yolox-nano-416'] });
    // The face detector every server loads when no face model is configured, whichever it is: the one loaded model besides the two named.
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { models: string[]; model_roles: Record<string, string> };
    const faceDetector = ready.models.filter((model) => ready.model_roles[model] === 'detector' && !groups[0].models.includes(model));
    expect(groups[1]).to.deep.equal({ label: 'face-detection models', type: 'face-detection', defaultModel: faceDetector[0], models: faceDetector });
  });

  it('refuses an unknown model with the reason under the model field, the loaded models named, and creates nothing', async () => {
    const refused = await createWith({ name: 'cameras', model: 'no-such-model' });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.match(
      /<div class="field has-error">\s*<label for="field-model">Model<\/label>[\s\S]*?<p class="field-error" id="field-model-error">this server has no model named &#34;no-such-model&#34;; choose one of: yolo26n-640-int8, yolox-nano-416<\/p>/,
    );
    expect(refused.text, 'the name typed is kept').to.contain('value="cameras"');
    const hostile = await createWith({ name: 'cameras', model: '<script>alert(1)</script>' });
    expect(hostile.status).to.equal(400);
    expect(hostile.text).to.contain('&#60;script&#62;').and.not.contain('<script>alert');
    const account = await server.domain.accounts.findAccount('models@example.com');
    expect(await server.domain.services.list(account!.id)).to.deep.equal([]);
  });

  it('creates a service on a loaded model, whose key the API then serves', async () => {
    const created = await createWith({ name: 'nano', model: 'yolox-nano-416' });
    expect(created.status, created.text.slice(0, 300)).to.equal(303);
    const id = /\/console\/services\/([0-9a-f-]{36})/.exec(created.location ?? '')![1];
    expect((await client.get(`/console/services/${id}`)).text).to.match(/<dt>Model<\/dt><dd>yolox-nano-416<\/dd>/);
    const apiKey = (await client.revealKey(id)).body.api_key as string;
    const answer = await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey });
    expect(answer.status).to.equal(200);
    expect(answer.body.detected_objects.map((object: { name: string }) => object.name)).to.include('dog');
  });
});
