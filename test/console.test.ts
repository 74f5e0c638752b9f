import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { ConsoleClient } from './support/console-client.js';
import { describeEachEngine } from './support/engines.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { consoleUsageRequests } from './support/usage.js';

const PASSWORD = 'a long passphrase';
const dog = () => imageRequest(photoPath('dog.jpg'));

describeEachEngine('web console over HTTP', (engine) => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ DETECTD_KEY_ROTATION_GRACE_SECONDS: '3600', DETECTD_SIGNUP: 'open' }, engine);
  });
  after(async () => server?.close());

  it('signs up, shows errors in place, and signs in and out with an HttpOnly, SameSite session cookie', async () => {
    const ann = new ConsoleClient(server.url);
    const signedUp = await ann.signUp('ann@example.com', PASSWORD);
    expect(signedUp.status).to.equal(303);
    expect(signedUp.location).to.equal('/console/services');
    const cookie = signedUp.headers.getSetCookie().find((line) => line.startsWith('detectd_session='));
    expect(cookie).to.match(/HttpOnly/i).and.match(/SameSite=Lax/i).and.match(/Path=\/console/);
    const empty = (await ann.get('/console/services')).text;
    expect(empty).to.contain('No services yet');
    expect(empty).to.contain('<p>Create a service to get an API key for <code>POST /api/v1/object-detection</code>, <code>POST /api/v1/face-detection</code>, <code>POST /api/v1/license-plate</code> or <code>POST /api/v1/region-states</code>.</p>');

    const taken = await new ConsoleClient(server.url).signUp('ANN@example.com', PASSWORD);
    expect(taken.status).to.equal(409);
    expect(taken.text).to.match(/<div class="field has-error">\s*<label for="field-email">Email<\/label>[\s\S]*?already registered/);
    const weak = await new ConsoleClient(server.url).signUp('bob@example.com', 'short');
    expect(weak.status).to.equal(400);
    expect(weak.text).to.match(/field-password-error">the password must have/);
    expect(weak.text).to.contain('value="bob@example.com"');

    const signedOut = await ann.post('/console/sign-out');
    expect(signedOut.location).to.equal('/console/sign-in?signed-out');
    expect((await ann.get('/console/services')).location).to.equal('/console/sign-in');
    const wrong = await ann.signIn('ann@example.com', 'not the passphrase');
    expect(wrong.status).to.equal(401);
    expect(wrong.text).to.contain('Wrong email or password.');
    expect((await ann.signIn('ann@example.com', PASSWORD)).location).to.equal('/console/services');
  });

  it('refuses forms without, or with a wrong, CSRF token', async () => {
    const client = new ConsoleClient(server.url);
    await client.get('/console/sign-up');
    const none = await client.post('/console/sign-up', { email: 'csrf@example.com', password: PASSWORD, _csrf: '' });
    expect(none.status).to.equal(403);
    expect(none.text).to.contain('Reload the page and try again').and.not.contain(' at ');
    const forged = await client.post('/console/sign-up', { email: 'csrf@example.com', password: PASSWORD, _csrf: 'A'.repeat(43) });
    expect(forged.status).to.equal(403);
    // A token from another browser (another CSRF cookie) does not fit this one.
    const other = new ConsoleClient(server.url);
    await other.get('/console/sign-up');
    expect((await client.post('/console/sign-up', { email: 'csrf@example.com', password: PASSWORD, _csrf: other.csrfToken })).status).to.equal(403);
    expect(await server.domain.accounts.findAccount('csrf@example.com')).to.equal(undefined);
    const revealWithoutToken = await fetch(`${server.url}/console/services/00000000-0000-4000-8000-000000000000/api-key`, { method: 'POST' });
    expect(revealWithoutToken.status).to.equal(403);
  });

  it('rate-limits failed sign-ins per account and address with 429 and Retry-After', async () => {
    const client = new ConsoleClient(server.url);
    await client.signUp('guarded@example.com', PASSWORD);
    await client.post('/console/sign-out');
    for (let attempt = 0; attempt < 5; attempt++) expect((await client.signIn('guarded@example.com', `guess ${attempt} wrong`)).status).to.equal(401);
    const limited = await client.signIn('guarded@example.com', PASSWORD);
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 15 * 60);
    expect(limited.text).to.contain('Too many failed sign-ins');
    expect((await client.signIn('ann@example.com', PASSWORD)).status, 'another account is not limited').to.equal(303);
  });

  it('creates a service whose overview shows the endpoint, a curl example and the masked API Key that the API accepts', async () => {
    const client = new ConsoleClient(server.url);
    await client.signUp('owner@example.com', PASSWORD);
    const form = await client.get('/console/services/new');
    expect(form.text, 'the breadcrumb ends on this page').to.contain('<li><a href="/console/services">Services</a></li><li aria-current="page">New service</li>');
    const bad = await client.post('/console/services', { name: '  ', type: 'object-detection' });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.match(/field-name-error">a service name is/);
    const badType = await client.post('/console/services', { name: 'typed', type: 'face-recognition' });
    expect(badType.status).to.equal(400);
    expect(badType.text).to.contain('unknown service type');

    const id = await client.createService('Front door');
    const overview = await client.get(`/console/services/${id}?done=created`);
    expect(overview.status).to.equal(200);
    expect(overview.headers.get('cache-control')).to.equal('no-store');
    expect(overview.headers.get('content-security-policy')).to.contain("script-src 'self'");
    expect(overview.text).to.contain('Front door').and.contain('<dt>API Key</dt>').and.contain(`${server.url}/api/v1/object-detection`);
    expect(overview.text).to.contain('curl -s').and.contain('Service created.');

    const revealed = await client.revealKey(id);
    expect(revealed.status).to.equal(200);
    const apiKey = revealed.body.api_key as string;
    expect(apiKey).to.match(/^dtd_[\w-]{43}$/);
    expect(overview.text, 'the page itself never carries the key').to.not.contain(apiKey);
    const listed = await client.get('/console/services');
    expect(listed.text).to.contain(`/console/services/${id}`).and.contain('Front door');

    const detection = await postDetection(server.url, dog(), { apiKey });
    expect(detection.status).to.equal(200);
    await postDetection(server.url, { raw_data: '!!!' }, { apiKey });
    expect(await consoleUsageRequests(client, id, 2)).to.equal(2);
    const page = (await client.get(`/console/services/${id}?window=hour`)).text;
    expect(page).to.match(/id="usage-images">1</).and.match(/id="usage-errors">1</).and.contain('<code>invalid_base64</code>');
    expect(Number(/id="usage-detections">(\d+)</.exec(page)?.[1])).to.be.at.least(3);
    expect(page).to.match(/id="usage-p50">\d+(\.\d)? ms</).and.contain('<figure class="chart"');
    expect(server.logText(), 'keys never reach the log').to.not.contain(apiKey);
  });

  it('rotates with a grace period or at once, revokes, disables and deletes; every change holds at once', async () => {
    const client = new ConsoleClient(server.url);
    await client.signUp('rotor@example.com', PASSWORD);
    const id = await client.createService('rotating');
    const first = (await client.revealKey(id)).body.api_key as string;

    expect((await client.post(`/console/services/${id}/rotate`, { old_key: 'grace' })).location).to.equal(`/console/services/${id}?done=rotated`);
    const second = (await client.revealKey(id)).body.api_key as string;
    expect(second).to.not.equal(first);
    expect((await postDetection(server.url, dog(), { apiKey: first })).status, 'old key in its grace period').to.equal(200);
    expect((await client.get(`/console/services/${id}`)).text).to.contain('Previous key').and.contain('works until');

    await client.post(`/console/services/${id}/rotate`, { old_key: 'revoke' });
    const third = (await client.revealKey(id)).body.api_key as string;
    expect((await postDetection(server.url, dog(), { apiKey: second })).status, 'revoked at once').to.equal(401);
    expect((await postDetection(server.url, dog(), { apiKey: third })).status).to.equal(200);

    const keyIds = [...(await client.get(`/console/services/${id}`)).text.matchAll(/\/keys\/([0-9a-f-]{36})\/revoke/g)].map((match) => match[1]);
    for (const keyId of new Set(keyIds)) await client.post(`/console/services/${id}/keys/${keyId}/revoke`);
    expect((await postDetection(server.url, dog(), { apiKey: first })).status).to.equal(401);
    expect((await postDetection(server.url, dog(), { apiKey: third })).status).to.equal(401);
    expect((await client.get(`/console/services/${id}`)).text).to.contain('No working API key');
    expect((await client.revealKey(id)).status).to.equal(404);

    await client.post(`/console/services/${id}/rotate`, { old_key: 'revoke' });
    const fourth = (await client.revealKey(id)).body.api_key as string;
    await client.post(`/console/services/${id}/disable`);
    expect((await postDetection(server.url, dog(), { apiKey: fourth })).status).to.equal(403);
    await client.post(`/console/services/${id}/enable`);
    expect((await postDetection(server.url, dog(), { apiKey: fourth })).status).to.equal(200);
    expect((await client.post(`/console/services/${id}/delete`)).location).to.equal('/console/services?done=deleted');
    expect((await postDetection(server.url, dog(), { apiKey: fourth })).status).to.equal(401);
    expect((await client.get(`/console/services/${id}`)).status).to.equal(404);
  });

  it('answers 404 for another account\u2019s service on every route, and leaves it untouched', async () => {
    const owner = new ConsoleClient(server.url);
    await owner.signUp('private@example.com', PASSWORD);
    const id = await owner.createService('private');
    const ownerKey = (await owner.revealKey(id)).body.api_key as string;

    const intruder = new ConsoleClient(server.url);
    await intruder.signUp('intruder@example.com', PASSWORD);
    await intruder.get('/console/services');
    const page = await intruder.get(`/console/services/${id}`);
    expect(page.status).to.equal(404);
    expect(page.text).to.contain('no such service').and.not.contain('private</');
    const reveal = await intruder.revealKey(id);
    expect(reveal.status).to.equal(404);
    expect(JSON.stringify(reveal.body)).to.not.contain(ownerKey);
    const [keyId] = [...(await owner.get(`/console/services/${id}`)).text.matchAll(/\/keys\/([0-9a-f-]{36})\/revoke/g)].map((match) => match[1]);
    for (const action of ['rotate', 'disable', 'enable', 'delete', `keys/${keyId}/revoke`]) {
      expect((await intruder.post(`/console/services/${id}/${action}`, { old_key: 'revoke' })).status, action).to.equal(404);
    }
    expect((await intruder.get('/console/services')).text).to.not.contain(id);
    expect((await postDetection(server.url, dog(), { apiKey: ownerKey })).status, 'the owner\u2019s key still works').to.equal(200);
    expect((await owner.revealKey(id)).body.api_key).to.equal(ownerKey);
  });

  it('escapes what users typed, and answers bad input with pages, not stack traces', async () => {
    const client = new ConsoleClient(server.url);
    const signedUp = await client.signUp('<b>x</b>@example.com', PASSWORD);
    expect(signedUp.status).to.equal(303);
    const list = await client.get('/console/services');
    expect(list.text).to.contain('&#60;b&#62;x&#60;/b&#62;@example.com').and.not.contain('<b>x</b>');
    const missing = await client.get('/console/no-such-page');
    expect(missing.status).to.equal(404);
    expect(missing.text).to.contain('Page not found');
    const huge = await client.post('/console/services', { name: 'x'.repeat(40_000) });
    expect(huge.status).to.equal(413);
    expect(huge.text).to.contain('Too much data').and.not.match(/at \w+ \(/);
    const repeated = await fetch(`${server.url}/console/sign-in`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: `detectd_csrf=${client.cookie('detectd_csrf')}` },
      body: `_csrf=${client.csrfToken}&email=a&email=b&password=x`,
    });
    expect(repeated.status).to.equal(401);
    const unknownWindow = await client.get(`/console/services/${await client.createService('windowed')}?window=%3Cscript%3E`);
    expect(unknownWindow.status).to.equal(200);
    expect(unknownWindow.text).to.contain('aria-current="page">Last 24 hours');
  });
});
