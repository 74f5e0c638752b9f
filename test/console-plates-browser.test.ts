import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { FIRST_ACCOUNT } from './support/test-server.js';
import { ARTIFACTS, LAPTOP, PHONE, signInOnPage, useServerAndBrowser } from './support/chromium.js';
import { SHARED_DIR } from './support/paths.js';
import { plateModelsFolder } from './support/plate-models.js';

const CAR = path.join(SHARED_DIR, 'eval', 'plates', 'images', 'br', 'JQS5683.jpg');

describe('console in Chromium: a license-plate service, its Try it drawing each plate with its text, its Known plates', function () {
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

    it(`Known plates: adds a plate with a name, sets the distance, removes one; Try it names the car it reads one character off (${width})`, async () => {
      const name = `known ${width}`;
      await fixture.server.createService({ email: FIRST_ACCOUNT.email, name, type: 'license-plate' });
      const page = await fixture.browser.newPage({ viewport });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('dialog', (dialog) => void dialog.accept());
      await signInOnPage(page, fixture.server.url);
      await page.click(`text=${name}`);
      await page.waitForSelector('#known-plates-count:text("No known plates yet.")');
      const add = async (plate: string, owner: string) => {
        await page.fill('#known-plate', plate);
        await page.fill('#known-plate-name', owner);
        await page.click('#known-plates-form button[type=submit]');
      };
      // One character off what the reader reads (JQS5683), and a plate to remove; a name that is markup stays text.
      await add('JQS-5688', '<b>Amy</b>\'s car');
      await page.waitForSelector('#known-plates-count:text("1 known plate")');
      await add('XY 999', 'Truck');
      await page.waitForSelector('#known-plates-count:text("2 known plates")');
      await add('jqs5688', 'again');
      await page.waitForSelector('#known-plates-status:has-text("already")');
      expect(await page.textContent('#known-plates-status')).to.equal('Could not add jqs5688: the service already lists "JQS5688" (O and 0, I and 1 count as one character): remove it first');
      await page.click('button[aria-label="Remove XY999"]');
      await page.waitForSelector('#known-plates-count:text("1 known plate")');
      expect(await page.$$eval('#known-plates-table tbody tr', (rows) => rows.map((row) => row.querySelector('td')!.textContent))).to.deep.equal(['JQS5688']);
      expect(await page.textContent('#known-plates-table tbody')).to.contain('<b>Amy</b>\'s car');
      await page.selectOption('#known-plates-distance', '2');
      await page.click('#known-plates-distance-form button[type=submit]');
      await page.waitForSelector('#known-plates-status:has-text("up to 2 characters off")');
      await page.reload();
      await page.waitForSelector('#known-plates-count:text("1 known plate")');
      expect(await page.inputValue('#known-plates-distance')).to.equal('2');
      await page.setInputFiles('#try-file', CAR);
      await page.click('#try-form button[type=submit]');
      await page.waitForSelector('#try-result:not([hidden])');
      const answer = JSON.parse((await page.textContent('#try-json'))!) as { detected_plates: { name: string; known?: { name: string; distance: number } }[] };
      expect(answer.detected_plates.map((plate) => [plate.name, plate.known?.name, plate.known?.distance])).to.deep.equal([['JQS5683', '<b>Amy</b>\'s car', 1]]);
      expect(await page.textContent('#try-table tbody td')).to.equal('JQS5683 — known: <b>Amy</b>\'s car');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, 'no sideways scrolling').to.be.at.most(0);
      expect(problems).to.deep.equal([]);
      await page.locator('#known-plates').screenshot({ path: path.join(ARTIFACTS, `console-known-plates-${width}.png`) });
      await page.locator('#try-title').locator('..').screenshot({ path: path.join(ARTIFACTS, `console-known-plates-try-it-${width}.png`) });
      await page.close();
    });
  }
});
