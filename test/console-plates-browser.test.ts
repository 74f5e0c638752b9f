import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { FIRST_ACCOUNT } from './support/test-server.js';
import { ARTIFACTS, LAPTOP, PHONE, signInOnPage, useServerAndBrowser } from './support/chromium.js';
import { SHARED_DIR } from './support/paths.js';
import { plateModelsFolder } from './support/plate-models.js';

const CAR = path.join(SHARED_DIR, 'eval', 'plates', 'images', 'br', 'JQS5683.jpg');

describe('console in Chromium: a license-plate service, its Try it drawing each plate with its text', function () {
  this.timeout(120_000);
  let models: string;
  before(() => {
    models = plateModelsFolder();
  });
  const fixture = useServerAndBrowser(() => ({ DETECTD_MODELS_DIR: models }));
  after(() => {
    if (models) fs.rmSync(models, { recursive: true, force: true });
  });

  for (const [width, viewport] of [['laptop', LAPTOP], ['phone', PHONE]] as const) {
    it(`reads the plate of a car photo and shows it by its text (${width})`, async () => {
      const name = `plates ${width}`;
      await fixture.server.createService({ email: FIRST_ACCOUNT.email, name, type: 'license-plate' });
      const page = await fixture.browser.newPage({ viewport });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await signInOnPage(page, fixture.server.url);
      await page.click(`text=${name}`);
      expect(await page.textContent('body')).to.contain('license-plate');
      await page.setInputFiles('#try-file', CAR);
      await page.click('#try-form button[type=submit]');
      await page.waitForSelector('#try-result:not([hidden])');
      expect(await page.getAttribute('#try-status', 'class')).to.not.contain('is-error');
      const answer = JSON.parse((await page.textContent('#try-json'))!) as { detected_plates: { name: string }[] };
      expect(answer.detected_plates.map((plate) => plate.name)).to.deep.equal(['JQS5683']);
      const chips = await page.$$eval('#try-counts li', (items) => items.map((item) => item.textContent));
      expect(chips).to.deep.equal(['JQS5683× 1']);
      expect(await page.getAttribute('#try-image', 'src')).to.match(/^data:image\/jpeg;base64,/);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, 'no sideways scrolling').to.be.at.most(0);
      expect(problems).to.deep.equal([]);
      await page.locator('#try-title').locator('..').screenshot({ path: path.join(ARTIFACTS, `console-plates-try-it-${width}.png`) });
      await page.close();
    });
  }
});
