import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { dogAs, dogJpeg } from './support/images.js';
import { photoPath } from './support/paths.js';
import { head, rawExchange } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** A body of any kind to detectd's own API, with the key in the header. */
async function post(server: TestServer, body: BodyInit, options: { query?: string; contentType?: string; apiKey?: string; path?: string } = {}) {
  const headers: Record<string, string> = { Authorization: `ApiKey ${options.apiKey ?? server.apiKey}` };
  if (options.contentType) headers['Content-Type'] = options.contentType;
  const response = await fetch(`${server.url}${options.path ?? '/api/v1/object-detection'}${options.query ?? ''}`, { method: 'POST', body, headers });
  return { status: response.status, body: (await response.json()) as any };
}

function form(fields: [string, string][], image: Buffer | null = dogJpeg(), imageField = 'image'): FormData {
  const data = new FormData();
  for (const [name, value] of fields) data.append(name, value);
  if (image) data.append(imageField, new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'dog.jpg');
  return data;
}

describe('raw-image and multipart uploads on /api/v1/object-detection (real server, real model)', () => {
  let server: TestServer;
  let viaJson: any;

  before(async () => {
    server = await startTestServer({ DETECTD_MAX_BODY_BYTES: String(1024 * 1024) });
    viaJson = (await postDetection(server.url, imageRequest(photoPath('dog.jpg'), { ConfidenceThreshold: '0.3' }), { apiKey: server.apiKey })).body;
    expect(viaJson.detected_objects.map((object: { name: string }) => object.name)).to.include.members(['dog', 'bicycle', 'truck']);
  });
  after(async () => server?.close());

  it('answers the raw image (Content-Type: image/jpeg, parameters in the query string) exactly as the base64 JSON', async () => {
    const raw = await post(server, new Uint8Array(dogJpeg()), { contentType: 'image/jpeg', query: '?ConfidenceThreshold=0.3' });
    expect(raw.status).to.equal(200);
    expect(raw.body).to.deep.equal(viaJson);
    const png = await post(server, new Uint8Array(await dogAs('png')), { contentType: 'image/png', query: '?ConfidenceThreshold=0.3&OutputCroppedImage=true' });
    expect(png.status).to.equal(200);
    expect(png.body.detected_objects[0].cropped_image).to.be.a('string');
  });

  it('answers a multipart form (image file + parameter fields) exactly as the base64 JSON', async () => {
    const multipart = await post(server, form([['ConfidenceThreshold', '0.3']]));
    expect(multipart.status).to.equal(200);
    expect(multipart.body).to.deep.equal(viaJson);
    const legacy = await post(server, form([['OutputVisualizedImage', 'true']]), { path: '/api/object-detection' });
    expect(legacy.status).to.equal(200);
    expect(legacy.body.raw_data).to.be.a('string');
  });

  it('validates query and form parameters by the same rules as configurations', async () => {
    for (const query of ['?ConfidenceThreshold=2', '?Threshold=0.5', '?ConfidenceThreshold=0.2&ConfidenceThreshold=0.3']) {
      const answer = await post(server, new Uint8Array(dogJpeg()), { contentType: 'image/jpeg', query });
      expect(answer.status, query).to.equal(400);
      expect(answer.body.error.code, query).to.equal('invalid_configuration');
    }
    const repeated = await post(server, form([['OutputCroppedImage', 'true'], ['OutputCroppedImage', 'false']]));
    expect(repeated.body.error.code).to.equal('invalid_configuration');
    expect(repeated.body.error.message).to.contain('more than once');
  });

  for (const path of ['/api/v1/object-detection', '/api/object-detection']) {
    it(`takes target_classes, frame_id and source_id in every body form on ${path}: JSON, the raw image with a query string, a form`, async () => {
      const names = (answer: { body: { detected_objects: { name: string }[] } }) => [...new Set(answer.body.detected_objects.map((object) => object.name))].sort();
      const json = await postDetection(server.url, { ...imageRequest(photoPath('dog.jpg')), target_classes: ['dog', 'truck'], frame_id: 'f1', source_id: 'gate' }, { apiKey: server.apiKey, path });
      expect(json.status).to.equal(200);
      expect(names(json)).to.deep.equal(['dog', 'truck']);
      expect(json.body).to.include({ frame_id: 'f1', source_id: 'gate' });
      const viaUploads = [
        await post(server, new Uint8Array(dogJpeg()), { path, contentType: 'image/jpeg', query: '?target_classes=dog,truck&frame_id=f1&source_id=gate' }),
        await post(server, new Uint8Array(dogJpeg()), { path, contentType: 'image/jpeg', query: '?target_classes=dog&target_classes=truck&frame_id=f1&source_id=gate' }),
        await post(server, form([['target_classes', 'dog'], ['target_classes', 'truck'], ['frame_id', 'f1'], ['source_id', 'gate']]), { path }),
        await post(server, form([['target_classes', 'dog, truck'], ['frame_id', 'f1'], ['source_id', 'gate']]), { path }),
      ];
      for (const upload of viaUploads) {
        expect(upload.status, JSON.stringify(upload.body)).to.equal(200);
        expect(upload.body).to.deep.equal(json.body);
      }
      // Fields left blank (as a form, or the reference's "try it", sends them) are absent.
      const everyClass = await post(server, form([['target_classes', ''], ['frame_id', '']]), { path });
      expect(names(everyClass)).to.include.members(['bicycle', 'dog', 'truck']);
      expect(everyClass.body).to.not.have.property('frame_id');
    });
  }

  it('refuses a bad target_classes, frame_id or source_id in an upload as precisely as in JSON', async () => {
    const unknownClass = await post(server, new Uint8Array(dogJpeg()), { contentType: 'image/jpeg', query: '?target_classes=dog,dgo' });
    expect(unknownClass.status).to.equal(400);
    expect(unknownClass.body.error.code).to.equal('invalid_request');
    expect(unknownClass.body.error.message).to.contain('unknown class "dgo"');
    const twice = await post(server, form([['frame_id', 'a'], ['frame_id', 'b']]));
    expect(twice.body.error).to.deep.include({ code: 'invalid_request', message: 'field "frame_id" is given more than once' });
    const tooLong = await post(server, new Uint8Array(dogJpeg()), { contentType: 'image/jpeg', query: `?source_id=${'x'.repeat(257)}` });
    expect(tooLong.body.error).to.deep.include({ code: 'invalid_request', message: 'source_id must NOT have more than 256 characters' });
    const rawData = await post(server, form([['raw_data', 'abcd']]));
    expect(rawData.body.error.code).to.equal('invalid_request');
    expect(rawData.body.error.message).to.contain('"raw_data" belongs in a JSON body');
  });

  it('refuses bad forms with invalid_multipart, bad images with invalid_image, and other types with 415', async () => {
    const cases: [string, BodyInit, string | undefined, string][] = [
      ['no image', form([['ConfidenceThreshold', '0.3']], null), undefined, 'invalid_multipart'],
      ['file in another field', form([], dogJpeg(), 'file'), undefined, 'invalid_multipart'],
      ['no boundary', 'abc', 'multipart/form-data', 'invalid_multipart'],
      ['cut short', '--b\r\nContent-Disposition: form-data; name="image"; filename="x"\r\n\r\nxx', 'multipart/form-data; boundary=b', 'invalid_multipart'],
      ['not an image', new Uint8Array(Buffer.from('hello')), 'image/jpeg', 'invalid_image'],
      ['text/plain', 'hello', 'text/plain', 'unsupported_media_type'],
    ];
    for (const [name, body, contentType, code] of cases) {
      const answer = await post(server, body, { contentType });
      expect(answer.body.error?.code, `${name}: ${JSON.stringify(answer.body)}`).to.equal(code);
    }
    const twoFiles = form([]);
    twoFiles.append('image', new Blob([new Uint8Array(dogJpeg())]), 'again.jpg');
    const two = await post(server, twoFiles);
    expect(two.status).to.equal(400);
    expect(two.body.error).to.include({ code: 'invalid_multipart' });
  });

  it('applies the body limit to every form of upload (413) and checks the key before reading the body', async () => {
    const big = Buffer.alloc(1200 * 1024, 1);
    expect((await post(server, new Uint8Array(big), { contentType: 'image/jpeg' })).body.error.code).to.equal('payload_too_large');
    expect((await post(server, form([], big))).body.error.code).to.equal('payload_too_large');
    const unauthorized = await post(server, form([], big), { apiKey: 'dtd_wrong' });
    expect(unauthorized.status).to.equal(401);
    // DeepStack's way: the key in a field ahead of the image is checked before the image is read — answered when only its first bytes have come.
    const boundary = 'detectd-test-boundary';
    const fieldsAhead =
      `--${boundary}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\ndtd_wrong\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="dog.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
    const deepStack = await rawExchange(server.port, [head('POST /v1/vision/detection HTTP/1.1', { Host: '127.0.0.1', 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': 500_000 }), fieldsAhead, dogJpeg().subarray(0, 1000)]);
    expect(deepStack.status).to.equal(401);
    expect(deepStack.body.success).to.equal(false);
    // A form that declares more than the body limit is refused from its Content-Length alone, whatever key it holds.
    const declaredTooLarge = await fetch(`${server.url}/v1/vision/detection`, { method: 'POST', body: form([['api_key', 'dtd_wrong']], big) });
    expect(declaredTooLarge.status).to.equal(413);
    expect(((await declaredTooLarge.json()) as { success: boolean }).success).to.equal(false);
  });
});
