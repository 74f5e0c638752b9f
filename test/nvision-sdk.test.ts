import { expect } from 'chai';
import sharp from 'sharp';
import { type Finding, expectDogPhotoObjects } from './support/dog-photo.js';
import * as images from './support/images.js';
import { type NvisionHostRedirect, nvision, redirectNvisionHost } from './support/nvision-sdk.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** The parameters of the SDK's `predict()` (ObjectDetectionParameter in its typings). */
type PredictParameters = Parameters<ReturnType<typeof nvision.objectDetection>['predict']>[0];

/** What apps read from `predict()`'s answer: the body detectd sends, as the SDK hands it over. */
interface PredictAnswer {
  service_id?: string;
  frame_id?: string;
  source_id?: string;
  raw_data?: string;
  detected_objects: Finding[];
  [other: string]: unknown;
}

/**
 * Every call shape of `predict()` in the unmodified official JavaScript SDK (@nipacloud/nvision
 * 0.1.7): it sends only truthy options, as JS number strings, plus frame_id/source_id when given,
 * with `Content-Type: application/json;charset=utf-8` and `Authorization: ApiKey <key>`.
 */
const CALL_SHAPES: readonly { label: string; parameters: Omit<PredictParameters, 'rawData'> }[] = [
  { label: 'plain (configurations: [])', parameters: {} },
  { label: 'confidenceThreshold 0.5', parameters: { confidenceThreshold: 0.5 } },
  { label: 'confidenceThreshold 1e-7 (sent as "1e-7")', parameters: { confidenceThreshold: 1e-7 } },
  { label: 'outputCroppedImage', parameters: { outputCroppedImage: true } },
  { label: 'outputVisualizedImage', parameters: { outputVisualizedImage: true } },
  { label: 'all three options', parameters: { confidenceThreshold: 0.3, outputCroppedImage: true, outputVisualizedImage: true } },
  { label: 'frameId', parameters: { frameId: 'frame-1' } },
  { label: 'sourceId', parameters: { sourceId: 'camera-7' } },
  { label: 'frameId + sourceId', parameters: { frameId: '42', sourceId: 'gate' } },
  { label: 'frameId + sourceId + all options', parameters: { frameId: 'f', sourceId: 's', confidenceThreshold: 0.2, outputCroppedImage: true, outputVisualizedImage: true } },
];

describe('official JavaScript SDK @nipacloud/nvision 0.1.7, unmodified, predict() against the real server', () => {
  let server: TestServer;
  let redirect: NvisionHostRedirect;
  let serviceId: string;
  let sdk: ReturnType<typeof nvision.objectDetection>;

  before(async () => {
    server = await startTestServer();
    redirect = await redirectNvisionHost(server.url);
    const services = await server.db.selectFrom('services').select('id').execute();
    expect(services).to.have.length(1);
    serviceId = services[0].id;
    sdk = nvision.objectDetection({ apiKey: server.apiKey });
  });
  after(async () => {
    await redirect?.close();
    await server?.close();
  });

  /** predict() through the SDK; an HTTP error becomes an assertion message with detectd's error body. */
  async function predict(parameters: Omit<PredictParameters, 'rawData'>): Promise<PredictAnswer> {
    try {
      return (await sdk.predict({ rawData: images.dogJpeg().toString('base64'), ...parameters })) as unknown as PredictAnswer;
    } catch (error) {
      const response = (error as { response?: { status: number; data: unknown } }).response;
      throw new Error(response ? `HTTP ${response.status}: ${JSON.stringify(response.data)}` : String(error));
    }
  }

  for (const { label, parameters } of CALL_SHAPES) {
    it(label, async () => {
      const answer = await predict(parameters);
      expectDogPhotoObjects(answer.detected_objects);
      expect(answer.service_id, 'service_id').to.equal(serviceId);
      expect(answer.frame_id).to.equal(parameters.frameId);
      expect(answer.source_id).to.equal(parameters.sourceId);
      expect(answer).to.not.have.property('visualized_image');
      const threshold = parameters.confidenceThreshold ?? 0.1;
      for (const object of answer.detected_objects) expect(object.confidence).to.be.at.least(threshold);
      if (parameters.outputCroppedImage) {
        for (const object of answer.detected_objects) {
          const crop = await sharp(Buffer.from(object.cropped_image!, 'base64')).metadata();
          expect([crop.format, crop.width, crop.height]).to.deep.equal(['jpeg', object.bounding_box.right - object.bounding_box.left, object.bounding_box.bottom - object.bounding_box.top]);
        }
      } else {
        for (const object of answer.detected_objects) expect(object).to.not.have.property('cropped_image');
      }
      if (parameters.outputVisualizedImage) {
        const visualized = await sharp(Buffer.from(answer.raw_data!, 'base64')).metadata();
        expect([visualized.format, visualized.width, visualized.height]).to.deep.equal(['jpeg', images.DOG_SIZE.width, images.DOG_SIZE.height]);
      } else {
        expect(answer).to.not.have.property('raw_data');
      }
    });
  }
});
