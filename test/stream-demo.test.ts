import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ARTIFACTS, launchChromium, signInOnPage, useBrowserStreamFixture } from './support/chromium.js';

interface DrawnCheck {
  name: string;
  trackId: number;
  edgePixels: number;
  matchingPixels: number;
  tracksText: string;
}

describe('live video demo page (headless Chromium, real server, real model)', () => {
  const fixture = useBrowserStreamFixture();

  it('over plain HTTP on a LAN address, the webcam says it needs HTTPS or localhost (no script error); a video file still streams there', async () => {
    const { server, clip } = fixture;
    const port = new URL(server.url).port;
    // A name that is not localhost, for the server on this machine: as a LAN address is, it is not a secure origin.
    const browser = await launchChromium(['--host-resolver-rules=MAP detectd-lan.test 127.0.0.1']);
    try {
      const page = await browser.newPage();
      const scriptErrors: string[] = [];
      page.on('pageerror', (error) => scriptErrors.push(error.message));
      await page.goto(`http://detectd-lan.test:${port}/stream-demo`);
      expect(await page.evaluate(() => window.isSecureContext)).to.equal(false);
      const message =
        `The webcam needs HTTPS or localhost: browsers offer the camera only to secure pages, and this page is http://detectd-lan.test:${port}. ` +
        `Open it at http://localhost:${port} on the machine that runs detectd, or over HTTPS (a reverse proxy with TLS in front of it); a video file works here as it is.`;
      await page.selectOption('#source', 'camera');
      expect(await page.textContent('#status')).to.equal(message);
      expect(await page.getAttribute('#status', 'class')).to.equal('is-error');
      await page.fill('#apiKey', server.apiKey);
      await page.click('#start');
      expect(await page.textContent('#status'), 'pressing Start says the same').to.equal(message);
      await page.selectOption('#source', 'file');
      expect(await page.textContent('#status')).to.equal('');
      await page.setInputFiles('#file', clip.webmPath);
      await page.click('#start');
      await page.waitForFunction(() => (window as unknown as { streamDemo: { results: number } }).streamDemo.results > 0);
      await page.click('#stop');
      expect(scriptErrors).to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });

  it('streams a video file and draws boxes, labels and track ids over the analysed frames', async () => {
    const { server, clip, browser } = fixture;
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    const foreign: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(server.url) && !url.startsWith('blob:') && !url.startsWith('data:')) foreign.push(url);
    });
    await page.goto(server.url + '/stream-demo');
    await page.fill('#apiKey', server.apiKey);
    await page.setInputFiles('#file', clip.webmPath);
    await page.click('#start');
    await page.waitForFunction(
      () => {
        const demo = (window as any).streamDemo;
        return demo.results >= 5 && demo.lastDrawn?.detected_objects.some((object: any) => object.name === 'dog');
      },
      null,
      { timeout: 60_000 },
    );

    // On the canvas, the dog's box is outlined in its track's colour.
    const check: DrawnCheck = await page.evaluate(() => {
      const demo = (window as any).streamDemo;
      const dog = demo.lastDrawn.detected_objects.find((object: any) => object.name === 'dog');
      const canvas = document.getElementById('view') as HTMLCanvasElement;
      const context = canvas.getContext('2d')!;
      const { left, top, bottom } = dog.bounding_box;
      const pixels = context.getImageData(left, top + 30, 1, bottom - top - 40).data;
      // The track's colour as the page chose it, turned into RGB by a scratch canvas.
      const probe = document.createElement('canvas').getContext('2d')!;
      probe.fillStyle = demo.colourOf(dog.track_id);
      probe.fillRect(0, 0, 1, 1);
      const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
      let matchingPixels = 0;
      for (let offset = 0; offset < pixels.length; offset += 4) {
        if (pixels[offset] === r && pixels[offset + 1] === g && pixels[offset + 2] === b) matchingPixels++;
      }
      return { name: dog.name, trackId: dog.track_id, edgePixels: pixels.length / 4, matchingPixels, tracksText: document.getElementById('tracks')!.textContent! };
    });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'stream-demo.png') });

    expect(check.matchingPixels, 'dog box edge drawn in its track colour').to.be.greaterThan(check.edgePixels * 0.8);
    expect(check.tracksText).to.contain(`dog #${check.trackId}`);
    expect(await page.textContent('#model')).to.equal('yolo26n-640-int8');
    expect(Number(await page.textContent('#latency'))).to.be.greaterThan(0);
    expect(foreign, 'the page loads nothing from elsewhere').to.deep.equal([]);
    expect(server.logText()).to.not.contain(server.apiKey);
  });

  for (const [width, viewport] of [['laptop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
    it(`opened from the console: looks like the console, says what it needs in plain words, streams, asks for the key after the single-use token, leads back (${width})`, async function () {
      // Two streams through a real model in Chromium: on a loaded machine (the full suite) one took over a minute.
      this.timeout(180_000);
      const { server, clip, browser } = fixture;
      const page = await browser.newPage({ viewport });
      await signInOnPage(page, server.url);
      await page.click('text=service 1');
      const servicePath = new URL(page.url()).pathname;
      await page.click('#live-video');
      await page.waitForURL('**/stream-demo');

      // The console's look: its stylesheet, header and cards; the way back to the service.
      expect(await page.$eval('header.topbar', (header) => getComputedStyle(header).backgroundColor)).to.equal('rgb(17, 24, 39)');
      expect(await page.getAttribute('#back', 'href')).to.equal(servicePath);
      expect(await page.textContent('#back')).to.equal('← Back to the service');
      // Information is not an error: muted, not red.
      expect(await page.textContent('#status')).to.contain('Opened from the console for one stream');
      expect(await page.$eval('#status', (status) => getComputedStyle(status).color)).to.equal('rgb(93, 104, 120)');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, 'no sideways scrolling').to.be.at.most(0);
      await page.screenshot({ path: path.join(ARTIFACTS, `stream-demo-from-console-${width}.png`), fullPage: true });

      await page.setInputFiles('#file', clip.webmPath);
      await page.click('#start');
      await page.waitForFunction(() => (window as any).streamDemo.results >= 2, null, { timeout: 60_000 });
      await page.click('#stop');
      expect(await page.textContent('#status')).to.equal('Stopped.');

      // The token opened one stream: Start again says, beside the form, that the key is needed now — no browser bubble.
      await page.click('#start');
      expect(await page.getAttribute('#status', 'class')).to.equal('is-error');
      expect(await page.textContent('#status')).to.contain("Paste the service's API key").and.contain('go back to the service');
      expect(await page.getAttribute('#apiKey', 'placeholder')).to.contain('token is used up');
      expect(await page.$eval('#status', (status) => getComputedStyle(status).color)).to.equal('rgb(194, 53, 43)');
      expect(await page.isDisabled('#start'), 'Start stays available').to.equal(false);
      await page.screenshot({ path: path.join(ARTIFACTS, `stream-demo-needs-key-${width}.png`), fullPage: true });

      await page.fill('#apiKey', server.apiKey);
      const before = await page.evaluate(() => (window as any).streamDemo.results);
      await page.click('#start');
      await page.waitForFunction((count) => (window as any).streamDemo.results >= count + 2, before, { timeout: 60_000 });
      await page.click('#stop');

      await page.click('#back');
      await page.waitForURL(`**${servicePath}`);
      expect(await page.textContent('h1')).to.contain('service 1');
      await page.close();
    });
  }
});
