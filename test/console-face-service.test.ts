import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ConsoleClient, type Page } from './support/console-client.js';
import { FACES_DIR } from './support/faces.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { faceTables } from '../src/features/faces/gallery/face-tables.js';

const FACE_ROUTES = ['/v1/vision/face', '/v1/vision/face/recognize', '/v1/vision/face/register', '/v1/vision/face/list', '/v1/vision/face/delete', '/v1/vision/face/match'];

/** The DeepStack card's routes, as listed, on the base URL it names. */
function listedRoutes(page: Page): string[] {
  const baseUrl = /<code class="break" id="deepstack-base-url">([^<]*)<\/code>/.exec(page.text)![1];
  return [.../<ul class="route-list" id="deepstack-routes">([\s\S]*?)<\/ul>/.exec(page.text)![1].matchAll(/<code>([^<]*)<\/code>/g)].map((match) => baseUrl + match[1]);
}

/** The error shown beside the field `name`, if any. */
const errorBeside = (page: Page, name: string) => new RegExp(`id="field-${name}-error">([^<]*)<`).exec(page.text)?.[1];

/** The service's own face match threshold as stored; null: the default. */
const ownThreshold = async (server: TestServer, serviceId: string) => (await faceTables(server.db).selectFrom('services').select('face_match_threshold').where('id', '=', serviceId).executeTakeFirstOrThrow()).face_match_threshold;
/** The text of the threshold the page says is in force. */
const thresholdShown = (page: Page) => /<strong id="face-threshold-value">([^<]*)<\/strong>/.exec(page.text)?.[1];

/**
 * A face service in the console without a browser: the DeepStack card names the face routes, the
 * new-service form refuses a model of the other type, and the face match threshold is shown and set.
 * The server runs the embedded face detector, whichever it is.
 */
describe('console: a face service\'s DeepStack routes, its models and its face match threshold', function () {
  this.timeout(120_000);
  let server: TestServer;
  let client: ConsoleClient;
  let faceServiceId: string;

  before(async () => {
    server = await startTestServer({ DETECTD_SIGNUP: 'open' });
    client = new ConsoleClient(server.url);
    expect((await client.signUp('faces@example.com', 'a long passphrase')).status).to.equal(303);
    await client.get('/console/services/new');
    const created = await client.post('/console/services', { name: 'Front door', type: 'face-detection', model: '' });
    expect(created.status, created.text.slice(0, 300)).to.equal(303);
    faceServiceId = /\/console\/services\/([0-9a-f-]{36})/.exec(created.location!)![1];
  });
  after(async () => server?.close());

  it('the DeepStack card of a face service lists the face routes, each answering its key; an object service\'s lists its detection routes', async () => {
    const page = await client.get(`/console/services/${faceServiceId}`);
    expect(listedRoutes(page)).to.deep.equal(FACE_ROUTES.map((route) => server.url + route));
    expect(page.text, 'no object route anywhere on the page').to.not.contain('/v1/vision/detection');
    const apiKey = (await client.revealKey(faceServiceId)).body.api_key as string;
    const call = async (url: string, image?: string) => {
      const form = new FormData();
      form.append('api_key', apiKey);
      if (image) form.append('image', new Blob([new Uint8Array(fs.readFileSync(image))]), path.basename(image));
      const response = await fetch(url, { method: 'POST', body: form });
      return { status: response.status, body: (await response.json()) as { success: boolean; predictions?: unknown[] } };
    };
    const [detect, , , list] = listedRoutes(page);
    const faces = await call(detect, path.join(FACES_DIR, 'bbt1.jpg'));
    expect(faces.status).to.equal(200);
    expect(faces.body.predictions).to.have.length.greaterThan(0);
    expect(await call(list)).to.deep.include({ status: 200 });
    // What the card used to offer: the object route refuses a face key.
    expect((await call(`${server.url}/v1/vision/detection`, path.join(FACES_DIR, 'bbt1.jpg'))).status).to.equal(403);

    const objectServiceId = await client.createService('Porch');
    expect(listedRoutes(await client.get(`/console/services/${objectServiceId}`))).to.deep.equal([`${server.url}/v1/vision/detection`, `${server.url}/v1/vision/custom/{model}`]);
  });

  it('the new-service form without JavaScript: a model of the other type is refused beside the model field, naming the type\'s models; the server default of the type is the face detector', async () => {
    const form = await client.get('/console/services/new');
    const defaultOf = (page: Page, type: string) => new RegExp(`<optgroup label="${type} models" data-type="${type}" data-default-model="([^"]*)">`).exec(page.text)![1];
    const [objectModel, faceModel] = [defaultOf(form, 'object-detection'), defaultOf(form, 'face-detection')];
    const refused = await client.post('/console/services', { name: 'Side door', type: 'face-detection', model: objectModel });
    expect(refused.status).to.equal(400);
    expect(errorBeside(refused, 'model')).to.equal(`&#34;${objectModel}&#34; does not serve face-detection services; choose one of: ${faceModel}`);
    expect(refused.text, 'the type stays chosen').to.match(/<option value="face-detection" selected>/);
    expect(refused.text, 'the model stays chosen').to.match(new RegExp(`<option value="${objectModel}" selected>`));

    const overview = await client.get(`/console/services/${faceServiceId}`);
    expect(overview.text).to.contain(`<dt>Model</dt><dd>${faceModel} (server default)</dd>`);
  });

  it('Try it calls the detector\'s confidence the face\'s on a face service, and keeps it as it was on an object service', async () => {
    const face = (await client.get(`/console/services/${faceServiceId}`)).text;
    expect(face).to.contain('>Face confidence threshold <output').and.contain('<th scope="col" class="num">Face confidence</th>').and.contain('data-confidence="face confidence"');
    const objects = (await client.get(`/console/services/${await client.createService('Driveway')}`)).text;
    expect(objects).to.contain('>Confidence threshold <output').and.contain('<th scope="col" class="num">Confidence</th>').and.contain('data-confidence="confidence"');
  });

  it('face match threshold: shown as the default, set as the service\'s own, a bad value refused in place (400), empty for the default again, only with the CSRF token', async () => {
    const overview = `/console/services/${faceServiceId}`;
    const fresh = await client.get(overview);
    const byDefault = thresholdShown(fresh);
    expect(byDefault).to.match(/^default \(0?\.\d+\)$/);
    expect(fresh.text).to.contain('<input id="field-threshold" name="threshold" type="text" value=""');

    const saved = await client.post(`${overview}/face-threshold`, { threshold: '0.7' });
    expect(saved.status).to.equal(303);
    expect(saved.location).to.equal(`${overview}?done=face-threshold#face-threshold`);
    const own = await client.get(saved.location!.replace(/#.*/, ''));
    expect(thresholdShown(own)).to.equal('0.7');
    expect(own.text).to.contain('this service\u2019s own').and.contain('<p class="notice" role="status">Face match threshold saved.</p>');
    expect(own.text).to.contain('name="threshold" type="text" value="0.7"');
    expect(await ownThreshold(server, faceServiceId)).to.equal(0.7);

    for (const bad of ['1.5', '-0.1', 'strict', '0,7']) {
      const refused = await client.post(`${overview}/face-threshold`, { threshold: bad });
      expect(refused.status, bad).to.equal(400);
      expect(refused.text, 'the service page, not an error page').to.contain('<h2 id="face-threshold-title">Face match threshold</h2>');
      expect(errorBeside(refused, 'threshold'), bad).to.equal('the face match threshold is a similarity in [0, 1]');
      expect(refused.text, 'what was typed').to.contain(`name="threshold" type="text" value="${bad}"`);
      expect(thresholdShown(refused), 'unchanged').to.equal('0.7');
    }
    expect((await client.post(`${overview}/face-threshold`, { threshold: '0.2', _csrf: '' })).status).to.equal(403);
    expect(await ownThreshold(server, faceServiceId)).to.equal(0.7);

    expect((await client.post(`${overview}/face-threshold`, { threshold: ' ' })).status).to.equal(303);
    expect(thresholdShown(await client.get(overview))).to.equal(byDefault);
    expect(await ownThreshold(server, faceServiceId)).to.equal(null);

    const objectServiceId = await client.createService('Garage');
    expect(thresholdShown(await client.get(`/console/services/${objectServiceId}`)), 'an object service has none').to.equal(undefined);
    expect((await client.post(`/console/services/${objectServiceId}/face-threshold`, { threshold: '0.5' })).status).to.equal(404);
  });
});
