import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import sharp from 'sharp';
import { DEFAULT_FACE_MATCH_THRESHOLD } from '../src/features/faces/gallery/face-similarity.js';
import { COMPREFACE_SCHEMA, type CompreFaceBox, expectValid, leftToRight, NO_FACE_ERROR, NO_FACE_PHOTO, STRANGER_SUBJECTS } from './support/compreface.js';
import { cropPath, FACES_DIR } from './support/faces.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const run = promisify(execFile);
const PYTHON_CLIENTS = path.resolve('test/clients/compreface_python_clients.py');
const group = (name: string) => path.join(FACES_DIR, name);

interface RecognizedFace {
  box: CompreFaceBox;
  subjects: { subject: string; similarity: number }[];
  landmarks?: unknown;
  embedding?: unknown;
}
type Answer = Record<string, any>;

/**
 * Double Take's CompreFace detector (jakowenko/double-take, api/src/util/detectors/compreface.js),
 * request for request: axios posting a form-data form whose one field `file` is the image file
 * (its name and media type from the path), with `x-api-key`. Recognize:
 * `/api/v1/recognition/recognize?face_plugins=<its face_plugins setting>` — `undefined` when the
 * setting is left out, as in its default config — and axios's params `det_prob_threshold` (its 0.8
 * default); every status is read. Train: `/api/v1/recognition/faces` with params `subject`. Remove:
 * DELETE the same with `subject`.
 */
const doubleTake = {
  async recognize(server: TestServer, key: string, image: string, facePlugins?: string): Promise<{ status: number; data: Answer }> {
    const response = await fetch(`${server.url}/api/v1/recognition/recognize?face_plugins=${facePlugins}&det_prob_threshold=0.8`, { method: 'POST', headers: { 'x-api-key': key }, body: imageForm(image) });
    return { status: response.status, data: (await response.json()) as Answer };
  },
  async train(server: TestServer, key: string, name: string, image: string): Promise<{ status: number; data: Answer }> {
    const response = await fetch(`${server.url}/api/v1/recognition/faces?subject=${encodeURIComponent(name)}`, { method: 'POST', headers: { 'x-api-key': key }, body: imageForm(image) });
    return { status: response.status, data: (await response.json()) as Answer };
  },
  async remove(server: TestServer, key: string, name: string): Promise<{ status: number; data: Answer }> {
    const response = await fetch(`${server.url}/api/v1/recognition/faces?subject=${encodeURIComponent(name)}`, { method: 'DELETE', headers: { 'x-api-key': key } });
    return { status: response.status, data: (await response.json()) as Answer };
  },
  /**
   * Its `normalize`, with its default `detect` settings (match: confidence 60, min_area 10,000;
   * unknown: confidence 40): the first subject's similarity × 100 is the confidence; the name is that
   * subject, lower-cased, at 40 or more, else `unknown`; code 28 is no faces; any other answer
   * without `result` throws its message.
   */
  normalize(data: Answer): { name: string; confidence: number; match: boolean; box: { top: number; left: number; width: number; height: number } }[] {
    if (!data.result) {
      if (data.code === 28) return [];
      throw new Error(data.message);
    }
    return (data.result as RecognizedFace[]).map(({ subjects, box }) => {
      const [face] = subjects;
      const confidence = face ? Number.parseFloat((face.similarity * 100).toFixed(2)) : 0;
      const width = box.x_max - box.x_min;
      const height = box.y_max - box.y_min;
      return {
        name: face && confidence >= 40 ? face.subject.toLowerCase() : 'unknown',
        confidence,
        match: confidence >= 60 && width * height >= 10_000,
        box: { top: box.y_min, left: box.x_min, width, height },
      };
    });
  },
};

/** form-data's form of one file as Double Take builds it: field `file`, the file's name, its media type by extension. */
function imageForm(image: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(fs.readFileSync(image))], { type: image.endsWith('.png') ? 'image/png' : 'image/jpeg' }), path.basename(image));
  return form;
}

/** Viseron's and Home Assistant's CompreFace clients (test/clients/compreface_python_clients.py), run by Python `requests`: what each call made of its answer. */
async function python(server: TestServer, command: string, ...args: string[]): Promise<Answer[]> {
  const { stdout } = await run('python3', [PYTHON_CLIENTS, '127.0.0.1', String(server.port), command, ...args], { env: { ...process.env, ...pythonEnv } });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Answer);
}
let pythonEnv: Record<string, string> = {};

/** JPEG copies of photos, as Viseron sends every image (OpenCV's imencode(".jpg")), in `folder`, named `<name>.jpg`. */
async function jpegs(folder: string, photos: Record<string, string>): Promise<Record<string, string>> {
  fs.mkdirSync(folder, { recursive: true });
  const written: Record<string, string> = {};
  for (const [name, photo] of Object.entries(photos)) {
    written[name] = path.join(folder, `${name}.jpg`);
    await sharp(photo).jpeg({ quality: 95 }).toFile(written[name]);
  }
  return written;
}

/**
 * CompreFace's clients against the real server's CompreFace door, request for request from their
 * source (each described above its reproduction), with the embedded face models and
 * ../shared/eval/faces (what a person sees in each group photo: test/support/faces.ts): Double Take,
 * Viseron, and Home Assistant's CompreFace component, each on a face service's key. Every answer is
 * valid against the door's schemas.
 */
describe('CompreFace clients against the real server: compreface-python-sdk, Double Take, Viseron, Home Assistant', function () {
  this.timeout(300_000);
  let server: TestServer;
  let folder: string;

  before(async () => {
    server = await startTestServer();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-compreface-clients-'));
  });
  after(async () => {
    await server?.close();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });
  afterEach(() => {
    pythonEnv = {};
  });

  it('compreface-python-sdk: each of its calls, with every recognize option as Python writes them (status=True), subjects renamed with its body {"subject", "api_endpoint"}', async () => {
    const key = await server.createService({ name: 'python sdk', type: 'face-detection' });
    const calls = await python(server, 'sdk-calls', key, cropPath('leonard', 1), cropPath('leonard', 3));
    const answer = (call: string) => calls.find((made) => made.call === call)?.json;
    expect(calls.map((made) => made.call)).to.deep.equal([
      'subjects.add', 'face_collection.add', 'face_collection.list', 'recognize', 'face_collection.verify', 'detection.detect',
      'verification.verify', 'subjects.update', 'subjects.list', 'face_collection.delete', 'face_collection.delete_all', 'subjects.delete', 'subjects.delete_all',
    ]);
    expect(answer('subjects.add')).to.deep.equal({ subject: 'amy' });
    const added = answer('face_collection.add');
    expectValid(COMPREFACE_SCHEMA.example, added, 'add');
    expect(answer('face_collection.list').faces).to.deep.equal([{ image_id: added.image_id, subject: 'leonard' }]);
    const recognized = answer('recognize');
    expectValid(COMPREFACE_SCHEMA.recognize, recognized, 'recognize');
    expect(recognized.result.map((face: RecognizedFace) => face.subjects.map((subject) => subject.subject))).to.deep.equal([['leonard']]);
    expect(recognized.result[0]).to.include.keys('landmarks', 'embedding', 'execution_time');
    expect(recognized.plugins_versions).to.include.keys('detector', 'calculator');
    const verified = answer('face_collection.verify');
    expectValid(COMPREFACE_SCHEMA.exampleVerify, verified, 'face_collection.verify');
    expect(verified.result[0].similarity).to.be.within(DEFAULT_FACE_MATCH_THRESHOLD, 1);
    expectValid(COMPREFACE_SCHEMA.detect, answer('detection.detect'), 'detect');
    expect(answer('detection.detect').result).to.have.length(1);
    const compared = answer('verification.verify');
    expectValid(COMPREFACE_SCHEMA.verify, compared, 'verification.verify');
    expect(compared.result[0].face_matches[0].similarity).to.be.within(DEFAULT_FACE_MATCH_THRESHOLD, 1);
    expect(answer('subjects.update')).to.deep.equal({ updated: true });
    expect(answer('subjects.list').subjects).to.have.members(['amy farrah fowler', 'leonard']);
    expect(answer('face_collection.delete')).to.deep.equal({ image_id: added.image_id, subject: 'leonard' });
    expect(answer('face_collection.delete_all')).to.deep.equal({ deleted: 0 });
    expect(answer('subjects.delete')).to.deep.equal({ subject: 'amy farrah fowler' });
    expect(answer('subjects.delete_all')).to.deep.equal({ deleted: 1 });
    const schemas = { 'subjects.add': 'subject', 'face_collection.list': 'examples', 'subjects.update': 'subjectRenamed', 'subjects.list': 'subjects', 'face_collection.delete': 'example', 'face_collection.delete_all': 'deletedCount', 'subjects.delete': 'subject', 'subjects.delete_all': 'deletedCount' } as const;
    for (const [call, schema] of Object.entries(schemas)) expectValid(COMPREFACE_SCHEMA[schema], answer(call), call);
  });

  describe('Double Take', () => {
    it('trains three people, then recognizes bbt1 as its default config asks (face_plugins "undefined"): Raj, Leonard and Howard by name, Sheldon unknown', async () => {
      const key = await server.createService({ name: 'double take', type: 'face-detection' });
      for (const person of ['raj', 'leonard', 'howard']) {
        const trained = await doubleTake.train(server, key, person, cropPath(person, 1));
        expect(trained.status, person).to.be.within(200, 201);
        expectValid(COMPREFACE_SCHEMA.example, trained.data, `train ${person}`);
        expect(trained.data.subject).to.equal(person);
      }
      const { status, data } = await doubleTake.recognize(server, key, group('bbt1.jpg'));
      expect(status).to.equal(200);
      expectValid(COMPREFACE_SCHEMA.recognize, data, 'recognize bbt1');
      const faces = doubleTake.normalize(data).sort((a, b) => a.box.left - b.box.left);
      // bbt1: Raj, Leonard, Howard, Sheldon on a couch.
      expect(faces.map((face) => face.name)).to.deep.equal(['raj', 'leonard', 'howard', 'unknown']);
      for (const face of faces.slice(0, 3)) expect(face.confidence, face.name).to.be.within(DEFAULT_FACE_MATCH_THRESHOLD * 100, 100);
      expect(faces[3].confidence).to.equal(0);
    });

    it('a stranger is never named: every crop of four people nobody registered is "unknown", confidence 0 — with face_plugins=mask,gender,age as its example config sets them', async () => {
      const key = await server.createService({ name: 'double take strangers', type: 'face-detection' });
      for (const person of ['raj', 'leonard', 'howard', 'sheldon']) for (const index of [1, 2]) await doubleTake.train(server, key, person, cropPath(person, index));
      for (const person of ['amy', 'bernadette', 'penny', 'stuart']) {
        for (const index of [1, 2, 3, 4, 5]) {
          const { status, data } = await doubleTake.recognize(server, key, cropPath(person, index), 'mask,gender,age');
          expect(status).to.equal(200);
          expectValid(COMPREFACE_SCHEMA.recognize, data, `${person}${index}`);
          // The plugins it asks for have no model here: left out, as CompreFace leaves a plugin it has not enabled; Double Take reads them only when present.
          expect(data.result[0]).to.not.have.any.keys('mask', 'gender', 'age');
          expect(data.result[0].subjects, `${person}${index}`).to.deep.equal(STRANGER_SUBJECTS);
          expect(doubleTake.normalize(data).map(({ name, confidence, match }) => ({ name, confidence, match })), `${person}${index}`).to.deep.equal([{ name: 'unknown', confidence: 0, match: false }]);
        }
      }
    });

    it('an image without a face: 400 {"code": 28, …}, which it reads as no faces', async () => {
      const key = await server.createService({ name: 'double take no face', type: 'face-detection' });
      const { status, data } = await doubleTake.recognize(server, key, NO_FACE_PHOTO);
      expect({ status, data }).to.deep.equal({ status: 400, data: NO_FACE_ERROR });
      expectValid(COMPREFACE_SCHEMA.error, data, 'no face');
      expect(doubleTake.normalize(data)).to.deep.equal([]);
    });

    it('removes a person: DELETE faces?subject= answers how many examples went, and the person is unknown after', async () => {
      const key = await server.createService({ name: 'double take remove', type: 'face-detection' });
      for (const index of [1, 2]) await doubleTake.train(server, key, 'penny', cropPath('penny', index));
      expect(doubleTake.normalize((await doubleTake.recognize(server, key, cropPath('penny', 3))).data)[0].name).to.equal('penny');
      const removed = await doubleTake.remove(server, key, 'penny');
      expect(removed).to.deep.equal({ status: 200, data: { deleted: 2 } });
      expectValid(COMPREFACE_SCHEMA.deletedCount, removed.data, 'remove');
      expect(doubleTake.normalize((await doubleTake.recognize(server, key, cropPath('penny', 3))).data)[0].name).to.equal('unknown');
    });
  });

  describe('Viseron', () => {
    /** A face_recognition folder as Viseron reads it: a folder of JPEGs per person, and `unknown/`, which it skips. */
    async function trainingFolder(name: string, people: Record<string, number[]>): Promise<string> {
      const root = path.join(folder, name);
      for (const [person, indexes] of Object.entries(people)) await jpegs(path.join(root, person), Object.fromEntries(indexes.map((index) => [`${person}${index}`, cropPath(person, index)])));
      await jpegs(path.join(root, 'unknown'), { stranger: cropPath('amy', 1) });
      return root;
    }

    it('trains from its face_recognition folder (unknown/ skipped): delete_all then add for each person; training again replaces the examples', async () => {
      const key = await server.createService({ name: 'viseron train', type: 'face-detection' });
      const root = await trainingFolder('train', { leonard: [1, 2], raj: [1, 2] });
      for (const round of [0, 2]) {
        const calls = await python(server, 'viseron-train', key, root);
        expect(calls.map((call) => [call.person, call.image ?? 'delete_all'])).to.deep.equal([
          ['leonard', 'delete_all'], ['leonard', 'leonard1.jpg'], ['leonard', 'leonard2.jpg'],
          ['raj', 'delete_all'], ['raj', 'raj1.jpg'], ['raj', 'raj2.jpg'],
        ]);
        for (const call of calls) {
          if (call.delete_all) {
            expect(call.delete_all, `${call.person}'s examples before round ${round}`).to.deep.equal({ deleted: round });
            expectValid(COMPREFACE_SCHEMA.deletedCount, call.delete_all, 'delete_all');
          } else {
            expect(call.not_suitable, call.image).to.equal(false);
            expect(call.json.subject).to.equal(call.person);
            expectValid(COMPREFACE_SCHEMA.example, call.json, call.image);
          }
        }
      }
      const [subjects] = await python(server, 'viseron-subjects', key);
      expectValid(COMPREFACE_SCHEMA.subjects, subjects.json, 'subjects');
      expect(subjects.subjects).to.have.members(['leonard', 'raj']);
    });

    it('recognizes each person\'s crop (its default options: limit 0, det_prob_threshold 0.8, prediction_count 1, status False) as a known face at or above its similarity_threshold 0.5', async () => {
      const key = await server.createService({ name: 'viseron recognize', type: 'face-detection' });
      const people = ['raj', 'leonard', 'howard', 'sheldon'];
      await python(server, 'viseron-train', key, await trainingFolder('recognize', Object.fromEntries(people.map((person) => [person, [1, 2]]))));
      const crops = await jpegs(path.join(folder, 'recognize-crops'), Object.fromEntries(people.map((person) => [person, cropPath(person, 4)])));
      const answers = await python(server, 'viseron-recognize', key, '0.5', ...people.map((person) => crops[person]));
      answers.forEach((answer, index) => {
        expect(answer.error, people[index]).to.equal(undefined);
        expectValid(COMPREFACE_SCHEMA.recognize, answer.json, people[index]);
        expect(answer.known.map((face: { subject: string }) => face.subject), people[index]).to.deep.equal([people[index]]);
        expect(answer.known[0].confidence).to.be.within(DEFAULT_FACE_MATCH_THRESHOLD, 1);
        expect(answer.unknown).to.deep.equal([]);
      });
      // Its face_plugins setting (what its SDK allows: calculator, landmarks, age, gender, mask) rides along in the known face's attributes.
      pythonEnv = { VISERON_FACE_PLUGINS: 'landmarks,calculator' };
      const [withPlugins] = await python(server, 'viseron-recognize', key, '0.5', crops.raj);
      expectValid(COMPREFACE_SCHEMA.recognize, withPlugins.json, 'face_plugins');
      expect(withPlugins.json.result[0]).to.include.keys('landmarks', 'embedding');
      expect(withPlugins.known[0].subject).to.equal('raj');
    });

    it('a stranger is never a known face: its one subject, which Viseron reads as result["subjects"][0], is `unknown` at similarity 0, so Viseron reports an unknown face at confidence 0', async () => {
      const key = await server.createService({ name: 'viseron stranger', type: 'face-detection' });
      await python(server, 'viseron-train', key, await trainingFolder('stranger', { raj: [1, 2], leonard: [1, 2] }));
      const crops = await jpegs(path.join(folder, 'stranger-crops'), { penny: cropPath('penny', 2), bernadette: cropPath('bernadette', 2) });
      for (const stranger of ['penny', 'bernadette']) {
        const [answer] = await python(server, 'viseron-recognize', key, '0.5', crops[stranger]);
        expectValid(COMPREFACE_SCHEMA.recognize, answer.json, stranger);
        expect(answer.json.result.map((face: RecognizedFace) => face.subjects), stranger).to.deep.equal([STRANGER_SUBJECTS]);
        expect(answer.known, `${stranger} is no one Viseron knows`).to.deep.equal([]);
        expect(answer.unknown.map((face: { confidence: number }) => face.confidence), stranger).to.deep.equal([0]);
      }
    });

    it('an image without a face: 400 {"code": 28, …}, without "result", which it passes over', async () => {
      const key = await server.createService({ name: 'viseron no face', type: 'face-detection' });
      const [answer] = await python(server, 'viseron-recognize', key, '0.5', NO_FACE_PHOTO);
      expect(answer).to.deep.equal({ json: NO_FACE_ERROR, known: [], unknown: [] });
    });
  });

  describe('Home Assistant CompreFace component', () => {
    it('teaches a person from photos it checks with the detection service (one face kept; none, or several, left out), lists the subjects and deletes one', async () => {
      const key = await server.createService({ name: 'home assistant teach', type: 'face-detection' });
      const taught = await python(server, 'ha-teach', key, key, 'leonard', cropPath('leonard', 1), group('bbt1.jpg'), NO_FACE_PHOTO, cropPath('leonard', 2));
      expect(taught).to.have.length(1);
      const [teach] = taught;
      expect(teach).to.include({ single: 2, none: 1, multiple: 1 });
      expectValid(COMPREFACE_SCHEMA.detect, teach.detections[0], 'detect leonard1');
      expectValid(COMPREFACE_SCHEMA.detect, teach.detections[1], 'detect bbt1');
      expect(teach.detections[2]).to.deep.equal(NO_FACE_ERROR);
      expect(teach.added.map((example: { subject: string }) => example.subject)).to.deep.equal(['leonard', 'leonard']);
      for (const example of teach.added) expectValid(COMPREFACE_SCHEMA.example, example, 'add');
      await python(server, 'ha-teach', key, key, 'penny', cropPath('penny', 1));

      const [listed] = await python(server, 'ha-list', key);
      expectValid(COMPREFACE_SCHEMA.subjects, listed.json, 'list');
      expect(listed.subjects).to.have.members(['leonard', 'penny']);
      const [deleted] = await python(server, 'ha-delete', key, 'penny');
      expectValid(COMPREFACE_SCHEMA.subject, deleted.json, 'delete');
      expect(deleted.json).to.deep.equal({ subject: 'penny' });
      expect((await python(server, 'ha-list', key))[0].subjects).to.deep.equal(['leonard']);
    });

    it('scans bbt5 with everyone in it taught: each face named, matched at its min_confidence; detect-only counts the faces with their detection confidence', async () => {
      const key = await server.createService({ name: 'home assistant scan', type: 'face-detection' });
      const people = ['raj', 'penny', 'sheldon', 'leonard', 'howard'];
      for (const person of people) await python(server, 'ha-teach', key, key, person, cropPath(person, 1));
      const [scan] = await python(server, 'ha-process', key, key, 'recognize', '60', group('bbt5.jpg'));
      expectValid(COMPREFACE_SCHEMA.recognize, scan.json, 'recognize bbt5');
      // bbt5: Raj, Penny, Sheldon, Leonard, Howard, leaning in.
      const names = [...scan.faces].sort((a, b) => a.box.x_min - b.box.x_min).map((face: { name: string }) => face.name);
      expect(names).to.deep.equal(people);
      expect(scan.total_faces).to.equal(5);
      expect(scan.matched).to.have.members(people);

      const [detected] = await python(server, 'ha-process', key, key, 'detect', '60', group('bbt5.jpg'));
      expectValid(COMPREFACE_SCHEMA.detect, detected.json, 'detect bbt5');
      expect(detected.total_faces).to.equal(5);
      expect(detected.matched).to.deep.equal([]);
      for (const face of detected.faces) expect(face.confidence).to.be.closeTo(face.box.probability * 100, 0.001);
      const boxes = (faces: RecognizedFace[]) => leftToRight(faces).map((face) => face.box);
      expect(boxes(detected.json.result)).to.deep.equal(boxes(scan.json.result));
    });

    it('an image without a face: its message "No face is found in the given image" leaves the entity without faces', async () => {
      const key = await server.createService({ name: 'home assistant no face', type: 'face-detection' });
      for (const mode of ['recognize', 'detect']) {
        const [scan] = await python(server, 'ha-process', key, key, mode, '60', NO_FACE_PHOTO);
        expect(scan, mode).to.deep.equal({ json: NO_FACE_ERROR, total_faces: null, faces: [], matched: [] });
      }
    });

    it('a stranger is never matched: its one subject is `unknown` at similarity 0, which the component, naming a face after its subject of highest similarity above 0, leaves blank at confidence 0 — alone, or first in a scan', async () => {
      const key = await server.createService({ name: 'home assistant stranger', type: 'face-detection' });
      await python(server, 'ha-teach', key, key, 'leonard', cropPath('leonard', 1));
      const [alone] = await python(server, 'ha-process', key, key, 'recognize', '60', cropPath('penny', 2));
      expectValid(COMPREFACE_SCHEMA.recognize, alone.json, 'penny2');
      expect(alone.json.result.map((face: RecognizedFace) => face.subjects)).to.deep.equal([STRANGER_SUBJECTS]);
      expect(alone.faces.map(({ name, confidence }: { name: string; confidence: number }) => ({ name, confidence }))).to.deep.equal([{ name: '', confidence: 0 }]);
      expect([alone.total_faces, alone.matched]).to.deep.equal([1, []]);
      // bbt1: Raj, Leonard, Howard, Sheldon on a couch; only Leonard taught, and a stranger the first face.
      const [couch] = await python(server, 'ha-process', key, key, 'recognize', '60', group('bbt1.jpg'));
      expectValid(COMPREFACE_SCHEMA.recognize, couch.json, 'bbt1');
      const names = [...couch.faces].sort((a, b) => a.box.x_min - b.box.x_min).map((face: { name: string }) => face.name);
      expect(names).to.deep.equal(['', 'leonard', '', '']);
      expect(couch.matched).to.deep.equal(['leonard']);
    });
  });
});
