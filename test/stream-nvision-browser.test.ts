import fs from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { useBrowserStreamFixture } from './support/chromium.js';

const resolve = createRequire(import.meta.url).resolve;
const FRAMES = 12;

/**
 * The SDK's browser build (dist/browser/nvision.js) is a webpack bundle that still `require`s
 * lodash, base64-js, ieee754 and isarray and writes to `exports`, as an app's bundler would provide them.
 * This page gives it exactly that, and nothing else: a minimal CommonJS loader, the real modules.
 */
function sdkScript(): string {
  const module = (name: string, source: string) => `defineModule(${JSON.stringify(name)}, function (module, exports) {\n${source}\n});\n`;
  return [
    'const modules = {};',
    'function defineModule(name, factory) { const module = { exports: {} }; factory(module, module.exports); modules[name] = module.exports; }',
    'window.require = (name) => { if (!(name in modules)) throw new Error("no module " + name); return modules[name]; };',
    module('lodash', fs.readFileSync(resolve('lodash/lodash.js'), 'utf8')),
    module('ieee754', fs.readFileSync(resolve('ieee754'), 'utf8')),
    module('base64-js', fs.readFileSync(resolve('base64-js'), 'utf8')),
    'modules.isarray = Array.isArray;', // what the isarray package exports in any current browser
    'window.exports = {};',
    fs.readFileSync(resolve('@nipacloud/nvision/dist/browser/nvision.js'), 'utf8'),
  ].join('\n');
}

interface PageMessage {
  frameId?: string;
  sourceId?: string;
  serviceId: string;
  names: string[];
  everyBox: boolean;
}

describe('Nvision stream from a browser: the SDK\u2019s browser build in headless Chromium streams a video file', () => {
  const fixture = useBrowserStreamFixture();

  it('connects with the key as subprotocol, predicts frames drawn from the playing video, and gets each answered with its objects', async function () {
    const { server, clip, browser } = fixture;
    this.timeout(120_000);
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const { port } = new URL(server.url);
    // The SDK's stream URL is hard-coded; the page's own WebSocket is pointed at the test server instead.
    await page.addInitScript((target) => {
      const Native = window.WebSocket;
      window.WebSocket = class extends Native {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(String(url).replace('wss://nvision.nipa.cloud', target), protocols);
        }
      };
    }, `ws://127.0.0.1:${port}`);
    // A page of the server's own origin (a routed page would count as a public origin, and Chromium's
    // local-network checks would block its WebSocket to 127.0.0.1), with the SDK added as a script.
    await page.route(`${server.url}/test-clip.webm`, (route) => route.fulfill({ contentType: 'video/webm', body: fs.readFileSync(clip.webmPath) }));
    await page.goto(`${server.url}/healthz`);
    await page.addScriptTag({ content: sdkScript() });
    expect(pageErrors, 'the SDK loads').to.deep.equal([]);

    const messages: PageMessage[] = await page.evaluate(
      async ({ apiKey, frames }) => {
        const video = document.body.appendChild(document.createElement('video'));
        const canvas = document.body.appendChild(document.createElement('canvas'));
        video.muted = true;
        video.loop = true;
        // As from a file input (the demo's way): a blob URL, which the media stack reads without range requests.
        video.src = URL.createObjectURL(await (await fetch('/test-clip.webm')).blob());
        await video.play();
        const sdk = (window as unknown as { exports: { objectDetection: (options: object) => any } }).exports;
        const stream = sdk.objectDetection({ apiKey, streamingKey: apiKey }).stream();
        const received: PageMessage[] = [];
        stream.on('message', (message: any) =>
          received.push({
            frameId: message.frame_id,
            sourceId: message.source_id,
            serviceId: message.service_id,
            names: (message.detected_objects ?? []).map((object: any) => object.name),
            everyBox: (message.detected_objects ?? []).every((object: any) => object.bounding_box && object.bounding_box.right > object.bounding_box.left),
          }),
        );
        // The SDK's connect() never settles when the connection fails; fail the test clearly instead.
        await Promise.race([stream.connect(), new Promise((_, fail) => setTimeout(() => fail(new Error('the SDK did not connect')), 10_000))]);
        for (let index = 1; index <= frames; index++) {
          // Draw a frame the video has actually presented (a busy machine decodes late; a blank canvas
          // is no frame): every second one of the 30 fps clip, a 15 fps camera paced by the video itself.
          for (let presented = 0; presented < 2; presented++) await new Promise((done) => video.requestVideoFrameCallback(done));
          canvas.width = video.videoWidth;
          canvas.height = video.videoHeight;
          canvas.getContext('2d')!.drawImage(video, 0, 0);
          const blob = await new Promise<Blob>((done) => canvas.toBlob((made) => done(made!), 'image/jpeg', 0.85));
          await stream.predict({ rawData: new Uint8Array(await blob.arrayBuffer()), frameId: String(index), sourceId: 'browser-camera' });
        }
        const deadline = Date.now() + 60_000;
        while (!received.some((message) => message.frameId === String(frames)) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
        return received;
      },
      { apiKey: server.apiKey, frames: FRAMES },
    );

    const serviceId = (await server.domain.keys.authenticate(server.apiKey))!.id;
    expect(messages.at(-1)?.frameId, 'the newest frame is always answered').to.equal(String(FRAMES));
    let previous = 0;
    for (const message of messages) {
      expect(Number(message.frameId), 'in order, none twice').to.be.greaterThan(previous);
      previous = Number(message.frameId);
      expect(message).to.include({ sourceId: 'browser-camera', serviceId, everyBox: true });
    }
    // The pan is of dog.jpg: its objects are found in the frames the browser drew from the video.
    const found = messages.map((message) => message.names);
    expect(found.every((names) => names.length > 0), JSON.stringify(found)).to.equal(true);
    expect(found.flat(), JSON.stringify(found)).to.include.members(['dog', 'bicycle', 'truck']);
    expect(server.logText()).to.not.contain(server.apiKey);
  });
});
