import path from 'node:path';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { ARTIFACTS, LAPTOP, PHONE, useServerAndBrowser } from './support/chromium.js';
import { photoPath } from './support/paths.js';

/** Opens the POST operation of `route`, uploads the dog photo, executes, and returns its answer's row, once a 200. */
async function tryUpload(page: Page, route: string): Promise<Locator> {
  const operation = page.locator('.opblock-post', { has: page.locator(`.opblock-summary-path[data-path="${route}"]`) });
  await operation.locator('.opblock-summary-control').click();
  await operation.locator('input[type=file]').setInputFiles(photoPath('dog.jpg'));
  await operation.locator('button.execute').click();
  const answer = operation.locator('.live-responses-table tbody tr.response').first();
  await answer.waitFor({ timeout: 30_000 });
  expect((await answer.locator('.response-col_status').textContent())?.trim(), `${route}: ${await answer.textContent()}`).to.equal('200');
  return answer;
}

/** How far the page reaches past the screen's right edge (0: it fits). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('API reference (/docs) in Chromium: authorize with a key, upload an image, see the objects', () => {
  const fixture = useServerAndBrowser();

  for (const [name, viewport] of [['laptop', LAPTOP], ['phone', PHONE]] as const) {
    it(`tries POST /api/v1/object-detection and DeepStack's /v1/vision/detection with the dog photo at ${name} width (${viewport.width} px), all within the screen`, async () => {
      const context = await fixture.browser.newContext({ viewport });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      // A CSP refusal or a failed load is a console error; so is any script failure.
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      const otherOrigins: string[] = [];
      page.on('request', (request) => new URL(request.url()).origin !== fixture.server.url && !request.url().startsWith('data:') && !request.url().startsWith('blob:') && otherOrigins.push(request.url()));
      try {
        await page.goto(`${fixture.server.url}/docs`);
        await page.waitForSelector('.opblock');
        expect(await page.textContent('.servers')).to.contain(fixture.server.url);
        expect(await overflow(page), 'the reference as it opens').to.equal(0);
        await page.screenshot({ path: path.join(ARTIFACTS, `docs-${name}.png`) });

        // Authorize: the key alone, as the console shows it.
        await page.click('.auth-wrapper button.authorize');
        await page.fill('.auth-container input', fixture.server.apiKey);
        await page.click('.auth-btn-wrapper button.authorize');
        await page.click('.auth-btn-wrapper button.btn-done');

        const answer = await tryUpload(page, '/api/v1/object-detection');
        const body = JSON.parse((await answer.locator('.response-col_description .microlight').first().textContent())!) as { detected_objects: { name: string }[] };
        expect(body.detected_objects.map((object) => object.name)).to.include.members(['dog', 'bicycle']);
        expect(body, 'the label fields left empty were not sent').to.not.have.property('frame_id');
        // The command shown beside the answer sends the key as the API documents it.
        expect(await page.locator('.opblock.is-open .curl-command').first().textContent()).to.contain(`Authorization: ApiKey ${fixture.server.apiKey}`);

        // DeepStack's route too, with the same key: its empty fields stay empty (DeepStack's default confidence).
        const deepStack = JSON.parse((await (await tryUpload(page, '/v1/vision/detection')).locator('.response-col_description .microlight').first().textContent())!) as { success: boolean; predictions: { label: string }[] };
        expect(deepStack.success).to.equal(true);
        expect(deepStack.predictions.map((prediction) => prediction.label)).to.include.members(['dog', 'bicycle']);

        expect(await overflow(page), 'the reference with the answer shown').to.equal(0);
        await page.locator('.opblock.is-open .live-responses-table').first().scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(ARTIFACTS, `docs-try-it-${name}.png`) });
        expect(problems, problems.join('\n')).to.deep.equal([]);
        expect(otherOrigins, 'nothing loaded from elsewhere: detectd works offline').to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  }
});
