import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { FIRST_ACCOUNT, type TestServer } from './support/test-server.js';
import { ARTIFACTS, LAPTOP, PHONE, signInOnPage, useServerAndBrowser } from './support/chromium.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { photoPath } from './support/paths.js';

async function signIn(page: Page, server: TestServer): Promise<void> {
  await signInOnPage(page, server.url);
  await page.waitForURL('**/console/services');
}

/** The top of an element, in page pixels. */
const topOf = (page: Page, selector: string) => page.$eval(selector, (element) => element.getBoundingClientRect().top + window.scrollY);

describe('service overview page in Chromium: order, notices where the form is, a usage panel that refreshes, key actions that say what they do', () => {
  const fixture = useServerAndBrowser();

  for (const [width, viewport] of [['laptop', LAPTOP], ['phone', PHONE]] as const) {
    it(`puts Try it right after the endpoint and the command, keeps the chart readable (${width})`, async () => {
      const page = await fixture.browser.newPage({ viewport });
      await signIn(page, fixture.server);
      await page.click('text=service 1');
      const order = await page.$$eval('.overview > section h2', (headings) => headings.map((heading) => heading.textContent));
      expect(order.slice(0, 4)).to.deep.equal(['Service', 'Call it', 'Try it', 'Live video']);
      expect(order.indexOf('Usage')).to.be.greaterThan(order.indexOf('Try it'));
      expect(order.indexOf('DeepStack / CodeProject.AI clients')).to.be.greaterThan(order.indexOf('Limits'));
      expect(await topOf(page, '#try-title'), 'Try it within the first screens').to.be.lessThan(width === 'laptop' ? 1000 : 1700);
      const chart = await page.$eval('.chart-plot', (plot) => plot.getBoundingClientRect().height);
      expect(chart, 'the chart is tall enough to read').to.be.at.least(150);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, 'no sideways scrolling').to.be.at.most(0);
      await page.screenshot({ path: path.join(ARTIFACTS, `console-overview-order-${width}.png`), fullPage: true });
      await page.close();
    });
  }

  it('says "Limits saved" in the Limits card the page lands on; the usage panel refreshes itself', async () => {
    const page = await fixture.browser.newPage({ viewport: LAPTOP });
    await signIn(page, fixture.server);
    await page.click('text=service 1');
    const overview = page.url();
    await page.fill('#field-monthly_quota', '1000');
    await page.click('#save-limits');
    await page.waitForURL(/done=limits/);
    const notice = page.locator('#limits .notice');
    expect(await notice.textContent()).to.equal('Limits saved.');
    expect(await notice.isVisible()).to.equal(true);
    const [noticeBox, scrolled] = [await notice.boundingBox(), await page.evaluate(() => window.scrollY)];
    expect(scrolled, 'the page lands on the Limits card').to.be.greaterThan(0);
    expect(noticeBox!.y, 'the notice is on screen').to.be.within(0, LAPTOP.height);
    expect(await page.locator('main > .notice').count(), 'not at the top of the page').to.equal(0);

    await page.goto(overview);
    const before = Number(await page.textContent('#usage-requests'));
    expect((await postDetection(fixture.server.url, imageRequest(photoPath('dog.jpg')), { apiKey: fixture.server.apiKey })).status).to.equal(200);
    await page.waitForFunction((count) => Number(document.getElementById('usage-requests')?.textContent) > count, before, { timeout: 30_000 });
    expect(await page.textContent('#usage-limits')).to.match(/quota \d+ of 1,000 calls used in \w+ \d{4}/);
    await page.close();
  });

  it('after a revoke offers no command with a dead key; keeps rotate and revoke apart; "Require a key again" is not styled as destructive', async () => {
    const apiKey = await fixture.server.createService({ email: FIRST_ACCOUNT.email, name: 'revoked one' });
    const page = await fixture.browser.newPage({ viewport: LAPTOP });
    page.on('dialog', (dialog) => dialog.accept());
    await signIn(page, fixture.server);
    await page.click('text=revoked one');
    expect(await page.locator('.rotate-form fieldset #rotate-key').count(), 'the Rotate button sits with its choices').to.equal(1);
    expect(await page.locator('.rotate-form').getByText('Revoke key').count(), 'Revoke is not among the rotate choices').to.equal(0);
    await page.locator('.revoke-row').getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForSelector('text=API key revoked.');
    expect((await postDetection(fixture.server.url, imageRequest(photoPath('dog.jpg')), { apiKey })).status).to.equal(401);
    expect(await page.textContent('#curl-example')).to.contain('no working API key').and.not.contain('export DETECTD_API_KEY');
    expect(await page.locator('button[data-copy-from="curl-example"]').count()).to.equal(0);

    await page.fill('#field-keyless-ranges', '127.0.0.1/32');
    await page.click('#keyless-on');
    await page.waitForURL(/done=keyless-on/);
    expect(await page.textContent('#keyless .notice')).to.contain('now accepted');
    const style = await page.getAttribute('#keyless-off', 'class');
    expect(style).to.contain('primary').and.not.contain('danger');
    await page.locator('#api-key-entry').screenshot({ path: path.join(ARTIFACTS, 'console-key-after-revoke.png') });
    await page.locator('#keyless').screenshot({ path: path.join(ARTIFACTS, 'console-keyless-on.png') });
    await page.close();
  });
});
