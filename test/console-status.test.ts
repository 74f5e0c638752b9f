import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ARTIFACTS, launchChromium, signInOnPage } from './support/chromium.js';
import { ConsoleClient } from './support/console-client.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { DEFAULT_TEST_MODEL, modelPath, photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const packageVersion = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version;

describe('status page: version, uptime, inference threads, loaded models and their health, recent errors (real server, Chromium)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ DETECTD_MODEL: `${DEFAULT_TEST_MODEL},${modelPath('yolo11n-320-int8')}`, DETECTD_INFERENCE_THREADS: '2' });
  });
  after(async () => server?.close());

  it('shows the administrator this process and its last failed calls, without a key or an image; others are refused', async () => {
    expect((await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey: server.apiKey })).status).to.equal(200);
    const refused = await postDetection(server.url, { raw_data: 'not base64!' }, { apiKey: server.apiKey });
    expect(refused.status).to.equal(400);
    const unauthorised = await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey: 'dtd_wrong' });
    expect(unauthorised.status).to.equal(401);

    expect((await new ConsoleClient(server.url).signIn('user1@example.com', 'not the password')).status).to.equal(401);

    const admin = new ConsoleClient(server.url);
    expect((await admin.signIn('user1@example.com', 'correct horse battery')).status).to.equal(303);
    const page = await admin.get('/console/status');
    expect(page.status).to.equal(200);
    expect(page.headers.get('cache-control')).to.equal('no-store');
    expect(page.text).to.contain(`id="status-version">${packageVersion}<`).and.contain('id="status-threads">2<');
    expect(page.text).to.match(/id="status-uptime">(\d+ s|\d+ min)</);
    // The default of each kind a service may name none of: the first object model and the (embedded) face detector; not the describer a task composes.
    expect(page.text).to.contain('<code>yolo26n-640-int8</code> <span class="badge off">default</span>').and.contain('<code>yolo11n-320-int8</code></td>');
    expect(page.text).to.contain('<code>yunet-n</code> <span class="badge off">default</span>').and.contain('<code>dlib-face-recognition-resnet</code></td>');
    // Every loaded model with its role: both object models, the face detector and describer every server serving faces loads, and the states task's embedder.
    expect(page.text.match(/badge on">Healthy</g)?.length, 'every model healthy').to.equal(5);
    expect(page.text).to.contain('<td>detector of objects</td>').and.contain('<td>detector of faces</td>').and.contain('<td>describer of face-descriptors</td>').and.contain('<td>embedder of image-embeddings</td>');
    const errors = page.text.slice(page.text.indexOf('id="status-errors"'));
    expect(errors).to.contain(`<code>400 ${refused.body.error.code}</code>`).and.contain(refused.body.error.request_id);
    expect(errors).to.contain('<code>401 unauthorized</code>');
    // A failed sign-in: its status and where it came in (it has no error code).
    expect(errors).to.match(/<td><code>401<\/code><\/td>\s*<td><code class="break">POST \/console\/sign-in<\/code><\/td>/);
    expect(errors).to.contain('<code class="break">POST /api/v1/object-detection</code>').and.not.contain('unknown');
    expect(errors.indexOf('401 unauthorized'), 'newest first').to.be.lessThan(errors.indexOf(`400 ${refused.body.error.code}`));
    expect(page.text, 'no key on the page').to.not.contain(server.apiKey).and.not.contain('dtd_wrong');
    expect(page.text).to.contain('href="/console/status"');

    // A member who is not the administrator: no link, and the page is not there for them.
    await server.createService({ email: 'member@example.com' });
    const member = new ConsoleClient(server.url);
    expect((await member.signIn('member@example.com', 'correct horse battery')).status).to.equal(303);
    const services = await member.get('/console/services');
    expect(services.text).to.not.contain('href="/console/status"');
    expect((await member.get('/console/status')).status, 'only the administrator').to.equal(403);
    expect((await new ConsoleClient(server.url).get('/console/status')).location).to.equal('/console/sign-in');
  });

  it('reads at laptop and phone width (screenshots)', async () => {
    const browser = await launchChromium();
    try {
      for (const [width, viewport] of [['laptop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
        const page = await browser.newPage({ viewport });
        await signInOnPage(page, server.url);
        await page.waitForURL('**/console/services');
        await page.click('header >> text=Status');
        await page.waitForURL('**/console/status');
        expect(await page.textContent('h1')).to.equal('Server status');
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, 'no sideways scrolling').to.be.at.most(0);
        fs.mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: path.join(ARTIFACTS, `console-status-${width}.png`), fullPage: true });
        await page.close();
      }
    } finally {
      await browser.close();
    }
  });
});
