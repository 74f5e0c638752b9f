import fs from 'node:fs';
import { expect } from 'chai';
import sharp from 'sharp';
import { cropPath, FACES_DIR, GROUP_PHOTOS } from './support/faces.js';
import { type NvisionHostRedirect, nvision, redirectNvisionHost, redirectSdkStreams } from './support/nvision-sdk.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';
import { ConsoleClient } from './support/console-client.js';

interface Face {
  name: string;
  parent: string;
  confidence: number;
  similarity?: number;
  bounding_box: { left: number; right: number; top: number; bottom: number };
  cropped_image?: string | Uint8Array;
}

interface FaceAnswer {
  service_id?: string;
  frame_id?: string;
  source_id?: string;
  raw_data?: string | Uint8Array;
  detected_faces?: Face[];
}

const photo = (name: string) => fs.readFileSync(`${FACES_DIR}/${name}`);
/** The faces of a group photo from left to right, as test/support/faces.ts lists what a person sees. */
const leftToRight = (faces: readonly Face[]) => [...faces].sort((a, b) => a.bounding_box.left - b.bounding_box.left);

/**
 * The face-detection task as the Nvision clients call it: the unmodified SDK's faceDetection()
 * (REST predict and stream) and the JSON API's other body forms, on UltraFace RFB-640 and the
 * group photos of ../shared/eval/faces (what a person sees in each: test/support/faces.ts).
 */
describe('face-detection over the Nvision API: the unmodified @nipacloud/nvision SDK faceDetection() against the real server', function () {
  this.timeout(120_000);
  let server: TestServer;
  let redirect: NvisionHostRedirect;
  let restoreStreams: () => void;
  let faceKey: string;
  let serviceId: string;

  before(async () => {
    server = await startTestServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL });
    faceKey = await server.createService({ name: 'front door', type: 'face-detection' });
    serviceId = (await server.domain.keys.authenticate(faceKey))!.id;
    redirect = await redirectNvisionHost(server.url);
    restoreStreams = redirectSdkStreams(server.url);
  });
  after(async () => {
    restoreStreams?.();
    await redirect?.close();
    await server?.close();
  });

  const predict = async (parameters: Parameters<ReturnType<typeof nvision.faceDetection>['predict']>[0]): Promise<FaceAnswer> => {
    try {
      return (await nvision.faceDetection({ apiKey: faceKey }).predict(parameters)) as unknown as FaceAnswer;
    } catch (error) {
      const response = (error as { response?: { status: number; data: unknown } }).response;
      throw new Error(response ? `HTTP ${response.status}: ${JSON.stringify(response.data)}` : String(error));
    }
  };

  it('predict(): one face in a portrait, every face of a group photo (four, then six), each `face` of parent `face` while nobody is registered', async () => {
    const one = await predict({ rawData: fs.readFileSync(cropPath('penny', 1)).toString('base64') });
    expect(one.detected_faces).to.have.length(1);
    for (const file of ['bbt1.jpg', 'bbt4.jpg']) {
      const answer = await predict({ rawData: photo(file).toString('base64') });
      expect(answer.service_id).to.equal(serviceId);
      expect(answer.detected_faces, file).to.have.length(GROUP_PHOTOS[file].length);
      for (const face of answer.detected_faces!) {
        expect(face).to.include({ name: 'face', parent: 'face' });
        expect(face.confidence).to.be.within(0.5, 1);
        expect(face.bounding_box.right).to.be.greaterThan(face.bounding_box.left);
      }
    }
  });

  it('predict() with crops, ids and the visualized image: each crop exactly its box, ids echoed, raw_data the whole photo', async () => {
    const answer = await predict({ rawData: photo('bbt1.jpg').toString('base64'), frameId: 'frame-9', sourceId: 'lobby', outputCroppedImage: true, outputVisualizedImage: true });
    expect(answer).to.include({ frame_id: 'frame-9', source_id: 'lobby' });
    for (const face of answer.detected_faces!) {
      const crop = await sharp(Buffer.from(face.cropped_image as string, 'base64')).metadata();
      expect([crop.width, crop.height]).to.deep.equal([face.bounding_box.right - face.bounding_box.left, face.bounding_box.bottom - face.bounding_box.top]);
    }
    const visualized = await sharp(Buffer.from(answer.raw_data as string, 'base64')).metadata();
    expect([visualized.format, visualized.width, visualized.height]).to.deep.equal(['jpeg', 1366, 768]);
  });

  it('the JSON API\'s other forms (raw image, multipart, legacy path) answer the same faces; ConfidenceThreshold applies', async () => {
    const headers = { Authorization: `ApiKey ${faceKey}` };
    const raw = await fetch(`${server.url}/api/v1/face-detection?ConfidenceThreshold=0.9`, { method: 'POST', headers: { ...headers, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(photo('bbt3.jpg')) });
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(photo('bbt3.jpg'))]), 'bbt3.jpg');
    form.append('ConfidenceThreshold', '0.9');
    const multipart = await fetch(`${server.url}/api/face-detection`, { method: 'POST', headers, body: form });
    const [a, b] = [(await raw.json()) as FaceAnswer, (await multipart.json()) as FaceAnswer];
    expect([raw.status, multipart.status]).to.deep.equal([200, 200]);
    expect(a.detected_faces).to.have.length(GROUP_PHOTOS['bbt3.jpg'].length);
    expect(b.detected_faces).to.deep.equal(a.detected_faces);
    for (const face of a.detected_faces!) expect(face.confidence).to.be.at.least(0.9);
  });

  it('stream(): frames answered with the faces in detected_faces (protobuf field 10), ids echoed', async () => {
    const stream = nvision.faceDetection({ apiKey: faceKey, streamingKey: faceKey }).stream();
    const messages: FaceAnswer[] = [];
    stream.on('message', (message) => void messages.push(message as FaceAnswer));
    await stream.connect();
    await stream.predict({ rawData: photo('bbt5.jpg'), frameId: 'f-1', sourceId: 'door cam' });
    await waitFor(() => messages.length >= 1, { what: 'the answer to f-1' });
    await stream.predict({ rawData: photo('bbt1.jpg').toString('base64'), frameId: 'f-2', sourceId: 'door cam', outputCroppedImage: true });
    await waitFor(() => messages.length >= 2, { what: 'the answer to f-2' });
    const [first, second] = messages;
    expect(first).to.include({ service_id: serviceId, frame_id: 'f-1', source_id: 'door cam' });
    expect(first.detected_faces).to.have.length(GROUP_PHOTOS['bbt5.jpg'].length);
    expect(second.frame_id).to.equal('f-2');
    expect(second.detected_faces).to.have.length(GROUP_PHOTOS['bbt1.jpg'].length);
    for (const face of second.detected_faces!) {
      expect(face).to.include({ name: 'face', parent: 'face' });
      expect((await sharp(Buffer.from(face.cropped_image as Uint8Array)).metadata()).width).to.equal(face.bounding_box.right - face.bounding_box.left);
    }
  });

  it('recognition: once people are registered, a face is named by its userid with its similarity, others `unknown`', async () => {
    for (const person of ['raj', 'leonard', 'howard']) {
      const form = new FormData();
      form.append('userid', person);
      form.append('image', new Blob([new Uint8Array(fs.readFileSync(cropPath(person, 1)))]), `${person}.png`);
      const registered = await fetch(`${server.url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `Bearer ${faceKey}` }, body: form });
      expect(registered.status, await registered.clone().text()).to.equal(200);
    }
    const answer = await predict({ rawData: photo('bbt1.jpg').toString('base64'), outputVisualizedImage: true });
    const faces = leftToRight(answer.detected_faces!);
    // bbt1: Raj, Leonard, Howard, Sheldon (who is not registered).
    expect(faces.map((face) => face.name)).to.deep.equal(['raj', 'leonard', 'howard', 'unknown']);
    for (const face of faces.slice(0, 3)) expect(face.similarity).to.be.within(0, 1);
    expect(faces[3]).to.not.have.property('similarity');
  });

  it('a service names only a model that finds what its task finds: the console refuses an object model for a face service', async () => {
    const owner = new ConsoleClient(server.url);
    await owner.signIn('user1@example.com', 'correct horse battery');
    await owner.get('/console/services/new');
    const refused = await owner.post('/console/services', { name: 'wrong model', type: 'face-detection', model: 'yolo26n-640-int8' });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.contain('does not serve face-detection services').and.contain('yunet-n');
    const accepted = await owner.post('/console/services', { name: 'right model', type: 'face-detection', model: 'yunet-n' });
    expect(accepted.status).to.equal(303);
  });

  it('a key of an object-detection service is refused, the message naming the type the route needs', async () => {
    const response = await fetch(`${server.url}/api/v1/face-detection`, { method: 'POST', headers: { Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(photo('bbt1.jpg')) });
    expect(response.status).to.equal(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).to.contain('face-detection');
  });
});
