import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { type Browser, chromium, type Page } from 'playwright-core';
import WebSocket from 'ws';
import { imageRequest, postDetection } from './support/detection-client.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';
import { ARTIFACTS, LAPTOP, PHONE, signInOnPage } from './support/chromium.js';

/** Debian's Chromium (`apt-get install chromium`); never a browser download of a test tool's own. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** WCAG 2 relative luminance of a computed `rgb(r, g, b)` colour. */
function luminance(colour: string): number {
  const [r, g, b] = colour.match(/[\d.]+/g)!.slice(0, 3).map((value) => {
    const channel = Number(value) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two computed colours. */
function contrastRatio(foreground: string, background: string): number {
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a);
  return (light + 0.05) / (dark + 0.05);
}

async function revealedKey(page: Page): Promise<string> {
  await page.click('#reveal-key');
  await page.waitForFunction(() => document.getElementById('api-key')?.dataset.masked === 'false');
  return (await page.textContent('#api-key'))!.trim();
}

/** Reloads the usage panel (last hour) until the flusher has written `atLeast` requests. */
async function waitForUsage(page: Page, atLeast: number): Promise<number> {
  return waitFor(
    async () => {
      await page.goto(page.url().replace(/[?#].*$/, '') + '?window=hour');
      const requests = Number(await page.textContent('#usage-requests'));
      return requests >= atLeast && requests;
    },
    { what: `${atLeast} request(s) in the usage panel`, intervalMs: 250 },
  );
}

describe('web console in a real browser: a new user from sign-up to a rotated key', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    server = await startTestServer({ DETECTD_SIGNUP: 'open' });
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
    await page.click('button:has-text("Detect")');
    await page.waitForSelector('#try-result:not([hidden])');
    expect(await page.textContent('#try-status')).to.match(/\d+ found/);
    expect(await page.textContent('#try-json')).to.contain('"name": "dog"').and.contain('"service_id"').and.contain('"raw_data": "<base64 JPEG');
    expect(await page.getAttribute('#try-image', 'src')).to.match(/^data:image\/jpeg;base64,\/9j\//);
    expect(await page.evaluate(() => (document.getElementById('try-image') as HTMLImageElement).naturalWidth)).to.equal(768);
    // Beside the image, a table of the objects; the slider asks again with another threshold.
    const rowsAt = async () => page.$$eval('#try-table tbody tr', (rows) => rows.map((row) => Array.from(row.children, (cell) => cell.textContent)));
    const atStart = await rowsAt();
    const start = Number(await page.inputValue('#try-confidence'));
    expect(atStart.map((row) => row[0])).to.include('dog');
    expect(atStart.every((row) => Number(row[1]) >= start)).to.equal(true);
    const [imageBox, tableBox] = [await page.locator('#try-image').boundingBox(), await page.locator('#try-table').boundingBox()];
    expect(tableBox!.x, 'the table is beside the image on a laptop').to.be.greaterThan(imageBox!.x + imageBox!.width - 1);
    await page.locator('#try-result').screenshot({ path: path.join(ARTIFACTS, 'console-try-it.png') });
    // The next step above the least sure object drops it (and maybe more).
    const higher = Math.min(0.95, Math.floor(Math.min(...atStart.map((row) => Number(row[1]))) * 20 + 1) / 20).toFixed(2);
    await page.locator('#try-confidence').fill(higher);
    await page.waitForFunction((threshold) => document.getElementById('try-status')?.textContent?.includes(`≥ ${threshold}`), higher);
    expect(await page.textContent('#try-confidence-value')).to.equal(higher);
    const atHigher = await rowsAt();
    expect(atHigher.length).to.be.lessThan(atStart.length);
    expect(atHigher.every((row) => Number(row[1]) >= Number(higher))).to.equal(true);
    await page.locator('#try-result').screenshot({ path: path.join(ARTIFACTS, 'console-try-it-higher.png') });

    // Accessibility and layout fixes: labelled file input, distinct button names, a breadcrumb that ends in the service, a legible badge, a curl block that stays in its card.
    expect(await page.locator('label[for="try-file"]').textContent()).to.equal('Image');
    const buttonNames = await page.$$eval('button', (buttons) => buttons.filter((button) => button.offsetParent !== null).map((button) => button.getAttribute('aria-label') ?? button.textContent!.trim()));
    expect(buttonNames.filter((name) => name === 'Copy'), 'no two buttons are both just "Copy"').to.deep.equal([]);
    expect(new Set(buttonNames.filter((name) => name.startsWith('Copy'))).size).to.equal(buttonNames.filter((name) => name.startsWith('Copy')).length);
    expect(await page.$$eval('nav[aria-label="Breadcrumb"] li', (items) => items.map((item) => item.textContent))).to.deep.equal(['Services', 'Doorbell camera']);
    expect(await page.getAttribute('nav[aria-label="Breadcrumb"] li:last-child', 'aria-current')).to.equal('page');
    const badgeColours = await page.$eval('.badge.on', (badge) => [getComputedStyle(badge).color, getComputedStyle(badge).backgroundColor]);
    const badgeContrast = contrastRatio(badgeColours[0], badgeColours[1]);
    expect(badgeContrast, `"Active" badge contrast of ${badgeColours.join(' on ')} (WCAG AA: 4.5:1)`).to.be.at.least(4.5);
    expect(contrastRatio('rgb(31, 138, 76)', 'rgb(230, 245, 236)'), 'the old colours, as the issue measured').to.be.closeTo(3.88, 0.01);

    // The live-video demo opens with a stream token in the fragment, never the key in a URL, and the token opens a stream.
    const demoUrls: string[] = [];
    page.on('framenavigated', (frame) => frame === page.mainFrame() && demoUrls.push(frame.url()));
    await page.click('#live-video');
    await page.waitForURL('**/stream-demo');
    const handedOver = new URL(demoUrls.find((url) => url.includes('/stream-demo'))!);
    expect(handedOver.search, 'nothing in the query').to.equal('');
    expect(demoUrls.join(' ')).to.not.contain(apiKey);
    const token = new URLSearchParams(handedOver.hash.slice(1)).get('token')!;
    expect(token).to.match(/^dst_/);
    expect(page.url(), 'the page drops the token from its address').to.not.contain('dst_');
    expect(await page.getAttribute('#apiKey', 'placeholder')).to.contain('opened from the console');
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/v1/object-detection/stream?token=${encodeURIComponent(token)}`);
    await once(socket, 'open');
    socket.close();
    await page.goBack();
    await page.waitForSelector('#api-key');

    await page.screenshot({ path: path.join(ARTIFACTS, 'console-overview-laptop.png'), fullPage: true });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-overview-phone.png'), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, 'no sideways scrolling at phone width').to.be.at.most(0);
    const curlOverflow = await page.$eval('#curl-example', (block) => block.scrollWidth - block.clientWidth);
    expect(curlOverflow, 'the curl block wraps inside its card').to.be.at.most(0);
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

  it('lets the administrator (the first account) make an invitation link and copy it', async () => {
    const context = await browser.newContext({ viewport: LAPTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    await signInOnPage(page, server.url);
    await page.waitForURL('**/console/services');
    await page.click('header >> text=Invitations');
    expect(await page.textContent('#sign-up-policy')).to.contain('DETECTD_SIGNUP=open');
    await page.click('#create-invitation');
    const link = (await page.textContent('#invitation-link'))!;
    expect(link).to.match(/\/console\/sign-up\?invitation=[\w-]{43}$/);
    await page.click('button:has-text("Copy link")');
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(link);
    expect(await page.locator('table.list tbody tr').count()).to.equal(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-invitations.png'), fullPage: true });
    await context.close();
  });
});
