import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { FIRST_ACCOUNT, type TestServer } from './support/test-server.js';
import { ARTIFACTS, LAPTOP, PHONE, signInOnPage, useServerAndBrowser } from './support/chromium.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { photoPath } from './support/paths.js';

async function openService(page: Page, server: TestServer, name: string): Promise<void> {
  await signInOnPage(page, server.url);
  await page.click(`text=${name}`);
}

describe('"Try it" in Chromium: counts per class, the annotated image to download, errors that look like errors with times as times', () => {
  // A newcomer's server: no model configured, the embedded one serves.
  const fixture = useServerAndBrowser({ DETECTD_MODEL: '' });

  it('starts where the embedded model\'s authors suggest, saying what the API\'s default is: the first answer on dog.jpg is the dog, the bicycle and the car', async () => {
    const page = await fixture.browser.newPage({ viewport: LAPTOP });
    await openService(page, fixture.server, 'service 1');
    expect(await page.inputValue('#try-confidence')).to.equal('0.3');
    expect(await page.textContent('#try-confidence-value')).to.equal('0.30');
    expect(await page.textContent('#try-confidence-note')).to.equal('Starts at 0.30, what yolox-nano-416\u2019s authors suggest; a call that sends no ConfidenceThreshold gets 0.10.');
    await page.setInputFiles('#try-file', photoPath('dog.jpg'));
    await page.click('button:has-text("Detect")');
    await page.waitForSelector('#try-result:not([hidden])');
    expect(await page.textContent('#try-status')).to.match(/^\d found at confidence ≥ 0\.30 in \d+ ms\.$/);
    const rows = await page.$$eval('#try-table tbody tr', (items) => items.map((row) => [row.children[0].textContent!, Number(row.children[1].textContent)] as const));
    expect(rows.slice(0, 3).map(([name]) => name)).to.have.members(['dog', 'bicycle', 'car']);
    for (const [name, confidence] of rows.slice(0, 3)) expect(confidence, name).to.be.above(0.75);
    // Nothing else but the car seen again as a truck.
    expect(rows.slice(3).map(([name]) => name).filter((name) => name !== 'truck')).to.deep.equal([]);
    await page.locator('#try-title').locator('..').screenshot({ path: path.join(ARTIFACTS, 'console-try-it-first.png') });
    await page.close();
  });

  for (const [width, viewport] of [['laptop', LAPTOP], ['phone', PHONE]] as const) {
    it(`counts what it found per class and downloads the annotated image (${width})`, async () => {
      const page = await fixture.browser.newPage({ viewport, acceptDownloads: true });
      await openService(page, fixture.server, 'service 1');
      await page.setInputFiles('#try-file', photoPath('dog.jpg'));
      await page.click('button:has-text("Detect")');
      await page.waitForSelector('#try-result:not([hidden])');
      expect(await page.getAttribute('#try-status', 'class')).to.not.contain('is-error');

      const answer = JSON.parse((await page.textContent('#try-json'))!) as { detected_objects: { name: string }[] };
      const expected = new Map<string, number>();
      for (const object of answer.detected_objects) expected.set(object.name, (expected.get(object.name) ?? 0) + 1);
      const chips = await page.$$eval('#try-counts li', (items) => items.map((item) => item.textContent));
      expect(chips.length).to.equal(expected.size);
      for (const [name, count] of expected) expect(chips).to.include(`${name}× ${count}`);
      expect(chips).to.include('dog× 1');

      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#try-download')]);
      expect(download.suggestedFilename()).to.equal('dog-detected.jpg');
      const saved = path.join(ARTIFACTS, `try-it-download-${width}.jpg`);
      await download.saveAs(saved);
      const metadata = await sharp(saved).metadata();
      expect(metadata).to.include({ format: 'jpeg', width: 768 });
      expect(fs.readFileSync(saved).toString('base64'), 'the very image shown').to.equal((await page.getAttribute('#try-image', 'src'))!.replace(/^data:image\/jpeg;base64,/, ''));

      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, 'no sideways scrolling').to.be.at.most(0);
      await page.locator('#try-title').locator('..').screenshot({ path: path.join(ARTIFACTS, `console-try-it-counts-${width}.png`) });
      await page.close();
    });
  }

  it('shows a refusal as an error, the quota\'s renewal as a local time, and when to try again', async () => {
    const apiKey = await fixture.server.createService({ email: FIRST_ACCOUNT.email, name: 'one call a month' });
    const service = (await fixture.server.domain.keys.authenticate(apiKey))!;
    await fixture.server.domain.services.setLimits(service, { rateLimitPerMinute: null, monthlyQuota: 1 });
    expect((await postDetection(fixture.server.url, imageRequest(photoPath('dog.jpg')), { apiKey })).status).to.equal(200);

    const page = await fixture.browser.newPage({ viewport: LAPTOP, timezoneId: 'Europe/Berlin', locale: 'en-GB' });
    await openService(page, fixture.server, 'one call a month');
    await page.setInputFiles('#try-file', photoPath('dog.jpg'));
    await page.click('button:has-text("Detect")');
    await page.waitForSelector('#try-status.is-error');
    expect(await page.isHidden('#try-result')).to.equal(true);
    expect(await page.textContent('#try-status strong')).to.equal('Refused: 429 quota_exceeded');
    const text = (await page.textContent('#try-status'))!;
    expect(text, 'no raw ISO timestamp').to.not.match(/\d{4}-\d{2}-\d{2}T/);
    expect(text).to.match(/Try again in \d+ (days|hours|minutes|seconds)\.$/);
    const renewal = await page.$eval('#try-status time', (time) => ({ datetime: time.getAttribute('datetime')!, shown: time.textContent! }));
    const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1));
    expect(new Date(renewal.datetime).getTime()).to.equal(nextMonth.getTime());
    // Midnight UTC is 01:00 in Berlin (winter time): the reader's own clock.
    expect(renewal.shown).to.contain('01:00');
    const [colour, background] = await page.$eval('#try-status', (status) => [getComputedStyle(status).color, getComputedStyle(status).backgroundColor]);
    expect(colour, 'red text').to.equal('rgb(194, 53, 43)');
    expect(background).to.not.equal('rgba(0, 0, 0, 0)');
    await page.locator('#try-status').screenshot({ path: path.join(ARTIFACTS, 'console-try-it-quota-error.png') });
    await page.close();
  });
});
