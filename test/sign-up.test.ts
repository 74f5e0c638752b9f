import { expect } from 'chai';
import { loadConfig } from '../src/config.js';
import { ConsoleClient } from './support/console-client.js';
import { SQLITE } from './support/engines.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { cli, cliOk, requireBuild, startProcess } from './support/processes.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const PASSWORD = 'a long passphrase';
/** The account startTestServer makes through the account domain, as `detectd account create` does: the first, so the administrator. */
const FIRST = { email: 'user1@example.com', password: 'correct horse battery' };

const invitationsLinkShown = (page: { text: string }) => page.text.includes('href="/console/invitations"');

/** Starts a server with DETECTD_SIGNUP=`signUp` before the suite's tests and closes it after them; the returned function gives it to each test. */
function serverWithSignUp(signUp: string): () => TestServer {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ DETECTD_SIGNUP: signUp });
  });
  after(async () => server?.close());
  return () => server;
}

describe('DETECTD_SIGNUP: who may create an account in the console', () => {
  it('accepts open, invite and closed (unset: invite), and refuses anything else by name', () => {
    expect(loadConfig({}).signUp).to.equal('invite');
    for (const value of ['open', 'invite', 'closed']) expect(loadConfig({ DETECTD_SIGNUP: value }).signUp).to.equal(value);
    expect(() => loadConfig({ DETECTD_SIGNUP: 'everyone' })).to.throw(/DETECTD_SIGNUP must be open, invite or closed/);
  });

  it('unset: the first sign-up on a new server becomes the administrator; then only the administrator\'s invitation links sign up; the CLI still creates accounts (as members)', async () => {
    requireBuild();
    const store = await SQLITE.scratch();
    const env: NodeJS.ProcessEnv = { ...process.env, ...store.env, DETECTD_MODEL: DEFAULT_TEST_MODEL, HOST: '127.0.0.1', PORT: '0', DETECTD_INFERENCE_THREADS: '1' };
    delete env.DETECTD_SIGNUP;
    const server = await startProcess(env);
    try {
      const first = new ConsoleClient(server.url);
      expect((await first.get('/console/sign-in')).text, 'an empty server offers sign-up').to.contain('Create a service account');
      const signedUp = await first.signUp('first@example.com', PASSWORD);
      expect(signedUp.status).to.equal(303);
      expect(invitationsLinkShown(await first.get('/console/services')), 'the first account is the administrator').to.equal(true);

      const second = new ConsoleClient(server.url);
      expect((await second.get('/console/sign-in')).text, 'no sign-up link without an invitation').to.not.contain('Create a service account');
      const form = await second.get('/console/sign-up');
      expect(form.status).to.equal(403);
      expect(form.text).to.contain('Sign-up on this server is by invitation');
      const refused = await second.post('/console/sign-up', { email: 'second@example.com', password: PASSWORD });
      expect(refused.status).to.equal(403);
      expect((await second.signIn('second@example.com', PASSWORD)).status, 'no account was made').to.equal(401);

      // The administrator's link works on a default server: the button and the sign-up page agree.
      const invitations = await first.get('/console/invitations');
      expect(invitations.text).to.contain('Sign-up is by invitation (the default)').and.match(/id="create-invitation">/);
      const link = /id="invitation-link">([^<]+)</.exec((await first.post('/console/invitations')).text)![1];
      const invited = await second.get(link.slice(server.url.length));
      expect(invited.status).to.equal(200);
      const token = new URL(link).searchParams.get('invitation')!;
      expect((await second.post('/console/sign-up', { email: 'second@example.com', password: PASSWORD, invitation: token })).location).to.equal('/console/services');
      expect(invitationsLinkShown(await second.get('/console/services')), 'an invited account is a member').to.equal(false);

      // The CLI makes the same links, as the administrator.
      const invite = cli(['account', 'invite'], env);
      expect(invite.status, invite.stderr).to.equal(0);
      expect(invite.stdout).to.match(/^invitation link \(works once, until \d{4}-\d\d-\d\dT[\d:.]+Z; shown only now\):\n\/console\/sign-up\?invitation=[\w-]{43}\n\(add the server's address in front/);
      const cliLink = invite.stdout.split('\n')[1];
      const third = new ConsoleClient(server.url);
      expect((await third.get(cliLink)).status).to.equal(200);
      expect((await third.post('/console/sign-up', { email: 'third@example.com', password: PASSWORD, invitation: new URL(cliLink, server.url).searchParams.get('invitation')! })).location).to.equal('/console/services');
      const withUrl = JSON.parse(cliOk(['account', 'invite', '--json'], { ...env, DETECTD_PUBLIC_URL: 'https://detect.example.com/' }).stdout);
      expect(withUrl.link).to.match(/^https:\/\/detect\.example\.com\/console\/sign-up\?invitation=[\w-]{43}$/);

      const created = cli(['account', 'create', '--email', 'ops@example.com', '--password-stdin'], env, PASSWORD);
      expect(created.status, created.stderr).to.equal(0);
      const ops = new ConsoleClient(server.url);
      expect((await ops.signIn('ops@example.com', PASSWORD)).status).to.equal(303);
      expect(invitationsLinkShown(await ops.get('/console/services')), 'a later account is a member').to.equal(false);
      const forbidden = await ops.get('/console/invitations');
      expect(forbidden.status).to.equal(403);
      expect(forbidden.text).to.contain('Only the administrator');
    } finally {
      expect(await server.stop()).to.equal(0);
      await store.remove();
    }
  });

  describe('invite: the administrator makes single-use links in the console', () => {
    const running = serverWithSignUp('invite');

    it('signs up only with an unused link; a link works once; a failed attempt keeps it; withdrawn links stop working', async () => {
      const server = running();
      const visitor = new ConsoleClient(server.url);
      const bare = await visitor.get('/console/sign-up');
      expect(bare.status).to.equal(403);
      expect(bare.text).to.contain('by invitation');
      expect((await visitor.post('/console/sign-up', { email: 'nolink@example.com', password: PASSWORD })).status).to.equal(403);
      expect((await visitor.post('/console/sign-up', { email: 'nolink@example.com', password: PASSWORD, invitation: 'made-up' })).status).to.equal(403);

      const admin = new ConsoleClient(server.url);
      expect((await admin.signIn(FIRST.email, FIRST.password)).status).to.equal(303);
      const listing = await admin.get('/console/invitations');
      expect(listing.text).to.contain('Sign-up is by invitation');
      const made = await admin.post('/console/invitations');
      expect(made.status).to.equal(200);
      expect(made.headers.get('cache-control')).to.equal('no-store');
      const link = /id="invitation-link">([^<]+)</.exec(made.text)![1];
      expect(link).to.match(new RegExp(`^${server.url}/console/sign-up\\?invitation=[\\w-]{43}$`));
      const path = link.slice(server.url.length);

      const invited = new ConsoleClient(server.url);
      const form = await invited.get(path);
      expect(form.status).to.equal(200);
      expect(form.text).to.match(/<input type="hidden" name="invitation" value="[\w-]{43}">/);
      const token = new URL(link).searchParams.get('invitation')!;
      const weak = await invited.post('/console/sign-up', { email: 'invited@example.com', password: 'short', invitation: token });
      expect(weak.status, 'a refused form keeps the invitation').to.equal(400);
      expect(weak.text).to.contain(`value="${token}"`);
      const signedUp = await invited.post('/console/sign-up', { email: 'invited@example.com', password: PASSWORD, invitation: token });
      expect(signedUp.status).to.equal(303);
      expect(invitationsLinkShown(await invited.get('/console/services')), 'an invited account is a member').to.equal(false);

      const again = new ConsoleClient(server.url);
      const used = await again.get(path);
      expect(used.status).to.equal(403);
      expect(used.text).to.contain('has been used, has expired or was withdrawn');
      expect((await again.post('/console/sign-up', { email: 'again@example.com', password: PASSWORD, invitation: token })).status).to.equal(403);

      const second = /id="invitation-link">([^<]+)</.exec((await admin.post('/console/invitations')).text)![1];
      const pending = await admin.get('/console/invitations');
      const id = /\/console\/invitations\/([0-9a-f-]{36})\/withdraw/.exec(pending.text)![1];
      expect((await admin.post(`/console/invitations/${id}/withdraw`)).status).to.equal(303);
      expect((await new ConsoleClient(server.url).get(second.slice(server.url.length))).status, 'a withdrawn link').to.equal(403);
      expect((await admin.post(`/console/invitations/${id}/withdraw`)).status).to.equal(404);
    });
  });

  describe('closed: no console sign-up at all', () => {
    const running = serverWithSignUp('closed');

    it('refuses the form and hides its link; accounts still sign in; the invitation button is off and says why', async () => {
      const server = running();
      const visitor = new ConsoleClient(server.url);
      expect((await visitor.get('/console/sign-in')).text).to.not.contain('Create a service account');
      expect((await visitor.get('/console/sign-up')).status).to.equal(403);
      expect((await visitor.post('/console/sign-up', { email: 'x@example.com', password: PASSWORD })).status).to.equal(403);
      expect((await visitor.signIn(FIRST.email, FIRST.password)).status).to.equal(303);
      const invitations = await visitor.get('/console/invitations');
      expect(invitations.text).to.match(/id="create-invitation" disabled aria-describedby="sign-up-policy"/);
      expect(invitations.text).to.contain('invitation links are off');
      const refused = await visitor.post('/console/invitations');
      expect(refused.status).to.equal(409);
      expect(refused.text).to.contain('No link was made').and.not.contain('id="invitation-link"');
      const fromCli = cli(['account', 'invite', '--json'], { ...process.env, DETECTD_DATA_DIR: server.dataDir, DETECTD_SIGNUP: 'closed' });
      expect(fromCli.status, fromCli.stderr).to.equal(1);
      expect(JSON.parse(fromCli.stderr).error.code).to.equal('sign_up_closed');
      expect(await server.domain.signUps.pending()).to.deep.equal([]);
    });
  });

  describe('open: anyone may sign up', () => {
    const running = serverWithSignUp('open');

    it('creates one account after another, all members', async () => {
      const server = running();
      for (const email of ['a@example.com', 'b@example.com']) {
        const client = new ConsoleClient(server.url);
        expect((await client.signUp(email, PASSWORD)).status).to.equal(303);
        expect(invitationsLinkShown(await client.get('/console/services'))).to.equal(false);
      }
    });
  });
});
