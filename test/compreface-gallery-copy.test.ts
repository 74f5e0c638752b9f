import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { cropPath } from './support/faces.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const run = promisify(execFile);
const SCRIPT = path.resolve('dist/scripts/copy-compreface-gallery.js');

interface SourceExample {
  readonly image_id: string;
  readonly subject: string;
  /** The photo CompreFace kept, or none (it runs with save_images_to_db=false). */
  readonly photo?: string;
}

/**
 * The two routes of CompreFace's REST API the copy reads, as its documentation gives them
 * (docs/Rest-API-description.md: "List of All Saved Examples of the Subject", paged by `page` and
 * `size`, and "Download an Image example of the Subject by ID", an empty body for a photo it does not
 * keep), over `examples`: CompreFace itself does not run on a test machine.
 */
async function compreFaceCollection(key: string, examples: readonly SourceExample[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.headers['x-api-key'] !== key) return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Model not found","code":10}');
    const url = new URL(request.url ?? '/', 'http://compreface');
    const image = /^\/api\/v1\/recognition\/faces\/([^/]+)\/img$/.exec(url.pathname);
    if (image) {
      const photo = examples.find((example) => example.image_id === decodeURIComponent(image[1]))?.photo;
      return void response.writeHead(200, { 'content-type': 'image/png' }).end(photo ? fs.readFileSync(photo) : Buffer.alloc(0));
    }
    if (url.pathname !== '/api/v1/recognition/faces') return void response.writeHead(404).end();
    const page = Number(url.searchParams.get('page') ?? 0);
    const size = Number(url.searchParams.get('size') ?? 20);
    const faces = examples.slice(page * size, (page + 1) * size).map(({ image_id, subject }) => ({ image_id, subject }));
    const body = { faces, page_number: page, page_size: size, total_pages: Math.ceil(examples.length / size), total_elements: examples.length };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * scripts/copy-compreface-gallery.ts (docs/moving-from-compreface.md, "Bringing the gallery across"),
 * built, from a CompreFace collection of more than one page (its list pages by 100) into a face
 * service of the real server: each example lands under its subject, where detectd then recognizes
 * the person; an example whose photo CompreFace did not keep is reported, and the script exits 1.
 */
describe('copying a CompreFace gallery into detectd (scripts/copy-compreface-gallery.ts)', function () {
  this.timeout(300_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it('copies every example of every page under its subject, and reports the one whose photo CompreFace did not keep', async () => {
    const people = ['amy', 'bernadette', 'howard', 'leonard', 'penny', 'raj', 'sheldon', 'stuart'];
    // 8 people × 13 examples (their 5 crops in turn): 104 examples, two of the script's pages of 100.
    const examples: SourceExample[] = people.flatMap((person) => Array.from({ length: 13 }, (_, index) => ({ image_id: `${person}-${index}`, subject: person, photo: cropPath(person, (index % 5) + 1) })));
    examples.push({ image_id: 'not-kept', subject: 'penny' });
    const source = await compreFaceCollection('compreface-key', examples);
    const key = await server.createService({ name: 'copied gallery', type: 'face-detection' });
    try {
      const copied = await run(process.execPath, [SCRIPT, '--from', `${source.url}/`, '--from-key', 'compreface-key', '--to', server.url, '--to-key', key]).then(
        () => expect.fail('the script exits 1 when an example was not copied'),
        (error: { code: number; stdout: string }) => error,
      );
      expect(copied.code).to.equal(1);
      const lines = copied.stdout.trim().split('\n');
      expect(lines).to.have.length(examples.length + 1);
      expect(lines.filter((line) => line.endsWith('\tcopied'))).to.have.length(104);
      expect(lines).to.include('penny\tnot-kept\tno photo kept (HTTP 200, 0 bytes)');
      expect(lines.at(-1)).to.equal('104 examples copied, 1 not');
    } finally {
      await source.close();
    }

    const listed = (await (await fetch(`${server.url}/api/v1/recognition/faces?size=1000`, { headers: { 'x-api-key': key } })).json()) as { faces: { subject: string }[] };
    expect(listed.faces).to.have.length(104);
    const subjects = (await (await fetch(`${server.url}/api/v1/recognition/subjects`, { headers: { 'x-api-key': key } })).json()) as { subjects: string[] };
    expect(subjects.subjects).to.have.members(people);
  });
});
