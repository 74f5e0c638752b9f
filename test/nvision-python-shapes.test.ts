import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import sharp from 'sharp';
import { type Finding, expectDogPhotoObjects } from './support/dog-photo.js';
import * as images from './support/images.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

interface ShapeResult {
  path: 'v1' | 'legacy';
  shape: string;
  status: number;
  body: { service_id?: string; raw_data?: string; detected_objects: Finding[]; error?: unknown };
}

/** test/clients/nvision_python_shapes.py: the Python SDK's exact requests (headers, all three parameters) on v1 and the legacy path. */
describe('Nvision Python SDK request shapes against the real server', () => {
  let server: TestServer;
  let results: ShapeResult[];
  let serviceId: string;

  before(async () => {
    server = await startTestServer();
    serviceId = (await server.db.selectFrom('services').select('id').executeTakeFirstOrThrow()).id;
    const { stdout } = await promisify(execFile)('python3', ['test/clients/nvision_python_shapes.py', photoPath('dog.jpg')], {
      env: { ...process.env, SERVER: server.url, API_KEY: server.apiKey },
      maxBuffer: 64 * 1024 * 1024,
    });
    results = stdout.trim().split('\n').map((line) => JSON.parse(line) as ShapeResult);
  });
  after(async () => {
    await server?.close();
  });

  it('ran all 8 shapes (4 predict() calls × v1 and legacy)', () => {
    expect(results.map(({ path, shape }) => `${path} ${shape}`)).to.have.length(8);
  });

  for (const path of ['v1', 'legacy'] as const) {
    for (const shape of ['defaults', 'confidence_threshold=0.5', 'output_cropped_image=True', 'output_visualized_image=True']) {
      it(`${path}: predict(image${shape === 'defaults' ? '' : `, ${shape}`})`, async () => {
        const result = results.find((candidate) => candidate.path === path && candidate.shape === shape)!;
        expect(result.status, JSON.stringify(result.body.error)).to.equal(200);
        expectDogPhotoObjects(result.body.detected_objects);
        expect(result.body.service_id).to.equal(serviceId);
        expect(result.body).to.not.have.property('visualized_image');
        const cropped = result.body.detected_objects.filter((object) => object.cropped_image !== undefined);
        expect(cropped.length).to.equal(shape === 'output_cropped_image=True' ? result.body.detected_objects.length : 0);
        if (shape === 'output_visualized_image=True') {
          const visualized = await sharp(Buffer.from(result.body.raw_data!, 'base64')).metadata();
          expect([visualized.format, visualized.width, visualized.height]).to.deep.equal(['jpeg', images.DOG_SIZE.width, images.DOG_SIZE.height]);
        } else {
          expect(result.body).to.not.have.property('raw_data');
        }
      });
    }
  }
});
