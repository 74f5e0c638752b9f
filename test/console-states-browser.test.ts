import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { FIRST_ACCOUNT } from './support/test-server.js';
import { ARTIFACTS, LAPTOP, openServicePage, PHONE, useServerAndBrowser } from './support/chromium.js';
import { pklotFrame as frame, pklotLabel as labelled } from './support/pklot.js';

/** One parking space, taught from September frames around midday (two of each state), judged on an October frame. */
const SPACE = 'space_10';
const TAUGHT = { occupied: ['2012-09-14_11_06_16', '2012-09-15_11_57_13'], empty: ['2012-09-16_12_28_10', '2012-09-21_12_50_27'] } as const;
const JUDGED = '2012-10-31_12_08_14';

interface StateFinding {
  name: string;
  state: string;
}

/** Frame pixels → the page's pixels over the frame's canvas. */
async function onCanvas(page: Page, [x, y]: readonly [number, number]): Promise<[number, number]> {
  await page.locator('#states-canvas').scrollIntoViewIfNeeded();
  const box = (await page.locator('#states-canvas').boundingBox())!;
  const [width, height] = await page.$eval('#states-canvas', (canvas: HTMLCanvasElement) => [canvas.width, canvas.height]);
  return [box.x + (x * box.width) / width, box.y + (y * box.height) / height];
}

async function showFrame(page: Page, name: string) {
  await page.setInputFiles('#states-frame', frame(name));
  await page.click('#states-frame-form button[type=submit]');
  await page.waitForSelector(`#states-frame-note:has-text("${name}.jpg, 1280 × 720")`);
}

describe('console in Chromium: a region-states service\'s Regions and states card (regions drawn on a PKLot frame, states taught from frames), its Try it and "This was…"', function () {
  this.timeout(180_000);
  const fixture = useServerAndBrowser();

  for (const [width, viewport] of [['laptop', LAPTOP], ['phone', PHONE]] as const) {
    it(`draws a space by dragging, teaches it empty and occupied from September frames, Try it judges an October frame right, removes an example (${width})`, async () => {
      const name = `parking ${width}`;
      await fixture.server.createService({ email: FIRST_ACCOUNT.email, name, type: 'region-states' });
      const problems: string[] = [];
      const page = await openServicePage(fixture.browser, fixture.server.url, name, viewport, problems);
      await page.waitForSelector('#states-regions-count:text("No regions on this camera yet.")');
      await page.fill('#states-source', 'pucpr');
      await showFrame(page, TAUGHT.occupied[0]);

      // A box dragged over the space (its bounds as PKLot labels them), then a polygon clicked corner by corner on its neighbour.
      const [left, top, boxWidth, boxHeight] = labelled(TAUGHT.occupied[0], SPACE).region;
      await page.mouse.move(...(await onCanvas(page, [left, top])));
      await page.mouse.down();
      await page.mouse.move(...(await onCanvas(page, [left + boxWidth / 2, top + boxHeight / 2])));
      await page.mouse.move(...(await onCanvas(page, [left + boxWidth, top + boxHeight])));
      await page.mouse.up();
      const typed = (await page.inputValue('#states-region-points')).split(/[\s,]+/).map(Number);
      // Where a pointer lands is rounded to the page's pixels: at 390 px wide, a page pixel is about 4 of the frame's.
      typed.forEach((value, n) => expect(value).to.be.closeTo([left, top, left + boxWidth, top + boxHeight][n], 5));
      await page.fill('#states-region-name', SPACE);
      await page.click('#states-region-form button[type=submit]');
      await page.waitForSelector('#states-regions-count:text("1 region")');
      await page.selectOption('#states-region-shape', 'polygon');
      for (const corner of labelled(TAUGHT.occupied[0], 'space_11').polygon) await page.mouse.click(...(await onCanvas(page, corner)));
      expect((await page.inputValue('#states-region-points')).split(' ')).to.have.length(4);
      await page.fill('#states-region-name', 'space_11');
      await page.click('#states-region-form button[type=submit]');
      await page.waitForSelector('#states-regions-count:text("2 regions")');
      await page.click('button[aria-label="Remove region space_11"]');
      await page.waitForSelector('#states-regions-count:text("1 region")');

      // Each frame teaches the space the state it is in there.
      for (const [state, frames] of Object.entries(TAUGHT)) {
        for (const file of frames) {
          expect(labelled(file, SPACE).state).to.equal(state);
          if (file !== TAUGHT.occupied[0]) await showFrame(page, file);
          await page.fill(`input[aria-label="State of ${SPACE} in this frame"]`, state);
          await page.click('#states-teach');
          await page.waitForSelector(`#states-status:text("Taught ${SPACE}: ${state}.")`);
        }
      }
      expect(await page.textContent('#states-regions-table tbody td:nth-child(2)')).to.equal('Examples empty 2, occupied 2');
      expect(await page.locator('#states-examples img').count()).to.equal(4);

      // Try it judges a frame of October, never taught from, for the camera named in the card.
      const truth = labelled(JUDGED, SPACE).state;
      await page.setInputFiles('#try-file', frame(JUDGED));
      await page.click('#try-form button[type=submit]');
      await page.waitForSelector('#try-result:not([hidden])');
      expect(await page.getAttribute('#try-status', 'class')).to.not.contain('is-error');
      const answer = JSON.parse((await page.textContent('#try-json'))!) as { detected_states: StateFinding[] };
      expect(answer.detected_states.map((found) => [found.name, found.state])).to.deep.equal([[SPACE, truth]]);
      expect(await page.textContent('#try-table tbody td')).to.contain(`${SPACE} — ${truth}`);
      expect(await page.getAttribute('#try-image', 'src')).to.match(/^data:image\/jpeg;base64,/);

      // "This was…": the judged frame becomes one more example of its state.
      await page.click('#try-table button:has-text("This was")');
      await page.fill(`input[aria-label="What ${SPACE} was in this image"]`, truth);
      await page.click('#try-table button:has-text("Teach")');
      await page.waitForSelector(`#try-status:has-text("${SPACE} taught as ${truth}.")`);
      await page.waitForSelector(`#states-examples h4:text("${SPACE}: ${truth} (3)")`);

      // An example removed: its state keeps the others.
      await page.click(`button[aria-label="Remove example 1 of ${SPACE}: ${truth}"]`);
      await page.waitForSelector(`#states-examples h4:text("${SPACE}: ${truth} (2)")`);
      expect(await page.locator('#states-examples img').count()).to.equal(4);

      // Try it's image as the frame to label: its state taught from the card.
      await page.click('#states-use-try');
      await page.waitForSelector(`#states-frame-note:has-text("${JUDGED}.jpg, 1280 × 720")`);
      await page.fill(`input[aria-label="State of ${SPACE} in this frame"]`, truth);
      await page.click('#states-teach');
      await page.waitForSelector(`#states-status:text("Taught ${SPACE}: ${truth}.")`);
      await page.waitForSelector(`#states-examples h4:text("${SPACE}: ${truth} (3)")`);

      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, 'no sideways scrolling').to.be.at.most(0);
      expect(problems).to.deep.equal([]);
      await page.locator('#region-states').screenshot({ path: path.join(ARTIFACTS, `console-region-states-${width}.png`) });
      await page.locator('#try-title').locator('..').screenshot({ path: path.join(ARTIFACTS, `console-region-states-try-it-${width}.png`) });
      await page.close();
    });
  }
});
