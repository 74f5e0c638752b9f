import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, launchChromium, signInOnPage } from './support/chromium.js';
import { photoPath } from './support/paths.js';
import { FACES_DIR } from './support/faces.js';
import { FIRST_ACCOUNT, startTestServer, type TestServer } from './support/test-server.js';

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

/** Runs what a user pasted into a shell, in a folder holding the photo it names (asynchronously: the server answers from this process); its standard output. */
async function runPasted(folder: string, command: string): Promise<string> {
  const run = await promisify(execFile)('sh', ['-c', command], { cwd: folder, encoding: 'utf8', timeout: 60_000 }).catch((error: { stderr?: string; message: string }) => {
    throw new Error(`${command}\n${error.stderr ?? error.message}`);
  });
  return run.stdout;
}

/** Each service the test calls: its page in the console, the photo its snippets send (copied into the folder as they name it), and a thing they must find. */
const CALLED = [
  { service: 'service 1', photo: photoPath('dog.jpg'), field: 'detected_objects', name: 'dog' },
  // Nobody is registered, so every face found is named "face".
  { service: 'Front door', photo: path.join(FACES_DIR, 'bbt1.jpg'), field: 'detected_faces', name: 'face' },
] as const;

describe('"Call it" in Chromium: curl, Python and JavaScript from one example, each run as copied against the real server', () => {
  let server: TestServer;
  let browser: Browser;
  let folder: string;
  const apiKeys = new Map<string, string>();
  before(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-snippets-'));
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
    apiKeys.set('service 1', server.apiKey).set('Front door', await server.createService({ email: FIRST_ACCOUNT.email, name: 'Front door', type: 'face-detection' }));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  for (const called of CALLED) {
    it(`copies each snippet of "${called.service}" with the key filled in; curl, python3 + requests and node each send its example photo and find a ${called.name}`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      const page = await context.newPage();
      await signInOnPage(page, server.url);
      await page.click(`text=${called.service}`);
      const apiKey = apiKeys.get(called.service);
      // The photo the page names, where the page says it should be.
      const photo = /<code>([\w.]+)<\/code>, in the current folder/.exec(await page.innerHTML('#panel-curl'))![1];
      fs.copyFileSync(called.photo, path.join(folder, photo));
      const found = (output: string) => (JSON.parse(output)[called.field] as { name: string }[]).map((each) => each.name);

      const [curl] = await copied(page, 'curl', ['Copy command']);
      expect(curl).to.contain(`export DETECTD_API_KEY='${apiKey}'`).and.contain(`image=@${photo}`);
      expect(found(await runPasted(folder, curl))).to.include(called.name);

      const [python, pythonRun] = await copied(page, 'python', ['Copy Python', 'Copy run command']);
      expect(await page.isVisible('#panel-curl'), 'one language at a time').to.equal(false);
      expect(pythonRun).to.equal(`DETECTD_API_KEY='${apiKey}' python3 detect.py`);
      expect(python).to.contain(`open("${photo}", "rb")`);
      fs.writeFileSync(path.join(folder, 'detect.py'), python);
      expect(await runPasted(folder, pythonRun)).to.contain(`'name': '${called.name}'`);
      await page.locator('#call-it').screenshot({ path: path.join(ARTIFACTS, `console-call-it-python-${called.field}.png`) });

      const [javascript, javascriptRun] = await copied(page, 'javascript', ['Copy JavaScript', 'Copy run command']);
      expect(javascriptRun).to.equal(`DETECTD_API_KEY='${apiKey}' node detect.mjs`);
      fs.writeFileSync(path.join(folder, 'detect.mjs'), javascript);
      expect(found(await runPasted(folder, javascriptRun))).to.include(called.name);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('#call-it').screenshot({ path: path.join(ARTIFACTS, `console-call-it-javascript-phone-${called.field}.png`) });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, 'no sideways scrolling at phone width').to.be.at.most(0);
      await context.close();
    });
  }
});
