import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { type Browser, chromium, type Page } from 'playwright-core';
import { imageRequest, postDetection } from './support/detection-client.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Debian's Chromium (`apt-get install chromium`); never a browser download of a test tool's own. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = path.resolve('test-artifacts');
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

async function revealedKey(page: Page): Promise<string> {
  await page.click('#reveal-key');
  await page.waitForFunction(() => document.getElementById('api-key')?.dataset.masked === 'false');
  return (await page.textContent('#api-key'))!.trim();
}

/** Reloads the usage panel (last hour) until the flusher has written `atLeast` requests. */
async function waitForUsage(page: Page, atLeast: number): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    await page.goto(page.url().replace(/[?#].*$/, '') + '?window=hour');
    const requests = Number(await page.textContent('#usage-requests'));
    if (requests >= atLeast || attempt === 40) return requests;
    await page.waitForTimeout(250);
  }
}

describe('web console in a real browser: a new user from sign-up to a rotated key', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    server = await startTestServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('signs up, creates a service, reads and uses its API Key, sees the usage, tries an image, rotates the key', async () => {
    const context = await browser.newContext({ viewport: LAPTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    // Answers like the 400 of a refused form are expected; script failures are not.
    page.on('console', (message) => message.type() === 'error' && !message.text().startsWith('Failed to load resource') && problems.push(message.text()));

    await page.goto(`${server.url}/console`);
    expect(await page.textContent('h1')).to.equal('Sign in');
    await page.click('text=Create a service account');
    await page.fill('#field-email', 'new.user@example.com');
    await page.fill('#field-password', 'short');
    await page.click('button:has-text("Create account")');
    expect(await page.textContent('#field-password-error')).to.contain('must have 8 to');
    await page.fill('#field-password', 'a long passphrase');
    await page.click('button:has-text("Create account")');
    await page.waitForURL('**/console/services');
    await page.click('text=Create your first service');
    await page.fill('#field-name', 'Doorbell camera');
    await page.click('button:has-text("Create service")');
    await page.waitForURL(/\/console\/services\/[0-9a-f-]{36}/);

    // The overview page: the entry named API Key, masked until revealed.
    const entry = page.locator('#api-key-entry');
    expect(await entry.locator('dt').textContent()).to.equal('API Key');
    expect(await page.textContent('#api-key')).to.match(/^dtd_•+$/);
    expect(await page.textContent('#endpoint-url')).to.equal(`${server.url}/api/v1/object-detection`);
    const apiKey = await revealedKey(page);
    expect(apiKey).to.match(/^dtd_[\w-]{43}$/);
    expect(await page.textContent('#curl-example')).to.contain(`export DETECTD_API_KEY='${apiKey}'`);
    await page.click('button[data-copy-key]');
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(apiKey);

    const call = await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey });
    expect(call.status).to.equal(200);
    expect(call.body.detected_objects.map((object: { name: string }) => object.name)).to.include('dog');
    expect(await waitForUsage(page, 1)).to.equal(1);
    expect(Number(await page.textContent('#usage-detections'))).to.equal(call.body.detected_objects.length);
    expect(await page.textContent('#usage-p50')).to.match(/ms$/);

    // "Try it" goes through the public API with this service's key.
    await page.setInputFiles('#try-file', photoPath('dog.jpg'));
    await page.click('button:has-text("Detect objects")');
    await page.waitForSelector('#try-result:not([hidden])');
    expect(await page.textContent('#try-status')).to.match(/\d+ objects? found/);
    expect(await page.textContent('#try-json')).to.contain('"name": "dog"').and.contain('"service_id"').and.contain('"raw_data": "<base64 JPEG');
    expect(await page.getAttribute('#try-image', 'src')).to.match(/^data:image\/jpeg;base64,\/9j\//);
    expect(await page.evaluate(() => (document.getElementById('try-image') as HTMLImageElement).naturalWidth)).to.equal(768);

    await page.screenshot({ path: path.join(ARTIFACTS, 'console-overview-laptop.png'), fullPage: true });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-overview-phone.png'), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, 'no sideways scrolling at phone width').to.be.at.most(0);
    await page.setViewportSize(LAPTOP);

    // Rotate, revoking the old key at once: it is refused from then on.
    await page.check('input[name="old_key"][value="revoke"]');
    await page.click('#rotate-key');
    await page.waitForSelector('text=New API key issued.');
    const newKey = await revealedKey(page);
    expect(newKey).to.not.equal(apiKey);
    expect((await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey })).status).to.equal(401);
    expect((await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey: newKey })).status).to.equal(200);
    expect(problems, 'no script errors on the pages').to.deep.equal([]);
    await context.close();
  });
});
