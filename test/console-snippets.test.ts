import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, launchChromium, signInOnPage } from './support/chromium.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Chooses the language's tab and copies what its buttons copy: the code, and the run command when there is one. */
async function copied(page: Page, tab: string, buttons: readonly string[]): Promise<string[]> {
  await page.click(`#tab-${tab}`);
  const texts: string[] = [];
  for (const name of buttons) {
    const button = await page.locator(`#panel-${tab}`).getByRole('button', { name }).elementHandle();
    await button!.click();
    await page.waitForFunction((element) => element.textContent === 'Copied', button);
    texts.push(await page.evaluate(() => navigator.clipboard.readText()));
  }
  return texts;
}

/** Runs what a user pasted into a shell, in a folder holding dog.jpg (asynchronously: the server answers from this process); its standard output. */
async function runPasted(folder: string, command: string): Promise<string> {
  const run = await promisify(execFile)('sh', ['-c', command], { cwd: folder, encoding: 'utf8', timeout: 60_000 }).catch((error: { stderr?: string; message: string }) => {
    throw new Error(`${command}\n${error.stderr ?? error.message}`);
  });
  return run.stdout;
}

describe('"Call it" in Chromium: curl, Python and JavaScript from one example, each run as copied against the real server', () => {
  let server: TestServer;
  let browser: Browser;
  let folder: string;
  before(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-snippets-'));
    fs.copyFileSync(photoPath('dog.jpg'), path.join(folder, 'dog.jpg'));
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('copies each snippet with the key filled in; curl, python3 + requests and node each find the dog', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    await signInOnPage(page, server.url);
    await page.click('text=service 1');

    const [curl] = await copied(page, 'curl', ['Copy command']);
    expect(curl).to.contain(`export DETECTD_API_KEY='${server.apiKey}'`);
    expect(JSON.parse(await runPasted(folder, curl)).detected_objects.map((object: { name: string }) => object.name)).to.include('dog');

    const [python, pythonRun] = await copied(page, 'python', ['Copy Python', 'Copy run command']);
    expect(await page.isVisible('#panel-curl'), 'one language at a time').to.equal(false);
    expect(pythonRun).to.equal(`DETECTD_API_KEY='${server.apiKey}' python3 detect.py`);
    fs.writeFileSync(path.join(folder, 'detect.py'), python);
    expect(await runPasted(folder, pythonRun)).to.contain("'name': 'dog'");
    await page.locator('#call-it').screenshot({ path: path.join(ARTIFACTS, 'console-call-it-python.png') });

    const [javascript, javascriptRun] = await copied(page, 'javascript', ['Copy JavaScript', 'Copy run command']);
    expect(javascriptRun).to.equal(`DETECTD_API_KEY='${server.apiKey}' node detect.mjs`);
    fs.writeFileSync(path.join(folder, 'detect.mjs'), javascript);
    expect(JSON.parse(await runPasted(folder, javascriptRun)).detected_objects.map((object: { name: string }) => object.name)).to.include('dog');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#call-it').screenshot({ path: path.join(ARTIFACTS, 'console-call-it-javascript-phone.png') });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, 'no sideways scrolling at phone width').to.be.at.most(0);
    await context.close();
  });
});
