import { expect } from 'chai';
import { startTestServer, type TestServer } from './support/test-server.js';

/** The console's Secure cookies and per-address sign-in limits depend on whom the server believes about the client. */
describe('behind a reverse proxy (DETECTD_TRUST_PROXY)', () => {
  const cookieFor = async (server: TestServer, headers: Record<string, string>) =>
    (await fetch(server.url + '/console/sign-in', { headers })).headers.getSetCookie().join('; ');

  it('ignores X-Forwarded-* by default: a client cannot claim TLS', async () => {
    const server = await startTestServer();
    try {
      expect(await cookieFor(server, { 'X-Forwarded-Proto': 'https' })).to.contain('HttpOnly').and.not.contain('Secure');
    } finally {
      await server.close();
    }
  });

  it('believes a trusted proxy: cookies get Secure when it says the client used https', async () => {
    const server = await startTestServer({ DETECTD_TRUST_PROXY: 'loopback' });
    try {
      expect(await cookieFor(server, { 'X-Forwarded-Proto': 'https' })).to.contain('Secure');
      expect(await cookieFor(server, { 'X-Forwarded-Proto': 'http' })).to.not.contain('Secure');
    } finally {
      await server.close();
    }
  });
});
