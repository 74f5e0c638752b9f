import fs from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { makePanClip, type PanClip } from '../../scripts/lib/pan-clip.js';
import { photoPath } from './paths.js';
import { FIRST_ACCOUNT, startTestServer, type TestServer } from './test-server.js';

/** Debian's Chromium, never a test tool's own browser download; `extraArgs` add switches (e.g. `--host-resolver-rules`). */
export const launchChromium = (extraArgs: readonly string[] = []) =>
  chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--use-fake-ui-for-media-stream', ...extraArgs],
  });

/** What a browser streaming test needs: a real server, a video clip of the dog photo panning, and Chromium. */
export interface BrowserStreamFixture {
  server: TestServer;
  clip: PanClip;
  browser: Browser;
}

/** Registers the suite's before/after hooks that start and stop a BrowserStreamFixture; its fields are set once `before` has run. */
export function useBrowserStreamFixture(): BrowserStreamFixture {
  const fixture = useServerAndBrowser() as BrowserStreamFixture;
  before(async () => {
    fixture.clip = await makePanClip(photoPath('dog.jpg'));
  });
  after(() => fixture.clip?.remove());
  return fixture;
}

/**
 * The values in a table's body rows: each cell's text less the label a phone shows before it
 * (`.stack-label`), the same whatever the layout. `innerText` reads that label too wherever Chromium
 * has not laid the cell out (it is `textContent` then): a full run once read a People row at 1280 px as
 * "Photos 3", "Not them 0". What a phone shows is read with `innerText` where the layout is the point.
 */
export const tableValues = (page: Page, table: string) =>
  page.$$eval(`${table} tbody tr`, (rows) =>
    rows.map((row) => Array.from(row.children, (cell) => Array.from(cell.childNodes, (node) => (node instanceof Element && node.classList.contains('stack-label') ? '' : node.textContent)).join('').trim())),
  );

/** Where browser tests leave their screenshots (looked at by people, not asserted). */
export const ARTIFACTS = path.resolve('test-artifacts');
/** The widths the console and the docs are tested at: a laptop and a phone. */
export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * A real server (with `env` as its settings, or what `env()` gives when its `before` runs: after the
 * hooks registered ahead of it) and Chromium for a suite: registers its before/after hooks; the
 * fields are set once `before` has run.
 */
export function useServerAndBrowser(env: Record<string, string> | (() => Record<string, string>) = {}): { server: TestServer; browser: Browser } {
  const fixture = {} as { server: TestServer; browser: Browser };
  before(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    [fixture.server, fixture.browser] = await Promise.all([startTestServer(typeof env === 'function' ? env() : env), launchChromium()]);
  });
  after(async () => {
    await fixture.browser?.close();
    await fixture.server?.close();
  });
  return fixture;
}

/**
 * A new page at `viewport`, signed in as the first account, on the overview of its service `name`;
 * script errors on it go into `problems`, and its confirmations are accepted.
 */
export async function openServicePage(browser: Browser, serverUrl: string, name: string, viewport: typeof LAPTOP, problems: string[]): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('dialog', (dialog) => dialog.accept());
  await signInOnPage(page, serverUrl);
  await page.waitForURL('**/console/services');
  await page.click(`table.list a:has-text("${name}")`);
  await page.waitForURL(/\/console\/services\/[0-9a-f-]{36}$/);
  return page;
}

/** Signs `page` in on the console's sign-in form (as a person types it); the test server's first account by default. */
export async function signInOnPage(page: Page, serverUrl: string, email: string = FIRST_ACCOUNT.email, password: string = FIRST_ACCOUNT.password): Promise<void> {
  await page.goto(`${serverUrl}/console/sign-in`);
  await page.fill('#field-email', email);
  await page.fill('#field-password', password);
  await page.click('button:has-text("Sign in")');
}
