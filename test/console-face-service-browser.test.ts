import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ARTIFACTS, LAPTOP, openServicePage, PHONE, tableValues, useServerAndBrowser } from './support/chromium.js';
import { cropPath, faceModelPath, FACES_DIR } from './support/faces.js';
import { DEFAULT_TEST_MODEL, photoPath } from './support/paths.js';
import { FIRST_ACCOUNT, type TestServer } from './support/test-server.js';

const WIDTHS = [['laptop', LAPTOP], ['phone', PHONE]] as const;

/**
 * Elements under `selector` that are cut off: past the page's right edge, or past the edge of a
 * box they sit in that scrolls or clips (a block of code, which scrolls by design, aside). Each
 * as `tag#id "text"`.
 */
function cutElements(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(`${selector} *`, (elements) =>
    elements.flatMap((element) => {
      const box = element.getBoundingClientRect();
      if (element.closest('pre') || box.width === 0 || box.height === 0) return [];
      let cut = box.left < -0.5 || box.right > document.documentElement.clientWidth + 0.5;
      for (let parent = element.parentElement; parent && !cut; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX === 'visible') continue;
        const outer = parent.getBoundingClientRect();
        cut = box.left < outer.left - 0.5 || box.right > outer.right + 0.5;
      }
      return cut ? [`${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} "${(element.textContent ?? '').trim().slice(0, 40)}"`] : [];
    }),
  );
}

/** The cells of a table's body rows, as a person sees them. */
const rowsOf = (page: Page, table: string) => page.$$eval(`${table} tbody tr`, (rows) => rows.map((row) => Array.from(row.children, (cell) => (cell as HTMLElement).innerText.trim())));

/**
 * A face service in Chromium, at 1280 and 390 px: Try it names a recognized face with the
 * similarity of the match and labels the detector's confidence as the face's; the People form
 * clears after a registration; the new-service form offers the chosen type's models; the face
 * match threshold is set on the page; nothing is cut on a phone. Faces are found by UltraFace
 * RFB-640 (../shared/models/faces), whatever the embedded detector is.
 */
describe('console of a face service in Chromium', function () {
  this.timeout(180_000);
  const fixture = useServerAndBrowser({ DETECTD_MODEL: `${DEFAULT_TEST_MODEL},${faceModelPath('ultraface-rfb-640')}` });
  let server: TestServer;
  const problems: string[] = [];

  before(async () => {
    server = fixture.server;
    const apiKey = await server.createService({ email: FIRST_ACCOUNT.email, name: 'Front door', type: 'face-detection' });
    // Leonard registered as a DeepStack client registers him: one crop.
    const form = new FormData();
    form.append('userid', 'leonard');
    form.append('image', new Blob([new Uint8Array(fs.readFileSync(cropPath('leonard', 1)))]), 'leonard1.png');
    const registered = await fetch(`${server.url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}` }, body: form });
    expect(registered.status, await registered.clone().text()).to.equal(200);
  });
  afterEach(() => expect(problems.splice(0), 'errors on the page').to.deep.equal([]));

  const openFrontDoor = (viewport: typeof LAPTOP) => openServicePage(fixture.browser, server.url, 'Front door', viewport, problems);

  for (const [width, viewport] of WIDTHS) {
    it(`Try it names the registered face with the similarity of the match and the others unknown; the confidence is the face's (${width})`, async () => {
      const page = await openFrontDoor(viewport);
      expect(await page.textContent('label[for="try-confidence"]')).to.match(/^Face confidence threshold/);
      expect(await page.$$eval('#try-table thead th', (cells) => cells.map((cell) => cell.textContent))).to.deep.equal(['Name', 'Face confidence', 'Box (left, top, right, bottom)']);
      if (width === 'laptop') {
        // One row: the image picker, the slider and the button share their bottom edge, the slider's note under them.
        const bottoms = await Promise.all(['#try-file', '#try-confidence', '#try-form button'].map(async (selector) => (await page.locator(selector).boundingBox())!));
        const edges = bottoms.map((box) => box.y + box.height);
        expect(Math.max(...edges) - Math.min(...edges), `bottom edges ${edges.join(', ')}`).to.be.at.most(12);
        expect((await page.locator('#try-confidence-note').boundingBox())!.y).to.be.at.least(Math.max(...edges));
      }
      // bbt1: Raj, Leonard, Howard, Sheldon; only Leonard is registered.
      await page.setInputFiles('#try-file', path.join(FACES_DIR, 'bbt1.jpg'));
      await page.click('button:has-text("Detect")');
      await page.waitForSelector('#try-result:not([hidden])');
      expect(await page.textContent('#try-status')).to.match(/^4 found at face confidence ≥ 0\.50 in \d+ ms\.$/);
      const answer = JSON.parse((await page.textContent('#try-json'))!) as { detected_faces: { name: string; confidence: number; similarity?: number }[] };
      const leonard = answer.detected_faces.find((face) => face.name === 'leonard')!;
      expect(leonard.similarity).to.be.within(0, 1);
      const rows = await rowsOf(page, '#try-table');
      // Each name has its correction under it (docs/faces.md "Corrections").
      expect(rows.map(([name]) => name).sort()).to.deep.equal([`leonard — similarity ${leonard.similarity!.toFixed(2)}\nNot leonard`, 'unknown\nAdd to…', 'unknown\nAdd to…', 'unknown\nAdd to…']);
      // Each row's number is the detector's confidence, in the answer's order.
      expect(rows.map(([, confidence]) => confidence)).to.deep.equal(answer.detected_faces.map((face) => face.confidence.toFixed(2)));
      expect(await cutElements(page, '#try-result')).to.deep.equal([]);
      await page.locator('#try-title').locator('..').screenshot({ path: path.join(ARTIFACTS, `console-face-try-it-${width}.png`) });
      await page.context().close();
    });
  }

  it('People: a registration clears the form for the next person; at 390 px every row shows its Remove button whole', async () => {
    const page = await openFrontDoor(LAPTOP);
    await page.waitForFunction(() => document.getElementById('people-count')?.textContent === '1 person registered');
    // The name field is styled as the console's other text fields (the sign-in form's), not the browser's bare box.
    const looks = (selector: string) => page.$eval(selector, (input) => ['border-radius', 'padding-left', 'border-top-color'].map((property) => getComputedStyle(input).getPropertyValue(property)));
    expect(await looks('#people-userid')).to.deep.equal(['8px', '11.2px', 'rgb(201, 209, 221)']);
    await page.fill('#people-userid', 'penny');
    await page.setInputFiles('#people-photos', [cropPath('penny', 1), cropPath('penny', 2)]);
    await page.click('button:has-text("Register person")');
    await page.waitForFunction(() => document.getElementById('people-status')?.textContent?.startsWith('penny: face added'));
    expect(await page.inputValue('#people-userid'), 'the name is cleared').to.equal('');
    expect(await page.$eval('#people-photos', (input) => (input as HTMLInputElement).files!.length), 'the photos are cleared').to.equal(0);
    expect(await page.$$('#people-taken canvas'), 'the faces taken stay shown').to.have.length(2);
    await page.waitForFunction(() => document.getElementById('people-count')?.textContent === '2 people registered');
    expect((await tableValues(page, '#people-table')).map(([userid, photos]) => [userid, photos])).to.deep.equal([['leonard', '1'], ['penny', '2']]);
    await page.locator('#people').screenshot({ path: path.join(ARTIFACTS, 'console-face-people-laptop.png') });

    await page.setViewportSize(PHONE);
    expect(await cutElements(page, '#people')).to.deep.equal([]);
    for (const button of await page.$$('#people-table button')) expect(await button.evaluate((element) => element.scrollWidth <= element.clientWidth)).to.equal(true);
    // A row is a small card on a phone: the cells say what they are.
    expect((await rowsOf(page, '#people-table'))[1].slice(0, 2)).to.deep.equal(['penny', 'Photos 2']);
    await page.locator('#people').screenshot({ path: path.join(ARTIFACTS, 'console-face-people-phone.png') });

    // A refused registration keeps what was typed, to correct it.
    await page.fill('#people-userid', 'rex');
    await page.setInputFiles('#people-photos', photoPath('dog.jpg'));
    await page.click('button:has-text("Register person")');
    await page.waitForFunction(() => document.getElementById('people-status')?.textContent?.startsWith('Could not register rex'));
    expect(await page.inputValue('#people-userid')).to.equal('rex');
    await page.click('button[aria-label="Remove penny"]');
    await page.waitForFunction(() => document.getElementById('people-count')?.textContent === '1 person registered');
    await page.context().close();
  });

  for (const [width, viewport] of WIDTHS) {
    it(`the face match threshold is set on the page; the DeepStack card lists the face routes; nothing on the page is cut (${width})`, async () => {
      const page = await openFrontDoor(viewport);
      expect(await page.textContent('#face-threshold-value')).to.match(/^default \(/);
      await page.fill('#field-threshold', '0.75');
      await page.click('#save-face-threshold');
      await page.waitForURL(/done=face-threshold/);
      expect(await page.textContent('#face-threshold-value')).to.equal('0.75');
      expect(await page.isVisible('#face-threshold .notice')).to.equal(true);
      await page.locator('#face-threshold').screenshot({ path: path.join(ARTIFACTS, `console-face-threshold-${width}.png`) });
      const routes = await page.$$eval('#deepstack-routes code', (codes) => codes.map((code) => code.textContent!));
      expect(routes).to.have.length(6);
      for (const route of routes) expect(route).to.match(/^\/v1\/vision\/face/);
      await page.locator('#keyless').screenshot({ path: path.join(ARTIFACTS, `console-face-deepstack-${width}.png`) });

      // Every card of the page, with People listed and a Try it answer shown.
      await page.waitForFunction(() => document.querySelectorAll('#people-table tbody tr').length > 0);
      await page.setInputFiles('#try-file', path.join(FACES_DIR, 'bbt1.jpg'));
      await page.click('button:has-text("Detect")');
      await page.waitForSelector('#try-result:not([hidden])');
      expect(await cutElements(page, 'body')).to.deep.equal([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 'no sideways scrolling').to.be.at.most(0);
      await page.screenshot({ path: path.join(ARTIFACTS, `console-face-service-${width}.png`), fullPage: true });
      await page.fill('#field-threshold', '');
      await page.click('#save-face-threshold');
      await page.waitForURL(/done=face-threshold/);
      expect(await page.textContent('#face-threshold-value')).to.match(/^default \(/);
      await page.context().close();
    });
  }

  for (const [width, viewport] of WIDTHS) {
    it(`the new-service form offers the chosen type's models, its server default named; a face service is created on a face model (${width})`, async () => {
      const page = await openFrontDoor(viewport);
      await page.goto(`${server.url}/console/services/new`);
      const offered = () => page.$$eval('#field-model option', (options) => options.map((option) => option.textContent));
      const objectModels = await offered();
      expect(objectModels[0]).to.match(/^Server default \(yolo/);
      expect(objectModels.slice(1), 'object models only').to.satisfy((models: string[]) => models.length > 0 && models.every((model) => model.startsWith('yolo')));
      await page.selectOption('#field-type', 'face-detection');
      expect(await offered()).to.deep.equal(['Server default (ultraface-rfb-640)', 'ultraface-rfb-640']);
      expect(await page.inputValue('#field-model'), 'the server default chosen').to.equal('');
      await page.locator('.card.narrow').screenshot({ path: path.join(ARTIFACTS, `console-new-face-service-${width}.png`) });
      expect(await cutElements(page, 'main')).to.deep.equal([]);
      await page.selectOption('#field-model', 'ultraface-rfb-640');
      await page.selectOption('#field-type', 'object-detection');
      expect(await offered()).to.deep.equal(objectModels);
      await page.selectOption('#field-type', 'face-detection');
      await page.selectOption('#field-model', 'ultraface-rfb-640');
      await page.fill('#field-name', `Back door ${width}`);
      await page.click('button:has-text("Create service")');
      await page.waitForURL(/done=created/);
      expect(await page.textContent('.entry:has(dt:text("Model")) dd')).to.equal('ultraface-rfb-640');
      await page.context().close();
    });
  }
});
