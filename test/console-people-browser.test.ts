import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ARTIFACTS, LAPTOP, openServicePage, PHONE, tableValues, useServerAndBrowser } from './support/chromium.js';
import { cropPath, faceModelPath, FACES_DIR, registrationPhotos } from './support/faces.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { FIRST_ACCOUNT, type TestServer } from './support/test-server.js';


/**
 * A face service's People page in Chromium: register a person from photo uploads (the face taken
 * from each shown), see them listed with their photos, remove them; Try it names the faces.
 */
describe('console People page of a face service in Chromium', function () {
  this.timeout(180_000);
  const fixture = useServerAndBrowser({ DETECTD_MODEL: `${DEFAULT_TEST_MODEL},${faceModelPath('ultraface-rfb-640')}` });
  let server: TestServer;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    server = fixture.server;
    await server.createService({ email: FIRST_ACCOUNT.email, name: 'Front door', type: 'face-detection' });
    page = await openServicePage(fixture.browser, server.url, 'Front door', LAPTOP, problems);
  });

  const rows = () => tableValues(page, '#people-table');

  it('registers a person from two photos, shows the face taken from each, lists them with their photo count, and removes them', async () => {
    await page.waitForFunction(() => document.getElementById('people-count')?.textContent === 'Nobody registered yet.');
    await page.fill('#people-userid', 'leonard');
    await page.setInputFiles('#people-photos', [cropPath('leonard', 1), cropPath('leonard', 2)]);
    await page.click('button:has-text("Register person")');
    await page.waitForFunction(() => document.getElementById('people-status')?.textContent?.startsWith('leonard: face added'));
    expect(await page.textContent('#people-status')).to.contain('2 of 2 photos showed a face');
    // One face cut out of each photo, shown beside it.
    const canvases = await page.$$eval('#people-taken canvas', (list) => list.map((canvas) => [(canvas as HTMLCanvasElement).width, (canvas as HTMLCanvasElement).height]));
    expect(canvases).to.have.length(2);
    for (const [width, height] of canvases) expect(Math.min(width, height)).to.be.greaterThan(40);
    await page.waitForFunction(() => document.getElementById('people-count')?.textContent === '1 person registered');
    const [row] = await rows();
    expect(row.slice(0, 2)).to.deep.equal(['leonard', '2']);
    await page.locator('#people').screenshot({ path: path.join(ARTIFACTS, 'console-people.png') });
    await page.setViewportSize(PHONE);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 'no sideways scrolling at 390 px').to.be.at.most(0);
    await page.locator('#people').screenshot({ path: path.join(ARTIFACTS, 'console-people-phone.png') });
    await page.setViewportSize(LAPTOP);

    // Try it names the registered face on the group photo (bbt1: Raj, Leonard, Howard, Sheldon).
    await page.setInputFiles('#try-file', path.join(FACES_DIR, 'bbt1.jpg'));
    await page.click('button:has-text("Detect")');
    await page.waitForSelector('#try-result:not([hidden])');
    // Each name, without the correction button under it.
    const names = await page.$$eval('#try-table tbody tr', (trs) => trs.map((tr) => tr.children[0].firstChild!.textContent));
    expect(names.filter((name) => /^leonard — similarity 0\.\d\d$/.test(name!))).to.have.length(1);
    expect(names.filter((name) => name === 'unknown')).to.have.length(3);
    await page.locator('#try-result').screenshot({ path: path.join(ARTIFACTS, 'console-people-try-it.png') });

    await page.click('button[aria-label="Remove leonard"]');
    await page.waitForFunction(() => document.getElementById('people-count')?.textContent === 'Nobody registered yet.');
    expect(problems).to.deep.equal([]);
  });

  it('registers an ordinary soft photo with its warning, and refuses a face too blurred to describe with the reason', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'detectd-people-'));
    const [soft, blurred] = [path.join(folder, 'amy-soft.jpg'), path.join(folder, 'amy-blurred.png')];
    writeFileSync(soft, await registrationPhotos.soft(cropPath('amy', 1)));
    writeFileSync(blurred, await registrationPhotos.undescribable(cropPath('amy', 3)));
    await page.fill('#people-userid', 'amy');
    await page.setInputFiles('#people-photos', [soft, blurred]);
    await page.click('button:has-text("Register person")');
    await page.waitForFunction(() => document.getElementById('people-status')?.textContent?.startsWith('amy: face added'));
    expect(await page.textContent('#people-status')).to.equal('amy: face added (1 of 2 photos showed a face; 1 weak, counted only while amy has no good photo; 1 refused).');
    const captions = await page.$$eval('#people-taken figcaption', (list) => list.map((caption) => caption.textContent));
    expect(captions[0]).to.match(/^amy-soft\.jpg; weak: the face is soft \(sharpness \d+; 15 or more describes its person more surely\)$/);
    expect(captions[1]).to.match(/^amy-blurred\.png: refused, the face is too blurred to describe \(sharpness \d; at least 4 needed\)$/);
    await page.click('button[aria-label="Remove amy"]');
    await page.waitForFunction(() => document.getElementById('people-count')?.textContent === 'Nobody registered yet.');
    expect(problems).to.deep.equal([]);
  });

  it('finishes a registration from a photo the server reads but Chromium cannot show (TIFF): the face is taken, the figure keeps its caption', async () => {
    const tiff = path.join(mkdtempSync(path.join(os.tmpdir(), 'detectd-people-')), 'penny.tiff');
    await sharp(cropPath('penny', 1)).tiff().toFile(tiff);
    await page.fill('#people-userid', 'penny');
    await page.setInputFiles('#people-photos', [tiff, cropPath('penny', 2)]);
    await page.click('button:has-text("Register person")');
    await page.waitForFunction(() => document.getElementById('people-status')?.textContent?.startsWith('penny: face added'));
    expect(await page.textContent('#people-status')).to.contain('2 of 2 photos showed a face');
    const figures = await page.$$eval('#people-taken figure', (list) => list.map((figure) => [figure.querySelectorAll('canvas').length, figure.textContent]));
    expect(figures).to.deep.equal([[0, 'penny.tiff: face taken (this browser cannot show the file)'], [1, 'penny2.png']]);
    await page.click('button[aria-label="Remove penny"]');
    await page.waitForFunction(() => document.getElementById('people-count')?.textContent === 'Nobody registered yet.');
    expect(problems).to.deep.equal([]);
  });
});
