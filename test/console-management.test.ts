import { expect } from 'chai';
import { type LocalServer, startLocalServer, type ScratchStore } from '../scripts/lib/local-server.js';
import { ConsoleClient, type Page } from './support/console-client.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { describeEachEngine } from './support/engines.js';
import { DEFAULT_TEST_MODEL, modelPath, photoPath } from './support/paths.js';
import { cli, cliOk, requireBuild } from './support/processes.js';
import { TEST_INFERENCE_SETTINGS } from './support/inference-settings.js';

const PASSWORD = 'a long passphrase';
/** The account startLocalServer makes first: the administrator. */
const ADMIN = { email: 'user1@example.com', password: 'correct horse battery' };
const dog = () => imageRequest(photoPath('dog.jpg'));
const errorBeside = (page: Page, name: string) => new RegExp(`id="field-${name}-error">([^<]*)<`).exec(page.text)?.[1];

/** The model that answered the last call of `serviceId`, from the server's call log. */
function lastModelOf(server: LocalServer, serviceId: string): string | undefined {
  const calls = server
    .logText()
    .split('\n')
    .filter((line) => line.includes(`"service_id":"${serviceId}"`));
  return calls.length ? (JSON.parse(calls[calls.length - 1]) as { model?: string }).model : undefined;
}

describeEachEngine('console management: password, service name and model, accounts (real server, real database)', (engine) => {
  let store: ScratchStore;
  let server: LocalServer;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    requireBuild();
    store = await engine.scratch();
    const models = `${DEFAULT_TEST_MODEL},${modelPath('yolox-nano-416')}`;
    env = { ...process.env, ...store.env, DETECTD_MODEL: models };
    server = await startLocalServer({ DETECTD_MODEL: models, DETECTD_SIGNUP: 'open', ...TEST_INFERENCE_SETTINGS }, store);
  });
  after(async () => server?.close());

  it('changes the password with the current one: both errors at once, other browsers signed out, this one kept', async () => {
    const here = new ConsoleClient(server.url);
    expect((await here.signUp('changer@example.com', PASSWORD)).status).to.equal(303);
    const elsewhere = new ConsoleClient(server.url);
    expect((await elsewhere.signIn('changer@example.com', PASSWORD)).status).to.equal(303);

    const page = await here.get('/console/account');
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('id="account-email">changer@example.com<').and.contain('id="account-role">Member<');
    expect(page.text).to.match(/<input id="field-new_password" name="new_password" type="password" value="" autocomplete="new-password" minlength="8" maxlength="1024" required/);

    const refused = await here.post('/console/account/password', { current_password: 'not it at all', new_password: 'short' });
    expect(refused.status).to.equal(400);
    expect(errorBeside(refused, 'current_password')).to.equal('the current password is not right');
    expect(errorBeside(refused, 'new_password')).to.match(/^the password must have 8 to/);
    expect(refused.text, 'passwords are never sent back').to.not.contain('not it at all').and.not.contain('value="short"');
    expect((await here.post('/console/account/password', { current_password: PASSWORD, new_password: 'a new passphrase', _csrf: '' })).status).to.equal(403);

    const changed = await here.post('/console/account/password', { current_password: PASSWORD, new_password: 'a new passphrase' });
    expect(changed.location).to.equal('/console/account?done=password');
    expect((await here.get('/console/account?done=password')).text, 'this browser stays signed in').to.contain('Password changed.');
    expect((await elsewhere.get('/console/services')).location, 'the other browser is signed out').to.equal('/console/sign-in');
    expect((await new ConsoleClient(server.url).signIn('changer@example.com', PASSWORD)).status).to.equal(401);
    expect((await new ConsoleClient(server.url).signIn('changer@example.com', 'a new passphrase')).status).to.equal(303);

    // Guessing the current password is throttled like sign-in: five wrong ones, then 429 even for the right one.
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await here.post('/console/account/password', { current_password: `guess ${attempt}`, new_password: 'another passphrase' })).status).to.equal(400);
    }
    const limited = await here.post('/console/account/password', { current_password: 'a new passphrase', new_password: 'another passphrase' });
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 15 * 60);
    expect(limited.text).to.contain('Too many wrong passwords');
    expect(server.logText(), 'passwords never reach the log').to.not.contain('a new passphrase').and.not.contain(PASSWORD);
  });

  it('resets a password from the CLI (generated and printed once, or read from stdin), ending every session; the password is never logged', async () => {
    const admin = new ConsoleClient(server.url);
    expect((await admin.signIn(ADMIN.email, ADMIN.password)).status).to.equal(303);

    const generated = cli(['account', 'reset-password', ADMIN.email], env);
    expect(generated.status, generated.stderr).to.equal(0);
    expect(generated.stdout).to.match(/^password of user1@example.com reset; its console sessions have ended and its sign-in is unlocked\. New password \(shown only now\):\n[\w-]{24}\n$/);
    const password = generated.stdout.trim().split('\n').at(-1)!;
    expect((await admin.get('/console/services')).location, 'its session ended').to.equal('/console/sign-in');
    expect((await new ConsoleClient(server.url).signIn(ADMIN.email, ADMIN.password)).status).to.equal(401);
    expect((await admin.signIn(ADMIN.email, password)).status).to.equal(303);

    const chosen = cli(['account', 'reset-password', ADMIN.email, '--password-stdin', '--json'], env, 'correct horse battery\n');
    expect(chosen.status, chosen.stderr).to.equal(0);
    expect(JSON.parse(chosen.stdout)).to.deep.include({ email: ADMIN.email, role: 'admin' }).and.not.have.property('password');
    expect((await admin.get('/console/services')).location).to.equal('/console/sign-in');
    expect((await admin.signIn(ADMIN.email, ADMIN.password)).status).to.equal(303);

    const weak = cli(['account', 'reset-password', ADMIN.email, '--password-stdin', '--json'], env, 'short\n');
    expect(weak.status, weak.stderr).to.equal(1);
    expect(JSON.parse(weak.stderr).error.code).to.equal('weak_password');
    const nobody = cli(['account', 'reset-password', 'nobody@example.com'], env);
    expect(nobody.status, nobody.stderr).to.equal(1);
    expect(nobody.stderr).to.match(/^detectd: database: .*\ndetectd: no account for nobody@example.com\n$/);
    expect(server.logText()).to.not.contain(password);
    const listed = cliOk(['account', 'list'], env);
    expect(listed.stdout).to.match(/^EMAIL\s+ROLE\s+STATUS\s+SERVICES\s+CREATED\s+ID\n/).and.match(/user1@example.com\s+admin\s+active/);
  });

  it('a sign-in lockout says how an operator lifts it, and `account unlock` or `account reset-password` lifts it at once, from every address', async () => {
    const email = 'locked@example.com';
    const browser = new ConsoleClient(server.url);
    expect((await browser.signUp(email, PASSWORD)).status).to.equal(303);
    await browser.post('/console/sign-out');
    const lockOut = async () => {
      for (let attempt = 0; attempt < 5; attempt++) expect((await browser.signIn(email, `guess ${attempt} wrong`)).status).to.equal(401);
      // The same account guessed at from another address too.
      for (let attempt = 0; attempt < 5; attempt++) await server.domain.throttle.recordFailure(email, '192.0.2.7');
      const limited = await browser.signIn(email, PASSWORD);
      expect(limited.status).to.equal(429);
      return limited;
    };
    const limited = await lockOut();
    expect(/<p class="muted small" id="unlock-hint">([\s\S]*?)<\/p>/.exec(limited.text)?.[1]).to.equal(
      `The server's operator can lift this at once: <code>detectd account unlock ${email}</code> (or set a new password with <code>detectd account reset-password ${email}</code>).`,
    );

    const unlocked = cli(['account', 'unlock', email], env);
    expect(unlocked.status, unlocked.stderr).to.equal(0);
    expect(unlocked.stdout).to.equal(`sign-in of ${email} unlocked: 10 recent failed sign-ins forgotten\n`);
    expect(await server.domain.throttle.retryAfterSeconds(email, '192.0.2.7'), 'the other address too').to.equal(0);
    expect((await browser.signIn(email, PASSWORD)).status).to.equal(303);
    await browser.post('/console/sign-out');

    await lockOut();
    const reset = cli(['account', 'reset-password', email, '--password-stdin'], env, 'a brand new passphrase\n');
    expect(reset.status, reset.stderr).to.equal(0);
    expect((await browser.signIn(email, 'a brand new passphrase')).status).to.equal(303);
    const nobody = cli(['account', 'unlock', 'nobody@example.com', '--json'], env);
    expect(nobody.status, nobody.stderr).to.equal(1);
    expect(JSON.parse(nobody.stderr).error.code).to.equal('account_not_found');
  });

  it('renames a service and changes its model among the models offered; a refusal shows every error in place; calls use the new model', async () => {
    const owner = new ConsoleClient(server.url);
    await owner.signUp('renamer@example.com', PASSWORD);
    const id = await owner.createService('Garden');
    await owner.createService('Shed');
    const apiKey = (await owner.revealKey(id)).body.api_key as string;
    expect((await postDetection(server.url, dog(), { apiKey })).status).to.equal(200);
    expect(lastModelOf(server, id)).to.equal('yolo26n-640-int8');

    const overview = await owner.get(`/console/services/${id}`);
    const options = [...overview.text.matchAll(/<select id="field-model" name="model"[^>]*>([\s\S]*?)<\/select>/g)].map((match) => match[1]).join('');
    expect([...options.matchAll(/<option value="([^"]*)"/g)].map((match) => match[1])).to.deep.equal(['', 'yolo26n-640-int8', 'yolox-nano-416']);

    const refused = await owner.post(`/console/services/${id}/settings`, { name: 'Shed', model: 'no-such-model' });
    expect(refused.status).to.equal(400);
    expect(errorBeside(refused, 'model')).to.contain('this server has no model named &#34;no-such-model&#34;');
    expect(refused.text).to.match(/<input id="field-name" name="name" type="text" value="Shed"/);
    const taken = await owner.post(`/console/services/${id}/settings`, { name: 'Shed', model: '' });
    expect(taken.status).to.equal(409);
    expect(errorBeside(taken, 'name')).to.equal('this account already has a service named &#34;Shed&#34;');

    const saved = await owner.post(`/console/services/${id}/settings`, { name: 'Back garden', model: 'yolox-nano-416' });
    expect(saved.location).to.equal(`/console/services/${id}?done=settings#settings`);
    const page = await owner.get(saved.location!);
    expect(page.text).to.contain('Name and model saved.').and.match(/<dt>Model<\/dt><dd>yolox-nano-416<\/dd>/).and.contain('<h1>Back garden');
    expect((await postDetection(server.url, dog(), { apiKey })).status, 'the same key').to.equal(200);
    expect(lastModelOf(server, id)).to.equal('yolox-nano-416');
    await owner.post(`/console/services/${id}/settings`, { name: 'Back garden', model: '' });
    expect((await server.domain.services.findAnywhere(id))!.model, 'empty: the server default').to.equal(null);

    const intruder = new ConsoleClient(server.url);
    await intruder.signUp('settings-intruder@example.com', PASSWORD);
    await intruder.get('/console/services');
    expect((await intruder.post(`/console/services/${id}/settings`, { name: 'mine now', model: '' })).status).to.equal(404);
    expect((await server.domain.services.findAnywhere(id))!.name).to.equal('Back garden');
  });

  it('shows the administrator every account (role, created, status) and lets them disable and enable others, never themselves', async () => {
    const member = new ConsoleClient(server.url);
    await member.signUp('member@example.com', PASSWORD);
    const serviceId = await member.createService('Gate');
    const memberKey = (await member.revealKey(serviceId)).body.api_key as string;
    expect((await member.get('/console/accounts')).status, 'members do not see the list').to.equal(403);

    const admin = new ConsoleClient(server.url);
    expect((await admin.signIn(ADMIN.email, ADMIN.password)).status).to.equal(303);
    expect((await admin.get('/console/services')).text).to.contain('href="/console/accounts"');
    const list = await admin.get('/console/accounts');
    expect(list.status).to.equal(200);
    const memberAccount = (await server.domain.accounts.findAccount('member@example.com'))!;
    const adminAccount = (await server.domain.accounts.findAccount(ADMIN.email))!;
    const row = (accountId: string, page: Page) => new RegExp(`<tr id="account-${accountId}">([\\s\\S]*?)</tr>`).exec(page.text)![1];
    expect(row(memberAccount.id, list)).to.contain('member@example.com').and.contain('<td>Member</td>').and.match(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/).and.contain('Active').and.contain('>Disable</button>');
    expect(row(adminAccount.id, list)).to.contain('<td>Administrator</td>').and.contain('You').and.not.contain('<form');
    expect((await member.post(`/console/accounts/${memberAccount.id}/disable`)).status, 'a member cannot disable').to.equal(403);

    const disabled = await admin.post(`/console/accounts/${memberAccount.id}/disable`);
    expect(disabled.location).to.equal(`/console/accounts?done=disabled#account-${memberAccount.id}`);
    expect(row(memberAccount.id, await admin.get('/console/accounts?done=disabled'))).to.contain('Disabled').and.contain('>Enable</button>');
    expect((await member.get('/console/services')).location, 'its session ended').to.equal('/console/sign-in');
    expect((await postDetection(server.url, dog(), { apiKey: memberKey })).status).to.equal(403);
    expect((await new ConsoleClient(server.url).signIn('member@example.com', PASSWORD)).status).to.equal(403);

    expect((await admin.post(`/console/accounts/${memberAccount.id}/enable`)).location).to.equal(`/console/accounts?done=enabled#account-${memberAccount.id}`);
    expect((await postDetection(server.url, dog(), { apiKey: memberKey })).status).to.equal(200);

    const self = await admin.post(`/console/accounts/${adminAccount.id}/disable`);
    expect(self.status).to.equal(409);
    expect(self.text).to.contain('You cannot disable or enable your own account');
    expect((await server.domain.accounts.findById(adminAccount.id))!.disabled).to.equal(false);
    expect((await admin.post('/console/accounts/not-an-id/disable')).status).to.equal(404);
    expect((await admin.post(`/console/accounts/${memberAccount.id}/disable`, { _csrf: '' })).status).to.equal(403);
  });
});
