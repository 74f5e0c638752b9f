import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ARTIFACTS, LAPTOP, PHONE, signInOnPage, useServerAndBrowser } from './support/chromium.js';
import { FIRST_ACCOUNT, type TestServer } from './support/test-server.js';

/** The account startTestServer makes first: the administrator. */
const ADMIN = FIRST_ACCOUNT;

/** Screenshots the page at laptop and phone width, and fails if the phone width scrolls sideways. */
async function atBothWidths(page: Page, name: string): Promise<void> {
  await page.setViewportSize(LAPTOP);
  await page.screenshot({ path: path.join(ARTIFACTS, `console-${name}-laptop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: path.join(ARTIFACTS, `console-${name}-phone.png`), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${name}: no sideways scrolling at 390 px`).to.be.at.most(0);
  await page.setViewportSize(LAPTOP);
}

const errorText = (page: Page, field: string) => page.textContent(`#field-${field}-error`);

describe('console management pages in Chromium, at laptop and phone width', () => {
  // DETECTD_SIGNUP as a default server has it: unset.
  const fixture = useServerAndBrowser();
  let server: TestServer;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    server = fixture.server;
    await server.createService({ email: 'member@example.com', name: 'Gate' });
    page = await (await fixture.browser.newContext({ viewport: LAPTOP })).newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('dialog', (dialog) => dialog.accept());
    await signInOnPage(page, server.url);
    await page.waitForURL('**/console/services');
  });

  it('limits 0 and −5: both errors beside their fields, the values kept, the first bad field focused', async () => {
    await page.click('table.list a');
    await page.waitForURL(/\/console\/services\/[0-9a-f-]{36}$/);
    await page.fill('#field-rate_limit_per_minute', '0');
    await page.fill('#field-monthly_quota', '-5');
    await page.click('#save-limits');
    await page.waitForSelector('#field-monthly_quota-error');
    expect(await errorText(page, 'rate_limit_per_minute')).to.match(/^requests per minute must be a whole number from 1/);
    expect(await errorText(page, 'monthly_quota')).to.match(/^calls per month must be a whole number from 1/);
    expect(await page.inputValue('#field-rate_limit_per_minute')).to.equal('0');
    expect(await page.inputValue('#field-monthly_quota')).to.equal('-5');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('field-rate_limit_per_minute');
    const [fieldBox, errorBox] = [await page.locator('#field-monthly_quota').boundingBox(), await page.locator('#field-monthly_quota-error').boundingBox()];
    expect(errorBox!.y - (fieldBox!.y + fieldBox!.height), 'the error sits right under its field').to.be.within(0, 20);
    await page.locator('#limits').screenshot({ path: path.join(ARTIFACTS, 'console-limits-refused.png') });
    await atBothWidths(page, 'limits-refused');

    await page.fill('#field-rate_limit_per_minute', '60');
    await page.fill('#field-monthly_quota', '');
    await page.click('#save-limits');
    await page.waitForSelector('text=Limits saved.');
    expect(await page.inputValue('#field-rate_limit_per_minute')).to.equal('60');
  });

  it('renames the service and changes its model from the drop-down', async () => {
    await page.fill('#settings #field-name', 'Front gate');
    await page.selectOption('#settings #field-model', '');
    await page.click('#save-settings');
    await page.waitForSelector('text=Name and model saved.');
    expect(await page.textContent('h1')).to.contain('Front gate');
    await page.locator('#settings').screenshot({ path: path.join(ARTIFACTS, 'console-service-settings.png') });
  });

  it('changes the administrator\u2019s password on "Your account", with every error in place first', async () => {
    await page.click('header >> text=Your account');
    await page.waitForURL('**/console/account');
    await page.fill('#field-current_password', 'not the password');
    await page.fill('#field-new_password', 'short');
    await page.click('#change-password');
    await page.waitForSelector('#field-new_password-error');
    expect(await errorText(page, 'current_password')).to.equal('the current password is not right');
    expect(await errorText(page, 'new_password')).to.match(/^the password must have 8 to/);
    await atBothWidths(page, 'account');
    await page.fill('#field-current_password', ADMIN.password);
    await page.fill('#field-new_password', 'a brand new passphrase');
    await page.click('#change-password');
    await page.waitForSelector('text=Password changed.');
    expect(await page.textContent('#account-role')).to.equal('Administrator');
  });

  it('on a default server, the administrator\u2019s invitation link signs someone up', async () => {
    await page.click('header >> text=Invitations');
    await page.waitForURL('**/console/invitations');
    expect(await page.textContent('#sign-up-policy')).to.contain('by invitation');
    await page.click('#create-invitation');
    const link = (await page.textContent('#invitation-link'))!;
    await atBothWidths(page, 'invitations');

    const invited = await (await fixture.browser.newContext({ viewport: PHONE })).newPage();
    await invited.goto(`${server.url}/console/sign-in`);
    expect(await invited.locator('text=Create a service account').count(), 'no sign-up link without an invitation').to.equal(0);
    await invited.goto(link);
    await invited.fill('#field-email', 'invited@example.com');
    await invited.fill('#field-password', 'an invited passphrase');
    await invited.click('button:has-text("Create account")');
    await invited.waitForURL('**/console/services');
    expect(await invited.textContent('h1')).to.equal('Services');
    await invited.context().close();
  });

  it('lists the accounts for the administrator, who disables and enables a member', async () => {
    await page.click('header >> text=Accounts');
    await page.waitForURL('**/console/accounts');
    const member = page.locator('tr', { hasText: 'member@example.com' });
    expect(await member.locator('td').nth(1).textContent()).to.equal('Member');
    expect(await page.locator('tr', { hasText: ADMIN.email }).locator('button').count(), 'no button for oneself').to.equal(0);
    await atBothWidths(page, 'accounts');
    await member.locator('button:has-text("Disable")').click();
    await page.waitForSelector('text=Account disabled.');
    expect(await member.locator('.badge').textContent()).to.equal('Disabled');
    await member.locator('button:has-text("Enable")').click();
    await page.waitForSelector('text=Account enabled.');
    expect(await member.locator('.badge').textContent()).to.equal('Active');
    await page.setViewportSize(PHONE);
    const tableOverflow = await page.$eval('#accounts', (table) => table.scrollWidth - table.parentElement!.clientWidth);
    expect(tableOverflow, 'the accounts table fits a phone without scrolling').to.be.at.most(0);
    await page.setViewportSize(LAPTOP);
    expect(problems, 'no script errors').to.deep.equal([]);
  });
});
