import { expect } from 'chai';
import { ConsoleClient, type Page } from './support/console-client.js';
import { DEFAULT_TEST_MODEL, modelPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const PASSWORD = 'a long passphrase';

/** The input (or select, textarea) named `name` in a page, as markup. */
function control(page: Page, name: string): string {
  const found = new RegExp(`<(?:input|select|textarea) [^>]*name="${name}"[^>]*>`).exec(page.text);
  if (!found) throw new Error(`no control named ${name}`);
  return found[0];
}

/** The error shown beside the field `name`, if any. */
const errorBeside = (page: Page, name: string) => new RegExp(`id="field-${name}-error">([^<]*)<`).exec(page.text)?.[1];

describe('console forms validate in place: values kept, every error beside its field, a 4xx page', () => {
  let server: TestServer;
  let client: ConsoleClient;
  let serviceId: string;

  before(async () => {
    server = await startTestServer({ DETECTD_SIGNUP: 'open', DETECTD_MODEL: `${DEFAULT_TEST_MODEL},${modelPath('yolox-nano-416')}` });
    client = new ConsoleClient(server.url);
    expect((await client.signUp('forms@example.com', PASSWORD)).status).to.equal(303);
    serviceId = await client.createService('Porch');
  });
  after(async () => server?.close());

  it('limits: 0 and −5 come back on the service page with both errors beside their fields and the typed values; nothing is saved', async () => {
    const overview = await client.get(`/console/services/${serviceId}`);
    expect(control(overview, 'rate_limit_per_minute')).to.contain('min="1"').and.contain('max="1000000"').and.contain('step="1"');
    expect(control(overview, 'monthly_quota')).to.contain('min="1"').and.contain('max="1000000000"');

    const refused = await client.post(`/console/services/${serviceId}/limits`, { rate_limit_per_minute: '0', monthly_quota: '-5' });
    expect(refused.status).to.equal(400);
    expect(refused.text, 'the service page, not an error page').to.contain('<h2 id="limits-title">Limits</h2>').and.not.contain('Bad request');
    expect(control(refused, 'rate_limit_per_minute')).to.contain('value="0"').and.contain('aria-invalid="true"').and.contain('autofocus');
    expect(control(refused, 'monthly_quota')).to.contain('value="-5"').and.contain('aria-invalid="true"').and.not.contain('autofocus');
    expect(errorBeside(refused, 'rate_limit_per_minute')).to.equal('requests per minute must be a whole number from 1 to 1000000, or empty for no limit');
    expect(errorBeside(refused, 'monthly_quota')).to.equal('calls per month must be a whole number from 1 to 1000000000, or empty for no limit');
    expect(refused.text).to.not.contain('Limits saved');

    const oneBad = await client.post(`/console/services/${serviceId}/limits`, { rate_limit_per_minute: '30', monthly_quota: 'lots' });
    expect(oneBad.status).to.equal(400);
    expect(control(oneBad, 'rate_limit_per_minute'), 'the good value is kept too').to.contain('value="30"').and.not.contain('aria-invalid');
    expect(errorBeside(oneBad, 'rate_limit_per_minute')).to.equal(undefined);
    expect(errorBeside(oneBad, 'monthly_quota')).to.match(/^calls per month must be/);
    const stored = await server.domain.services.findAnywhere(serviceId);
    expect([stored!.rateLimitPerMinute, stored!.monthlyQuota], 'a refused form saves nothing').to.deep.equal([null, null]);

    const saved = await client.post(`/console/services/${serviceId}/limits`, { rate_limit_per_minute: '30', monthly_quota: '1_000' });
    expect(saved.location).to.equal(`/console/services/${serviceId}?done=limits#limits`);
    const after = await client.get(saved.location!);
    expect(control(after, 'rate_limit_per_minute')).to.contain('value="30"');
    expect(control(after, 'monthly_quota')).to.contain('value="1000"');
  });

  it('new service: every error at once (name, type, model), each beside its field, with what was typed; a taken name is 409', async () => {
    await client.get('/console/services/new');
    const refused = await client.post('/console/services', { name: '  ', type: 'no-such-task', model: 'no-such-model' });
    expect(refused.status).to.equal(400);
    expect(errorBeside(refused, 'name')).to.match(/^a service name is 1–63/);
    expect(errorBeside(refused, 'type')).to.contain('unknown service type &#34;no-such-task&#34;');
    expect(errorBeside(refused, 'model')).to.contain('this server has no model named &#34;no-such-model&#34;');
    expect(control(refused, 'name')).to.contain('required').and.contain('maxlength="63"').and.contain('autofocus');

    const kept = await client.post('/console/services', { name: 'bad/name', type: 'object-detection', model: 'yolox-nano-416' });
    expect(kept.status).to.equal(400);
    expect(control(kept, 'name')).to.contain('value="bad/name"');
    expect(kept.text, 'the chosen model stays chosen').to.match(/<option value="yolox-nano-416" selected>/);
    expect(errorBeside(kept, 'model')).to.equal(undefined);

    const taken = await client.post('/console/services', { name: 'Porch', type: 'object-detection' });
    expect(taken.status).to.equal(409);
    expect(errorBeside(taken, 'name')).to.equal('this account already has a service named &#34;Porch&#34;');
  });

  it('sign-up: a bad email and a short password are both shown, the email kept', async () => {
    const visitor = new ConsoleClient(server.url);
    await visitor.get('/console/sign-up');
    const refused = await visitor.post('/console/sign-up', { email: 'not an email', password: 'short' });
    expect(refused.status).to.equal(400);
    expect(errorBeside(refused, 'email')).to.equal('not an email address: &#34;not an email&#34;');
    expect(errorBeside(refused, 'password')).to.match(/^the password must have 8 to 1024 characters/);
    expect(control(refused, 'email')).to.contain('value="not an email"').and.contain('autofocus');
    expect(control(refused, 'password')).to.contain('minlength="8"').and.contain('required').and.not.contain('value="short"');
  });

  it('sign-in: an empty field is said beside it (400) and is not counted as a failed attempt', async () => {
    const visitor = new ConsoleClient(server.url);
    await visitor.get('/console/sign-in');
    const neither = await visitor.post('/console/sign-in', { email: ' ', password: '' });
    expect(neither.status).to.equal(400);
    expect(errorBeside(neither, 'email')).to.equal('enter your email');
    expect(errorBeside(neither, 'password')).to.equal('enter your password');
    for (let attempt = 0; attempt < 6; attempt++) {
      const noPassword = await visitor.post('/console/sign-in', { email: 'forms@example.com', password: '' });
      expect(noPassword.status).to.equal(400);
      expect(control(noPassword, 'email')).to.contain('value="forms@example.com"');
      expect(control(noPassword, 'password')).to.contain('autofocus');
    }
    expect((await visitor.post('/console/sign-in', { email: 'forms@example.com', password: PASSWORD })).status, 'not throttled').to.equal(303);
  });

  it('keyless ranges: a bad range comes back in place, as typed', async () => {
    const refused = await client.post(`/console/services/${serviceId}/keyless`, { keyless: 'on', ranges: '10.0.0.0/8\n300.1.1.1/33' });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.contain('>10.0.0.0/8\n300.1.1.1/33</textarea>');
    expect(errorBeside(refused, 'keyless-ranges')).to.contain('&#34;300.1.1.1/33&#34; is not an address range');
  });

  it('every form posted from the console carries the CSRF token, and a refused one is refused without it', async () => {
    const admin = new ConsoleClient(server.url);
    expect((await admin.signIn('user1@example.com', 'correct horse battery')).status).to.equal(303);
    const pages: [ConsoleClient, string][] = [
      ...['/console/services', '/console/services/new', `/console/services/${serviceId}`, '/console/account'].map((path): [ConsoleClient, string] => [client, path]),
      [admin, '/console/invitations'],
      [admin, '/console/accounts'],
    ];
    for (const [client, path] of pages) {
      const page = await client.get(path);
      expect(page.status, path).to.equal(200);
      const forms = [...page.text.matchAll(/<form method="post"[\s\S]*?<\/form>/g)].map((match) => match[0]);
      expect(forms.length, path).to.be.greaterThan(0);
      for (const form of forms) expect(form, `${path}: ${form.slice(0, 120)}`).to.contain(`<input type="hidden" name="_csrf" value="${client.csrfToken}">`);
    }
    for (const [action, fields] of [
      ['limits', { rate_limit_per_minute: '5' }],
      ['settings', { name: 'renamed', model: '' }],
    ] as const) {
      expect((await client.post(`/console/services/${serviceId}/${action}`, { ...fields, _csrf: '' })).status, action).to.equal(403);
    }
    expect((await server.domain.services.findAnywhere(serviceId))!.name).to.equal('Porch');
  });

  it('an error page leads back to the console page the visitor came from', async () => {
    const from = `${server.url}/console/services/${serviceId}`;
    const missing = await client.post(`/console/services/${serviceId}/keys/00000000-0000-4000-8000-000000000000/revoke`, {}, { Referer: from });
    expect(missing.status).to.equal(404);
    expect(missing.text).to.contain(`href="/console/services/${serviceId}">Back</a>`);
    const elsewhere = await client.post(`/console/services/${serviceId}/keys/00000000-0000-4000-8000-000000000000/revoke`, {}, { Referer: 'https://evil.example/console/x' });
    expect(elsewhere.text).to.contain('href="/console">Back to the console</a>');
  });
});
