import fs from 'node:fs';
import path from 'node:path';
import { CompreFace } from '@exadel/compreface-js-sdk';
import { expect } from 'chai';
import { DEFAULT_FACE_MATCH_THRESHOLD } from '../src/features/faces/gallery/face-similarity.js';
import { COMPREFACE_SCHEMA, type CompreFaceBox, expectValid, leftToRight, NO_FACE_ERROR, NO_FACE_PHOTO, servePhotos, STRANGER_SUBJECTS } from './support/compreface.js';
import { cropPath, FACES_DIR } from './support/faces.js';
import { startTestServer, type TestServer } from './support/test-server.js';

interface RecognizedFace {
  box: CompreFaceBox;
  subjects: { subject: string; similarity: number }[];
  landmarks?: [number, number][];
  embedding?: number[];
  execution_time?: Record<string, number>;
}
interface RecognizeAnswer {
  result: RecognizedFace[];
  plugins_versions?: Record<string, string>;
}
interface Example {
  image_id: string;
  subject: string;
}

const group = (name: string) => path.join(FACES_DIR, name);
const base64 = (file: string) => fs.readFileSync(file).toString('base64');
/**
 * A file as the SDK takes one: it reads a path from disk only when it starts with `.` (its
 * `isPathRelative`); any other string it sends as base64 or fetches as a URL.
 */
const sdkPath = (file: string) => {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('.') ? relative : `./${relative}`;
};
/** The SDK's subject functions: its compreface.d.ts declares them as `subjectFunctions()`, its code (what runs) as `getSubjects()`. */
interface WithSubjects {
  getSubjects(): {
    list<T>(): Promise<T>;
    add<T>(subject: string): Promise<T>;
    rename<T>(subject: string, newName: string): Promise<T>;
    delete<T>(subject: string): Promise<T>;
    deleteAll<T>(): Promise<T>;
  };
}
/** The first subject of each face from left to right, as CompreFace's clients read it (`unknown`: named no one). */
const namesOf = (answer: RecognizeAnswer) => leftToRight(answer.result).map((face) => face.subjects[0].subject);

/** What the SDK's promise rejected with: axios's error, carrying the server's status and answer. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await call;
  } catch (error) {
    const { response } = error as { response?: { status: number; data: unknown } };
    if (response) return { status: response.status, data: response.data };
    throw error;
  }
  throw new Error('the call was answered, not refused');
}

/**
 * `@exadel/compreface-js-sdk` 1.0.0, unmodified from npm, against the real server on the face
 * service's key, with the embedded face models and ../shared/eval/faces (what a person sees in each
 * group photo: test/support/faces.ts): every call it makes — recognition with each option, the face
 * collection (add from a path, base64 and a URL; list; verify; delete by id, by ids, by subject, all),
 * subjects (add, list, rename, delete, delete all), detection and verification — and every answer
 * valid against the CompreFace door's schemas. The SDK builds each URL itself; what it sends is in
 * its endpoints/ and functions/index.js.
 */
describe('@exadel/compreface-js-sdk against the real server', function () {
  this.timeout(300_000);
  let server: TestServer;
  let photos: Awaited<ReturnType<typeof servePhotos>>;

  before(async () => {
    server = await startTestServer();
    photos = await servePhotos({ 'raj.png': cropPath('raj', 1), 'bbt1.jpg': group('bbt1.jpg') });
  });
  after(async () => {
    await photos?.close();
    await server?.close();
  });

  const compreFace = () => new CompreFace('http://127.0.0.1', server.port);
  /** A new face service (a gallery of its own), and the SDK's recognition service on its key. */
  async function recognitionService(name: string) {
    const key = await server.createService({ name, type: 'face-detection' });
    return { key, recognition: compreFace().initFaceRecognitionService(key) };
  }
  /** Registers each person's crops (the SDK's face collection add, from a file path); the examples added. */
  async function register(recognition: ReturnType<CompreFace['initFaceRecognitionService']>, crops: Record<string, number[]>): Promise<Example[]> {
    const added: Example[] = [];
    for (const [person, indexes] of Object.entries(crops)) {
      // The SDK's face collection keeps each URL it built in a shared variable: a fresh collection per call, as its README's examples do.
      for (const index of indexes) added.push(await recognition.getFaceCollection().add<Example>(sdkPath(cropPath(person, index)), person));
    }
    return added;
  }

  it('face collection: add from a file path, from base64 and from a URL answers image_id and subject; list answers every example, paged', async () => {
    const { recognition } = await recognitionService('gallery');
    const added = [
      await recognition.getFaceCollection().add<Example>(sdkPath(cropPath('leonard', 1)), 'leonard'),
      await recognition.getFaceCollection().add<Example>(base64(cropPath('leonard', 2)), 'leonard'),
      await recognition.getFaceCollection().add<Example>(photos.url('raj.png'), 'raj'),
    ];
    added.forEach((example, index) => expectValid(COMPREFACE_SCHEMA.example, example, `add #${index}`));
    expect(added.map((example) => example.subject)).to.deep.equal(['leonard', 'leonard', 'raj']);
    expect(new Set(added.map((example) => example.image_id)).size).to.equal(3);

    const list = await recognition.getFaceCollection().list<{ faces: Example[] }>();
    expectValid(COMPREFACE_SCHEMA.examples, list, 'list');
    const pairs = (examples: Example[]) => examples.map(({ image_id, subject }) => `${subject} ${image_id}`).sort();
    expect(pairs(list.faces)).to.deep.equal(pairs(added));
    expect(list).to.include({ page_number: 0, page_size: 20, total_pages: 1, total_elements: 3 });
  });

  it('recognize names the registered people of bbt1 and not Sheldon, who is not registered — sent as a path, as base64 and as a URL', async () => {
    const { recognition } = await recognitionService('couch');
    await register(recognition, { raj: [1], leonard: [1], howard: [1] });
    const options = { limit: 0, det_prob_threshold: 0.8, prediction_count: 1 };
    for (const [how, image] of [['path', sdkPath(group('bbt1.jpg'))], ['base64', base64(group('bbt1.jpg'))], ['url', photos.url('bbt1.jpg')]] as const) {
      const answer = await recognition.recognize<RecognizeAnswer>(image, options);
      expectValid(COMPREFACE_SCHEMA.recognize, answer, how);
      // bbt1: Raj, Leonard, Howard, Sheldon on a couch.
      expect(namesOf(answer), how).to.deep.equal(['raj', 'leonard', 'howard', 'unknown']);
      const faces = leftToRight(answer.result);
      for (const face of faces) {
        expect(face.box.probability, how).to.be.within(0.8, 1);
        expect(face.subjects, how).to.have.length(1);
      }
      for (const face of faces.slice(0, 3)) expect(face.subjects[0].similarity, how).to.be.within(DEFAULT_FACE_MATCH_THRESHOLD, 1);
      expect(faces[3].subjects, `${how}: Sheldon is no one`).to.deep.equal(STRANGER_SUBJECTS);
      expect(answer, `${how}: no status asked`).to.not.have.property('plugins_versions');
    }
  });

  it('recognize: a stranger is never named — 20 crops of four people nobody registered, in a gallery of the other four, each registered twice', async () => {
    const { recognition } = await recognitionService('strangers');
    await register(recognition, { raj: [1, 2], leonard: [1, 2], howard: [1, 2], sheldon: [1, 2] });
    for (const person of ['amy', 'bernadette', 'penny', 'stuart']) {
      for (const index of [1, 2, 3, 4, 5]) {
        const answer = await recognition.recognize<RecognizeAnswer>(sdkPath(cropPath(person, index)), { limit: 0 });
        expectValid(COMPREFACE_SCHEMA.recognize, answer, `${person}${index}`);
        expect(answer.result, `${person}${index}`).to.have.length(1);
        expect(answer.result[0].subjects, `${person}${index} is nobody registered`).to.deep.equal(STRANGER_SUBJECTS);
      }
    }
    // And the registered people's other crops are named.
    for (const person of ['raj', 'leonard', 'howard', 'sheldon']) {
      expect(namesOf(await recognition.recognize<RecognizeAnswer>(sdkPath(cropPath(person, 3)), { limit: 0 })), person).to.deep.equal([person]);
    }
  });

  it('recognize options: limit keeps the largest faces, det_prob_threshold the surer ones, prediction_count 3 still one subject, face_plugins and status add their fields', async () => {
    const { recognition } = await recognitionService('options');
    await register(recognition, { sheldon: [1], howard: [1], penny: [1], raj: [1], leonard: [1] });
    const bbt3 = sdkPath(group('bbt3.jpg'));
    const all = await recognition.recognize<RecognizeAnswer>(bbt3, { limit: 0 });
    // bbt3: Sheldon, Howard, Penny, Raj, Leonard on a red carpet.
    expect(namesOf(all)).to.deep.equal(['sheldon', 'howard', 'penny', 'raj', 'leonard']);

    const area = ({ box }: RecognizedFace) => (box.x_max - box.x_min) * (box.y_max - box.y_min);
    const largestTwo = [...all.result].sort((a, b) => area(b) - area(a)).slice(0, 2).map(area);
    const two = await recognition.recognize<RecognizeAnswer>(bbt3, { limit: 2 });
    expectValid(COMPREFACE_SCHEMA.recognize, two, 'limit 2');
    expect(two.result.map(area).sort((a, b) => b - a)).to.deep.equal(largestTwo);

    const sure = await recognition.recognize<RecognizeAnswer>(bbt3, { limit: 0, det_prob_threshold: 0.95 });
    expectValid(COMPREFACE_SCHEMA.recognize, sure, 'det_prob_threshold 0.95');
    for (const face of sure.result) expect(face.box.probability).to.be.at.least(0.95);
    expect(all.result.filter((face) => face.box.probability >= 0.95)).to.have.length(sure.result.length);

    const three = await recognition.recognize<RecognizeAnswer>(bbt3, { limit: 0, prediction_count: 3 });
    expectValid(COMPREFACE_SCHEMA.recognize, three, 'prediction_count 3');
    // detectd names a face as one person or no one: one subject, however many are asked for.
    for (const face of three.result) expect(face.subjects).to.have.length(1);
    expect(namesOf(three)).to.deep.equal(namesOf(all));

    // age, gender and mask need a model detectd does not have: left out of the answer, as CompreFace leaves a plugin it has not enabled (docs/moving-from-compreface.md).
    const plugins = await recognition.recognize<RecognizeAnswer>(bbt3, { limit: 0, face_plugins: 'landmarks,calculator,age,gender,mask', status: true });
    expectValid(COMPREFACE_SCHEMA.recognize, plugins, 'face_plugins and status');
    expect(plugins.plugins_versions).to.include.keys('detector', 'calculator');
    for (const face of plugins.result) {
      expect(face).to.not.have.any.keys('age', 'gender', 'mask');
      expect(face.embedding).to.be.an('array').that.is.not.empty;
      expect(face.execution_time).to.include.keys('detector', 'calculator');
      // The detector's five points (eyes, nose tip, mouth corners), each inside the face's box.
      expect(face.landmarks).to.have.length(5);
      for (const [x, y] of face.landmarks!) {
        expect(x).to.be.within(face.box.x_min, face.box.x_max);
        expect(y).to.be.within(face.box.y_min, face.box.y_max);
      }
    }
    for (const face of all.result) expect(face).to.not.have.any.keys('landmarks', 'embedding', 'execution_time');
  });

  it('an image without a face: recognize, add, detect and verify are 400 {"code": 28, "message": "No face is found in the given image"}', async () => {
    const { key, recognition } = await recognitionService('no face');
    const { image_id } = (await register(recognition, { penny: [1] }))[0];
    const calls = {
      recognize: () => recognition.recognize(sdkPath(NO_FACE_PHOTO), { limit: 0 }),
      add: () => recognition.getFaceCollection().add(sdkPath(NO_FACE_PHOTO), 'bear'),
      'example verify': () => recognition.getFaceCollection().verify(sdkPath(NO_FACE_PHOTO), image_id, { limit: 0 }),
      detect: () => compreFace().initFaceDetectionService(key).detect(sdkPath(NO_FACE_PHOTO), { limit: 0 }),
      verify: () => compreFace().initFaceVerificationService(key).verify(sdkPath(cropPath('penny', 1)), sdkPath(NO_FACE_PHOTO), { limit: 0 }),
    };
    for (const [call, send] of Object.entries(calls)) {
      const { status, data } = await refusal(send());
      expect({ status, data }, call).to.deep.equal({ status: 400, data: NO_FACE_ERROR });
      expectValid(COMPREFACE_SCHEMA.error, data, call);
    }
  });

  it('detection service: detect finds the five faces of bbt3, each box with its probability, landmarks and status on request, and names nobody', async () => {
    const { key, recognition } = await recognitionService('detect');
    await register(recognition, { penny: [1] });
    const detection = compreFace().initFaceDetectionService(key);
    const answer = await detection.detect<RecognizeAnswer>(sdkPath(group('bbt3.jpg')), { limit: 0, det_prob_threshold: 0.5, face_plugins: 'landmarks', status: true });
    expectValid(COMPREFACE_SCHEMA.detect, answer, 'detect');
    expect(answer.result).to.have.length(5);
    expect(answer.plugins_versions).to.include.keys('detector');
    for (const face of answer.result) {
      expect(face).to.not.have.property('subjects');
      expect(face.box.probability).to.be.within(0.5, 1);
      expect(face.landmarks).to.have.length(5);
    }
    const plain = await detection.detect<RecognizeAnswer>(base64(group('bbt3.jpg')), { limit: 0 });
    expectValid(COMPREFACE_SCHEMA.detect, plain, 'detect, base64');
    expect(leftToRight(plain.result).map((face) => face.box)).to.deep.equal(leftToRight(answer.result).map((face) => face.box));
  });

  it('verification service: verify compares the face of source_image with each of target_image, as paths and as base64', async () => {
    const { key } = await recognitionService('verify');
    const verification = compreFace().initFaceVerificationService(key);
    type VerifyAnswer = { result: { source_image_face: { box: CompreFaceBox }; face_matches: { box: CompreFaceBox; similarity: number }[] }[] };
    const same = await verification.verify<VerifyAnswer>(sdkPath(cropPath('leonard', 1)), sdkPath(cropPath('leonard', 2)), { limit: 0 });
    expectValid(COMPREFACE_SCHEMA.verify, same, 'leonard and leonard');
    expect(same.result).to.have.length(1);
    expect(same.result[0].face_matches).to.have.length(1);
    expect(same.result[0].face_matches[0].similarity).to.be.within(DEFAULT_FACE_MATCH_THRESHOLD, 1);

    const others = await verification.verify<VerifyAnswer>(base64(cropPath('leonard', 1)), base64(cropPath('penny', 1)), { limit: 0 });
    expectValid(COMPREFACE_SCHEMA.verify, others, 'leonard and penny, base64');
    expect(others.result[0].face_matches[0].similarity).to.be.below(DEFAULT_FACE_MATCH_THRESHOLD);

    // A group photo as the target: a match for each of its four faces, Leonard's (second from the left) the most similar.
    const couch = await verification.verify<VerifyAnswer>(sdkPath(cropPath('leonard', 3)), sdkPath(group('bbt1.jpg')), { limit: 0 });
    expectValid(COMPREFACE_SCHEMA.verify, couch, 'leonard and bbt1');
    const matches = leftToRight(couch.result[0].face_matches);
    expect(matches).to.have.length(4);
    const best = Math.max(...matches.map((match) => match.similarity));
    expect(matches[1].similarity).to.equal(best);
  });

  it('face collection verify: a photo against one stored example, by its image_id', async () => {
    const { recognition } = await recognitionService('example verify');
    const [leonard] = await register(recognition, { leonard: [1] });
    type ExampleVerifyAnswer = { result: { box: CompreFaceBox; similarity: number }[] };
    const same = await recognition.getFaceCollection().verify<ExampleVerifyAnswer>(sdkPath(cropPath('leonard', 3)), leonard.image_id, { limit: 0 });
    expectValid(COMPREFACE_SCHEMA.exampleVerify, same, 'leonard3');
    expect(same.result).to.have.length(1);
    expect(same.result[0].similarity).to.be.within(DEFAULT_FACE_MATCH_THRESHOLD, 1);
    const other = await recognition.getFaceCollection().verify<ExampleVerifyAnswer>(sdkPath(cropPath('penny', 3)), leonard.image_id, { limit: 0 });
    expectValid(COMPREFACE_SCHEMA.exampleVerify, other, 'penny3');
    expect(other.result[0].similarity).to.be.below(DEFAULT_FACE_MATCH_THRESHOLD);
  });

  it('face collection deletes: by image_id, several image_ids at once (an unknown one ignored), every example of a subject, then all', async () => {
    const { recognition } = await recognitionService('deletes');
    // What a deletion answers of an example: its id and subject (an addition also says `warnings`).
    const [leonard1, leonard2, raj1, raj2, howard1] = (await register(recognition, { leonard: [1, 2], raj: [1, 2], howard: [1] })).map(({ image_id, subject }) => ({ image_id, subject }));
    const collection = () => recognition.getFaceCollection();

    const one = await collection().delete<Example>(leonard1.image_id);
    expectValid(COMPREFACE_SCHEMA.example, one, 'delete by image_id');
    expect(one).to.deep.equal(leonard1);

    const several = await collection().delete_multiple_images<Example[]>([raj1.image_id, raj2.image_id, '00000000-0000-4000-8000-000000000000']);
    expectValid(COMPREFACE_SCHEMA.deletedExamples, several, 'delete several');
    expect(several).to.have.deep.members([raj1, raj2]);
    // Raj is nobody now.
    const raj = await recognition.recognize<RecognizeAnswer>(sdkPath(cropPath('raj', 3)), { limit: 0 });
    expect(raj.result[0].subjects).to.deep.equal(STRANGER_SUBJECTS);

    const subject = await collection().delete_all_subject<{ deleted: number }>('leonard');
    expectValid(COMPREFACE_SCHEMA.deletedCount, subject, 'delete by subject');
    expect(subject).to.deep.equal({ deleted: 1 });
    expect((await collection().list<{ faces: Example[] }>()).faces).to.deep.equal([howard1]);
    expect(leonard2.subject).to.equal('leonard');

    const all = await collection().delete_all<{ deleted: number }>();
    expectValid(COMPREFACE_SCHEMA.deletedCount, all, 'delete all');
    expect(all).to.deep.equal({ deleted: 1 });
    expect(await collection().list()).to.include({ total_elements: 0 });
  });

  it('subjects: add, list, rename (the examples follow the new name), delete, delete all', async () => {
    const { recognition } = await recognitionService('subjects');
    const subjects = () => (recognition as unknown as WithSubjects).getSubjects();
    const added = await subjects().add<{ subject: string }>('amy');
    expectValid(COMPREFACE_SCHEMA.subject, added, 'add');
    expect(added).to.deep.equal({ subject: 'amy' });
    await register(recognition, { penny: [1] });
    const listed = await subjects().list<{ subjects: string[] }>();
    expectValid(COMPREFACE_SCHEMA.subjects, listed, 'list');
    expect(listed.subjects).to.have.members(['amy', 'penny']);

    const renamed = await subjects().rename<{ updated: boolean }>('penny', 'penny-h');
    expectValid(COMPREFACE_SCHEMA.subjectRenamed, renamed, 'rename');
    expect(renamed).to.deep.equal({ updated: true });
    expect(namesOf(await recognition.recognize<RecognizeAnswer>(sdkPath(cropPath('penny', 2)), { limit: 0 }))).to.deep.equal(['penny-h']);

    const deleted = await subjects().delete<{ subject: string }>('amy');
    expectValid(COMPREFACE_SCHEMA.subject, deleted, 'delete');
    expect(deleted).to.deep.equal({ subject: 'amy' });
    const all = await subjects().deleteAll<{ deleted: number }>();
    expectValid(COMPREFACE_SCHEMA.deletedCount, all, 'delete all');
    expect(all).to.deep.equal({ deleted: 1 });
    expect(await subjects().list()).to.deep.equal({ subjects: [] });
    // Nobody registered: every face is no one's.
    expect((await recognition.recognize<RecognizeAnswer>(sdkPath(cropPath('penny', 2)), { limit: 0 })).result[0].subjects).to.deep.equal(STRANGER_SUBJECTS);
  });

  it('keys: another task\'s key and an unknown key are refused as CompreFace refuses a key of no face service, on recognition, detection and verification alike', async () => {
    const objectKey = await server.createService({ name: 'objects', type: 'object-detection' });
    for (const key of [objectKey, 'not-a-key']) {
      const calls = {
        recognize: () => compreFace().initFaceRecognitionService(key).recognize(sdkPath(cropPath('amy', 1)), { limit: 0 }),
        list: () => compreFace().initFaceRecognitionService(key).getFaceCollection().list(),
        detect: () => compreFace().initFaceDetectionService(key).detect(sdkPath(cropPath('amy', 1)), { limit: 0 }),
        verify: () => compreFace().initFaceVerificationService(key).verify(sdkPath(cropPath('amy', 1)), sdkPath(cropPath('amy', 2)), { limit: 0 }),
      };
      for (const [call, send] of Object.entries(calls)) {
        const { status, data } = await refusal(send());
        // CompreFace's answer to a key that opens no face service: 404, code 10 (MODEL_NOT_FOUND).
        expect({ status, code: (data as { code: number }).code }, `${call} with ${key === objectKey ? 'an object service key' : 'an unknown key'}`).to.deep.equal({ status: 404, code: 10 });
        expectValid(COMPREFACE_SCHEMA.error, data, call);
      }
    }
  });

  it('the options the SDK joins with a second "?" (add with det_prob_threshold, detect without limit) are read as parameters, not as part of the subject or of det_prob_threshold', async () => {
    const { key, recognition } = await recognitionService('url quirks');
    // POST /api/v1/recognition/faces?subject=amy?det_prob_threshold=0.8
    const added = await recognition.getFaceCollection().add<Example>(sdkPath(cropPath('amy', 1)), 'amy', { det_prob_threshold: '0.8' });
    expectValid(COMPREFACE_SCHEMA.example, added, 'add with det_prob_threshold');
    expect(added.subject).to.equal('amy');
    // POST /api/v1/detection/detect?det_prob_threshold=0.5?face_plugins=landmarks (its types ask for limit, its code goes without).
    const withoutLimit = { det_prob_threshold: 0.5, face_plugins: 'landmarks' } as unknown as { limit: number };
    const detected = await compreFace().initFaceDetectionService(key).detect<RecognizeAnswer>(sdkPath(cropPath('amy', 1)), withoutLimit);
    expectValid(COMPREFACE_SCHEMA.detect, detected, 'detect without limit');
    expect(detected.result).to.have.length(1);
    expect(detected.result[0].landmarks).to.have.length(5);
  });

  it('a Buffer, which the SDK posts as multipart/form-data without a boundary under Node (its browser path), is refused with a 400 in CompreFace\'s error shape, never a 500', async () => {
    const { recognition } = await recognitionService('buffer');
    const { status, data } = await refusal(recognition.recognize(fs.readFileSync(cropPath('amy', 1)) as unknown as string, { limit: 0 }));
    expect(status).to.equal(400);
    expectValid(COMPREFACE_SCHEMA.error, data, 'buffer');
  });
});
