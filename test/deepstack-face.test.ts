import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import os from 'node:os';
import sharp from 'sharp';
import { DEFAULT_FACE_MATCH_THRESHOLD } from '../src/features/faces/gallery/face-similarity.js';
import { cropPath, FACES_DIR, registrationPhotos, WIDER_VAL_DIR } from './support/faces.js';
import { DEFAULT_TEST_MODEL, photoPath, SHARED_DIR } from './support/paths.js';
import { cli, cliAsync, cliOk, requireBuild } from './support/processes.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const run = promisify(execFile);
const CLIENT = path.resolve('test/clients/deepstack_face_request.py');
const group = (name: string) => path.join(FACES_DIR, name);
const coco = (set: string, file: string) => path.join(SHARED_DIR, 'eval', set, 'images', file);
const PEOPLE = ['amy', 'bernadette', 'howard', 'leonard', 'penny', 'raj', 'sheldon', 'stuart'];

interface FacePrediction {
  userid?: string;
  confidence: number;
  x_min: number;
  y_min: number;
  x_max: number;
  y_max: number;
}

type DeepstackFaceAnswer = { status?: number; json?: any; result?: any; error?: string };

/** deepstack-python's DeepstackFace (test/clients/deepstack_face_request.py), run by Python `requests`, with its default min_confidence (0.45). */
async function deepstackFace(server: TestServer, apiKey: string, ...args: string[]): Promise<DeepstackFaceAnswer> {
  return (await deepstackFaceCalls(undefined, server, apiKey, ...args))[0]!;
}

/**
 * One DeepstackFace(min_confidence=`minConfidence`, its default 0.45 when undefined) making the calls
 * `args` name (an action and its images, or its NAME IMAGE pairs), one after another, as a camera
 * integration does: what each returned or raised.
 */
async function deepstackFaceCalls(minConfidence: number | undefined, server: TestServer, apiKey: string, ...args: string[]): Promise<DeepstackFaceAnswer[]> {
  // The client's timeout as Home Assistant's `timeout` setting raises it: a crowd's faces described on a loaded test machine take longer than its 10 s default.
  const env = { ...process.env, DEEPSTACK_TIMEOUT: '120', ...(minConfidence === undefined ? {} : { DEEPSTACK_MIN_CONFIDENCE: String(minConfidence) }) };
  const { stdout } = await run('python3', [CLIENT, server.url, apiKey, ...args], { env });
  return stdout.trim().split('\n').map((line) => JSON.parse(line));
}

const leftToRight = (predictions: readonly FacePrediction[]) => [...predictions].sort((a, b) => a.x_min - b.x_min);
const userids = (predictions: readonly FacePrediction[]) => leftToRight(predictions).map((prediction) => prediction.userid);

/**
 * Double Take's DeepStack detector (api/src/util/detectors/deepstack.js), request for request: a
 * form-data form with the file first, then `userid` (train) and `api_key` when a key is configured;
 * it reads `predictions[].userid` (lower-cased) and `confidence`, and treats `success: false` as no faces.
 */
async function doubleTake(server: TestServer, apiKey: string, route: 'recognize' | 'register' | 'delete', fields: { image?: string; userid?: string }): Promise<{ status: number; body: any }> {
  const form = new FormData();
  if (fields.image) form.append('image', new Blob([new Uint8Array(fs.readFileSync(fields.image))]), path.basename(fields.image));
  if (fields.userid) form.append('userid', fields.userid);
  form.append('api_key', apiKey);
  const response = await fetch(`${server.url}/v1/vision/face/${route}`, { method: 'POST', body: form });
  return { status: response.status, body: await response.json() };
}

/**
 * The DeepStack / CodeProject.AI face routes as their clients call them, on UltraFace RFB-640 and
 * ../shared/eval/faces (what a person sees in each group photo: test/support/faces.ts).
 */
describe('DeepStack / CodeProject.AI face routes: deepstack-python DeepstackFace and Double Take against the real server', function () {
  this.timeout(180_000);
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL });
    key = await server.createService({ name: 'home assistant', type: 'face-detection' });
  });
  after(async () => server?.close());

  it('DeepstackFace(min_confidence=0.5): exactly one face in every single-person portrait, a tight crop or a face filling a large photo', async () => {
    const portraits = PEOPLE.flatMap((person) => [1, 3, 5].map((index) => cropPath(person, index)));
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-portraits-'));
    try {
      // Howard's head and shoulders cut from bbt3 (his face is 71 px tall there) and enlarged: his face 250, 500 and 900 px tall (a 1270 × 1775 portrait).
      for (const faceSide of [250, 500, 900]) {
        const file = path.join(folder, `howard-${faceSide}.jpg`);
        await sharp(group('bbt3.jpg')).extract({ left: 110, top: 50, width: 140, height: 196 }).resize({ width: Math.round((140 * faceSide) / 71) }).jpeg({ quality: 90 }).toFile(file);
        portraits.push(file);
      }
      const answers = await deepstackFaceCalls(0.5, server, key, 'detect', ...portraits);
      expect(answers).to.have.length(portraits.length);
      answers.forEach((answer, index) => expect(answer.result, path.basename(portraits[index]!)).to.have.length(1));
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('detection and recognition find the same faces in one photo at one threshold (a crowd, once a person is registered)', async () => {
    const crowd = path.join(WIDER_VAL_DIR, 'images', '12--Group', '12_Group_Team_Organized_Group_12_Group_Team_Organized_Group_12_927.jpg');
    const own = await server.createService({ name: 'same faces', type: 'face-detection' });
    const boxes = (answer: { result: FacePrediction[] }) => leftToRight(answer.result).map(({ x_min, y_min, x_max, y_max }) => [x_min, y_min, x_max, y_max]);
    await deepstackFace(server, own, 'register', 'amy', cropPath('amy', 1));
    for (const minConfidence of [0.1, 0.45, 0.8]) {
      const [detected] = await deepstackFaceCalls(minConfidence, server, own, 'detect', crowd);
      const [recognized] = await deepstackFaceCalls(minConfidence, server, own, 'recognize', crowd);
      expect(detected.result.length, `faces at ${minConfidence}`).to.be.above(minConfidence === 0.8 ? 3 : 10);
      expect(boxes(recognized as { result: FacePrediction[] }), `at ${minConfidence}`).to.deep.equal(boxes(detected as { result: FacePrediction[] }));
      expect(userids(recognized.result).every((userid) => userid === 'unknown'), `nobody in the crowd is Amy, at ${minConfidence}`).to.equal(true);
    }
  });

  it('a face too small to tell people apart (under 24 px) is never registered, and is recognized as nobody; an ordinary soft photo registers', async () => {
    const own = await server.createService({ name: 'small faces', type: 'face-detection' });
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-small-'));
    try {
      // bbt1 at a seventh of its size: its four faces are 15–20 px tall.
      const small = path.join(folder, 'bbt1-small.jpg');
      fs.writeFileSync(small, await registrationPhotos.tiny());
      const refused = await deepstackFace(server, own, 'register', 'raj', small);
      expect(refused.error).to.match(/status code: 422/);
      // Raj's crop as a newspaper prints it (about 88 px, soft, JPEG 30): taken, weak (docs/faces.md "Registration quality").
      const soft = path.join(folder, 'raj-soft.jpg');
      fs.writeFileSync(soft, await registrationPhotos.soft(cropPath('raj', 1)));
      const softAnswer = await doubleTake(server, own, 'register', { image: soft, userid: 'raj' });
      expect(softAnswer.body).to.include({ success: true, message: 'face added' });
      expect(softAnswer.body.faces_weak.map((face: { reason: string }) => face.reason)).to.deep.equal(['soft']);
      await deepstackFace(server, own, 'register', 'raj', cropPath('raj', 1));
      const large = await deepstackFace(server, own, 'recognize', group('bbt1.jpg'));
      expect(userids(large.result)).to.deep.equal(['raj', 'unknown', 'unknown', 'unknown']);
      const tiny = await deepstackFace(server, own, 'recognize', small);
      expect(tiny.result.length).to.be.at.least(3);
      expect(userids(tiny.result).every((userid) => userid === 'unknown')).to.equal(true);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('detect: one face in a portrait, the four of bbt1, boxes in pixels, highest confidence first', async () => {
    const one = await deepstackFace(server, key, 'detect', cropPath('penny', 1));
    expect(one.result).to.have.length(1);
    const four = await deepstackFace(server, key, 'detect', group('bbt1.jpg'));
    expect(four.status).to.equal(200);
    expect(four.json).to.include({ success: true, count: 4, message: 'Found 4 faces', command: 'detect' });
    const confidences = four.result.map((face: FacePrediction) => face.confidence);
    expect(confidences).to.deep.equal([...confidences].sort((a: number, b: number) => b - a));
    for (const face of four.result as FacePrediction[]) {
      expect(face.confidence).to.be.within(0.45, 1);
      expect(face.x_max).to.be.greaterThan(face.x_min);
      expect(face.x_max).to.be.at.most(1366);
    }
  });

  it('detect at DeepStack\'s default min_confidence: no face on a bear, donuts or zebras (photos with no person, each a face at 0.87–0.94 before the second look), every face of two group photos', async () => {
    const detect = async (file: string): Promise<FacePrediction[]> => {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(fs.readFileSync(file))]), path.basename(file));
      form.append('api_key', key);
      const response = await fetch(`${server.url}/v1/vision/face`, { method: 'POST', body: form });
      expect(response.status, file).to.equal(200);
      return ((await response.json()) as { predictions: FacePrediction[] }).predictions;
    };
    // What a person sees: a brown bear's head, donuts in a box, three zebras facing the camera (docs/faces.md, "Phantom faces").
    for (const file of [coco('coco-val122', '000000000285.jpg'), coco('coco128', 'train2017/000000000438.jpg'), coco('coco-val122', '000000011760.jpg')]) {
      expect(await detect(file), path.basename(file)).to.deep.equal([]);
    }
    expect(await detect(group('bbt1.jpg'))).to.have.length(4);
    expect(await detect(group('bbt3.jpg'))).to.have.length(5);
  });

  it('recognition describes every face with nobody registered, as it will with people (its cost does not wait for the first person): recognize and the Nvision call each log a recognize stage', async () => {
    const own = await server.createService({ name: 'nobody yet', type: 'face-detection' });
    const logStart = server.logText().length;
    const recognized = await deepstackFace(server, own, 'recognize', group('bbt1.jpg'));
    expect(userids(recognized.result)).to.deep.equal(['unknown', 'unknown', 'unknown', 'unknown']);
    const nvision = await fetch(`${server.url}/api/v1/face-detection`, { method: 'POST', headers: { Authorization: `ApiKey ${own}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(fs.readFileSync(group('bbt1.jpg'))) });
    const faces = ((await nvision.json()) as { detected_faces: { name: string }[] }).detected_faces;
    expect(faces.map((face) => face.name)).to.deep.equal(['face', 'face', 'face', 'face']);
    const calls = server
      .logText()
      .slice(logStart)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => line.status === 200 && line.timings_ms);
    expect(calls).to.have.length(2);
    for (const call of calls) expect(call.timings_ms, call.path ?? call.url).to.have.property('recognize').that.is.above(0);
  });

  it('register three people, get_registered_faces lists them, recognize names each registered face and `unknown` the others', async () => {
    const key = await server.createService({ name: 'three people', type: 'face-detection' });
    const registered = await deepstackFaceCalls(undefined, server, key, 'register', ...['raj', 'leonard', 'howard'].flatMap((person) => [person, cropPath(person, 1)]), 'raj', cropPath('raj', 2));
    expect(registered.map((answer) => answer.result)).to.deep.equal(['face added', 'face added', 'face added', 'face updated']);
    expect((await deepstackFace(server, key, 'list')).result).to.deep.equal(['howard', 'leonard', 'raj']);

    // bbt1: Raj, Leonard, Howard, and Sheldon, who is not registered.
    const couch = await deepstackFace(server, key, 'recognize', group('bbt1.jpg'));
    expect(couch.json).to.include({ success: true, message: 'A face was recognised', command: 'recognize' });
    expect(userids(couch.result)).to.deep.equal(['raj', 'leonard', 'howard', 'unknown']);
    // `confidence` is the similarity to the person named, at least the service's threshold; 0 for nobody.
    for (const face of couch.result as FacePrediction[]) {
      if (face.userid === 'unknown') expect(face.confidence).to.equal(0);
      else expect(face.confidence, face.userid).to.be.within(DEFAULT_FACE_MATCH_THRESHOLD, 1);
    }
    // DeepStack's min_confidence on recognize: a face matched less surely than it is nobody.
    const surest = Math.max(...(couch.result as FacePrediction[]).map((face) => face.confidence));
    const [strict] = await deepstackFaceCalls(surest + 0.01, server, key, 'recognize', group('bbt1.jpg'));
    expect(strict.result.length, `faces found at ${surest + 0.01}`).to.be.above(0);
    expect(userids(strict.result).every((userid) => userid === 'unknown'), `nobody named at min_confidence ${surest + 0.01}`).to.equal(true);

    // Other photos of them: bbt5 shows Raj, Penny, Sheldon, Leonard, Howard (Penny and Sheldon not registered).
    const leaning = await deepstackFace(server, key, 'recognize', group('bbt5.jpg'));
    expect(userids(leaning.result)).to.deep.equal(['raj', 'unknown', 'unknown', 'leonard', 'howard']);

    // Another crop of a registered person (framed before detection, as every small image is).
    expect(userids((await deepstackFace(server, key, 'recognize', cropPath('leonard', 3))).result)).to.deep.equal(['leonard']);

    // Nobody registered in the photo: every face unknown.
    const stranger = await deepstackFace(server, key, 'recognize', cropPath('penny', 3));
    expect(userids(stranger.result).every((userid) => userid === 'unknown')).to.equal(true);
    expect(stranger.json.message).to.equal('No known faces');
  });

  it('Double Take: register, recognize (the key after the image), delete — the person is gone from the list and from recognition', async () => {
    const registered = await doubleTake(server, key, 'register', { image: cropPath('sheldon', 1), userid: 'Sheldon' });
    expect(registered.status).to.equal(200);
    const before = await doubleTake(server, key, 'recognize', { image: group('bbt1.jpg') });
    expect(before.status).to.equal(200);
    expect(leftToRight(before.body.predictions).map((face: FacePrediction) => face.userid!.toLowerCase()).at(-1)).to.equal('sheldon');

    const removed = await doubleTake(server, key, 'delete', { userid: 'Sheldon' });
    expect(removed.status).to.equal(200);
    expect(removed.body.success).to.equal(true);
    expect((await deepstackFace(server, key, 'list')).result).to.not.include('Sheldon');
    const after = await doubleTake(server, key, 'recognize', { image: group('bbt1.jpg') });
    expect(userids(after.body.predictions).at(-1)).to.equal('unknown');
  });

  it('match compares the largest faces of image1 and image2 on DeepStack\'s reading: the same person above 0.65, two people below 0.55', async () => {
    const similarity = async (first: string, second: string) => {
      const form = new FormData();
      form.append('image1', new Blob([new Uint8Array(fs.readFileSync(first))]), 'one.png');
      form.append('image2', new Blob([new Uint8Array(fs.readFileSync(second))]), 'two.png');
      const response = await fetch(`${server.url}/v1/vision/face/match`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
      const body = (await response.json()) as { success: boolean; similarity: number };
      expect(body.success).to.equal(true);
      return body.similarity;
    };
    // On DeepStack's reading: above 0.65 the same person, below 0.55 two people.
    expect(await similarity(cropPath('amy', 2), cropPath('amy', 4)), 'amy and amy').to.be.within(0.65, 1);
    expect(await similarity(cropPath('sheldon', 1), cropPath('sheldon', 2)), 'sheldon and sheldon').to.be.within(0.65, 1);
    expect(await similarity(cropPath('amy', 2), cropPath('raj', 4)), 'amy and raj').to.be.within(0, 0.55);
    expect(await similarity(cropPath('sheldon', 1), cropPath('leonard', 1)), 'sheldon and leonard').to.be.within(0, 0.55);
  });

  it('the command line lists the people of the service (photos, when added) and forgets one: gone from the list and from recognition', async () => {
    requireBuild();
    const env = { ...process.env, DETECTD_DATA_DIR: server.dataDir };
    // A service of its own, with Howard, Leonard and Raj (two photos) registered.
    const own = await server.createService({ name: 'command line', type: 'face-detection' });
    const registrations = await deepstackFaceCalls(undefined, server, own, 'register', ...([['raj', 1], ['leonard', 1], ['howard', 1], ['raj', 2]] as const).flatMap(([person, index]) => [person, cropPath(person, index)]));
    expect(registrations.map((answer) => answer.result)).to.deep.equal(['face added', 'face added', 'face added', 'face updated']);
    const serviceId = (await server.domain.keys.authenticate(own))!.id;
    const people = cli(['service', 'people', serviceId, '--json'], env);
    expect(people.status, people.stderr).to.equal(0);
    const listed = JSON.parse(people.stdout).people as { userid: string; photos: number; created_at: string }[];
    expect(listed.map((person) => [person.userid, person.photos])).to.deep.equal([['howard', 1], ['leonard', 1], ['raj', 2]]);
    const forgotten = cli(['service', 'forget', serviceId, 'howard', '--json'], env);
    expect(forgotten.status, forgotten.stderr).to.equal(0);
    expect((await deepstackFace(server, own, 'list')).result).to.deep.equal(['leonard', 'raj']);
    expect(userids((await deepstackFace(server, own, 'recognize', group('bbt5.jpg'))).result).at(-1)).to.equal('unknown');
    // A threshold no face reaches names nobody; `default` brings the default back.
    const strict = cliOk(['service', 'face-threshold', serviceId, '1', '--json'], env);
    expect(JSON.parse(strict.stdout)).to.include({ face_match_threshold: 1, default: false });
    expect(userids((await deepstackFace(server, own, 'recognize', group('bbt5.jpg'))).result).every((userid) => userid === 'unknown')).to.equal(true);
    // `service show` prints the threshold in force, and whether it is the default.
    expect(JSON.parse(cliOk(['service', 'show', serviceId, '--json'], env).stdout)).to.include({ face_match_threshold: 1, face_match_threshold_default: false });
    expect(cliOk(['service', 'show', serviceId], env).stdout).to.contain('\nfaces     named at similarity ≥ 1\n');
    const backToDefault = JSON.parse(cliOk(['service', 'face-threshold', serviceId, 'default', '--json'], env).stdout);
    expect(backToDefault.default).to.equal(true);
    expect(JSON.parse(cliOk(['service', 'show', serviceId, '--json'], env).stdout)).to.include({ face_match_threshold: backToDefault.face_match_threshold, face_match_threshold_default: true });
    expect(cliOk(['service', 'show', serviceId], env).stdout).to.contain(`\nfaces     named at similarity ≥ ${backToDefault.face_match_threshold} (the default)\n`);
    const outOfRange = cli(['service', 'face-threshold', serviceId, '1.5', '--json'], env);
    expect(outOfRange.status, outOfRange.stderr).to.equal(2);
    const again = cli(['service', 'forget', serviceId, 'howard', '--json'], env);
    expect(again.status, again.stderr).to.equal(1);
    // `service register` registers through the running server, as a DeepStack client would (the largest face of each photo);
    // run asynchronously, since this process serves the call.
    // An ordinary soft photo is taken with its warning, a face too blurred to describe refused with the reason.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-register-'));
    const [soft, blurred] = [path.join(folder, 'howard-soft.jpg'), path.join(folder, 'howard-blurred.png')];
    fs.writeFileSync(soft, await registrationPhotos.soft(cropPath('howard', 4)));
    // Amy's face, too blurred to describe: refused whoever it is.
    fs.writeFileSync(blurred, await registrationPhotos.undescribable(cropPath('amy', 3)));
    const registered = await cliAsync(['service', 'register', serviceId, 'howard', cropPath('howard', 1), photoPath('dog.jpg'), cropPath('howard', 2), soft, blurred, '--url', server.url], env);
    fs.rmSync(folder, { recursive: true, force: true });
    expect(registered.status, registered.stderr).to.equal(0);
    expect(registered.stdout).to.contain('howard registered in').and.contain('a face taken from 3 of 5 photos').and.contain(`no face in ${photoPath('dog.jpg')}`);
    expect(registered.stdout).to.match(new RegExp(`\\(weak, counted only while howard has no good photo: ${soft}: the face is soft \\(sharpness \\d+; 15 or more describes its person more surely\\)\\)`));
    expect(registered.stdout).to.match(new RegExp(`\\(refused: ${blurred}: the face is too blurred to describe \\(sharpness \\d; at least 4 needed\\)\\)`));
    expect(userids((await deepstackFace(server, own, 'recognize', group('bbt5.jpg'))).result).at(-1)).to.equal('howard');
    const listedAgain = JSON.parse(cliOk(['service', 'people', serviceId, '--json'], env).stdout).people as { userid: string; photos: number; outdated_photos: number }[];
    expect(listedAgain.find((person) => person.userid === 'howard')).to.include({ photos: 3, outdated_photos: 0 });
    const refusedCase = await cliAsync(['service', 'register', serviceId, 'Howard', cropPath('howard', 3), '--url', server.url, '--json'], env);
    expect([refusedCase.status, JSON.parse(refusedCase.stderr).error.message]).to.deep.equal([1, 'the server refused the registration (400): "Howard" is the registered person "howard" in another case: register the photos as "howard" (userids that differ only in case are one person)']);
    const noServer = await cliAsync(['service', 'register', serviceId, 'howard', cropPath('howard', 3), '--url', 'http://127.0.0.1:9', '--json'], env);
    expect([noServer.status, JSON.parse(noServer.stderr).error.code]).to.deep.equal([3, 'no_server']);
    const noPhoto = await cliAsync(['service', 'register', serviceId, 'howard', '/nonexistent.jpg', '--url', server.url], env);
    expect([noPhoto.status, noPhoto.stderr]).to.deep.equal([2, 'detectd: cannot read /nonexistent.jpg: no such file\n']);
    const objectService = (await server.domain.keys.authenticate(server.apiKey))!.id;
    const objects = cli(['service', 'people', objectService, '--json'], env);
    expect(JSON.parse(objects.stderr).error.code).to.equal('not_a_face_service');
    expect(JSON.parse(cliOk(['service', 'show', objectService, '--json'], env).stdout), 'no threshold for an object service').to.not.have.property('face_match_threshold');
  });

  it('errors as DeepStack answers them: no userid, no face, the reserved userid `unknown`, a non-image or cut image, too many photos, a key of another service type (naming the type needed), a wrong key', async () => {
    const noUserid = await doubleTake(server, key, 'register', { image: cropPath('amy', 1) });
    expect(noUserid).to.deep.include({ status: 400 });
    expect(noUserid.body).to.include({ success: false, error: 'userid not specified', code: 400 });
    const noFace = await doubleTake(server, key, 'register', { image: photoPath('dog.jpg'), userid: 'rex' });
    expect(noFace.body).to.include({ success: false, error: 'No face detected', code: 400 });
    // `unknown` is the userid of a face named no one: no person may be registered as it, in any case.
    for (const userid of ['unknown', 'Unknown']) {
      const reserved = await doubleTake(server, key, 'register', { image: cropPath('amy', 1), userid });
      expect(reserved, userid).to.deep.include({ status: 400 });
      expect(reserved.body, userid).to.include({ success: false, error: `"${userid}" is what a face no one is named for is called: choose another userid`, code: 400 });
    }
    expect((await deepstackFace(server, key, 'list')).result.map((userid: string) => userid.toLowerCase())).to.not.include('unknown');
    const objectKey = await deepstackFace(server, server.apiKey, 'detect', group('bbt1.jpg'));
    expect(objectKey.error).to.equal('Error from Deepstack request, status code: 403');
    const refused = await doubleTake(server, server.apiKey, 'recognize', { image: group('bbt1.jpg') });
    expect(refused.body.error).to.contain('face-detection');
    // Hostile forms: bytes that are no image (a small one and a large one), more photos than a registration takes.
    const notAnImage = new FormData();
    notAnImage.append('userid', 'mallory');
    notAnImage.append('image', new Blob([new Uint8Array(Buffer.from('GIF89a but not really'))]), 'x.gif');
    const garbage = await fetch(`${server.url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: notAnImage });
    expect(garbage.status).to.equal(400);
    expect(((await garbage.json()) as { success: boolean }).success).to.equal(false);
    const truncated = new FormData();
    truncated.append('image', new Blob([new Uint8Array(fs.readFileSync(cropPath('amy', 1)).subarray(0, 400))]), 'cut.png');
    expect((await fetch(`${server.url}/v1/vision/face/recognize`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: truncated })).status).to.equal(400);
    const many = new FormData();
    many.append('userid', 'crowd');
    for (let index = 1; index <= 11; index++) many.append(`image${index}`, new Blob([new Uint8Array(fs.readFileSync(cropPath('amy', 1)))]), `${index}.png`);
    const tooMany = await fetch(`${server.url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: many });
    expect(tooMany.status).to.equal(400);
    expect(((await tooMany.json()) as { error: string }).error).to.contain('at most 10 files');
    const wrongKey = await doubleTake(server, 'dtd_' + 'x'.repeat(43), 'recognize', { image: group('bbt1.jpg') });
    expect(wrongKey.status).to.equal(401);
    expect(wrongKey.body.success).to.equal(false);
  });
});
