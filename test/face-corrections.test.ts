import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import sharp, { type Sharp } from 'sharp';
import { cropPath, FACES_DIR, registrationPhotos, WIDER_VAL_DIR } from './support/faces.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { faceTables } from '../src/features/faces/gallery/face-tables.js';

const SCHEMAS = new SchemaCatalogue();
/** A correction's answer, checked against its published schema. */
function expectPublished(body: unknown) {
  expect(SCHEMAS.check('face-person-response', body)).to.deep.equal({ ok: true });
}

const PEOPLE = ['amy', 'bernadette', 'howard', 'leonard', 'penny', 'raj', 'sheldon', 'stuart'];
const base64 = (file: string) => fs.readFileSync(file).toString('base64');
const png = (image: Sharp) => image.png().toBuffer();
/** A face turned far sideways, sharp and large: the balloonist of a WIDER FACE validation photo (nose-tip yaw −0.89), cut out with the scene around it. */
const TURNED = { file: path.join(WIDER_VAL_DIR, 'images', '45--Balloonist', '45_Balloonist_Balloonist_45_149.jpg'), region: { left: 370, top: 175, width: 420, height: 560 } };

interface Face {
  name: string;
  bounding_box: { left: number; top: number; right: number; bottom: number };
}

/**
 * Corrections of a face service's gallery over REST (docs/faces.md "Corrections" and "Registration
 * quality"), on the real server with the embedded YuNet and ../shared/eval/faces.
 */
describe('face corrections: "not this person", "add this face", the registration quality check (real server, real photos)', function () {
  this.timeout(300_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL });
  });
  after(async () => server?.close());

  const call = async (key: string, route: string, body: BodyInit, contentType?: string): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${server.url}/api/v1/face-detection${route}`, { method: 'POST', headers: { Authorization: `ApiKey ${key}`, ...(contentType && { 'Content-Type': contentType }) }, body });
    return { status: response.status, body: await response.json() };
  };
  const json = (key: string, route: string, body: unknown) => call(key, route, JSON.stringify(body), 'application/json');
  const names = async (key: string, image: Buffer): Promise<Face[]> => {
    const answer = await json(key, '', { raw_data: image.toString('base64') });
    expect(answer.status).to.equal(200);
    return [...(answer.body.detected_faces as Face[])].sort((a, b) => a.bounding_box.left - b.bounding_box.left);
  };
  const nameOf = async (key: string, file: string) => (await names(key, fs.readFileSync(file))).map((face) => face.name);
  /** DeepStack's register of `photos` (as `image`, `image1`, …) under `userid`. */
  const register = async (key: string, userid: string, photos: Buffer[]): Promise<{ status: number; body: any }> => {
    const form = new FormData();
    photos.forEach((photo, index) => form.append(index === 0 ? 'image' : `image${index}`, new Blob([new Uint8Array(photo)]), `photo${index}`));
    form.append('userid', userid);
    const response = await fetch(`${server.url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: form });
    return { status: response.status, body: await response.json() };
  };

  it('a "not this person" example stops a look-alike being named as the person, while their own photos still are', async () => {
    const key = await server.createService({ name: 'look-alikes', type: 'face-detection' });
    // Penny's third crop and Bernadette's second are 0.60 alike (just under the default threshold): at a service threshold of 0.52, Penny's photo names Bernadette as Penny.
    const added = await json(key, '/people/penny/add', { raw_data: base64(cropPath('penny', 3)) });
    expect(added.status).to.equal(200);
    expect(added.body).to.deep.include({ new_person: true, person: { ...added.body.person, userid: 'penny', photos: 1, negatives: 0 } });
    expectPublished(added.body);
    await faceTables(server.db).updateTable('services').set({ face_match_threshold: 0.52 }).where('id', '=', added.body.service_id).execute();
    expect(await nameOf(key, cropPath('bernadette', 2))).to.deep.equal(['penny']);

    const not = await json(key, '/people/Penny/not', { raw_data: base64(cropPath('bernadette', 2)) });
    expect(not.status).to.equal(200);
    expect(not.body.person).to.include({ userid: 'penny', photos: 1, negatives: 1 });
    expectPublished(not.body);
    expect(await nameOf(key, cropPath('bernadette', 2))).to.deep.equal(['unknown']);
    for (const index of [1, 2, 4, 5]) expect(await nameOf(key, cropPath('penny', index)), `penny${index}`).to.deep.equal(['penny']);

    // Stored as the samples are: encrypted, one row, gone with the person.
    const rows = await faceTables(server.db).selectFrom('face_negatives').selectAll().execute();
    expect(rows).to.have.length(1);
    expect(Buffer.from(rows[0].descriptor_ciphertext, 'base64').length).to.be.above(128 * 4);
    const missing = await json(key, '/people/howard/not', { raw_data: base64(cropPath('howard', 1)) });
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('unknown_person');
    const form = new FormData();
    form.append('userid', 'penny');
    await fetch(`${server.url}/v1/vision/face/delete`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: form });
    expect(await faceTables(server.db).selectFrom('face_negatives').selectAll().execute()).to.deep.equal([]);
  });

  it('adds a chosen face of a group photo to a person (raw image, box in the query) and to a new person (form upload), then names them there', async () => {
    const key = await server.createService({ name: 'add faces', type: 'face-detection' });
    const group = fs.readFileSync(path.join(FACES_DIR, 'bbt1.jpg'));
    // bbt1: Raj, Leonard, Howard, Sheldon from left to right.
    const faces = await names(key, group);
    expect(faces.map((face) => face.name)).to.deep.equal(['face', 'face', 'face', 'face']);
    const { left, top, right, bottom } = faces[1].bounding_box;
    const leonard = await call(key, `/people/leonard/add?box=${left},${top},${right},${bottom}`, new Uint8Array(group), 'image/jpeg');
    expect(leonard.status).to.equal(200);
    expect(leonard.body.face.bounding_box).to.deep.equal(faces[1].bounding_box);
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(fs.readFileSync(cropPath('raj', 1)))]), 'raj1.png');
    const raj = await call(key, '/people/raj/add', form);
    expect(raj.status).to.equal(200);
    expect(raj.body).to.include({ new_person: true });
    expect((await names(key, group)).map((face) => face.name)).to.deep.equal(['raj', 'leonard', 'unknown', 'unknown']);

    const nowhere = await call(key, '/people/howard/add?box=1,1,20,20', new Uint8Array(group), 'image/jpeg');
    expect(nowhere.status).to.equal(400);
    expect(nowhere.body.error).to.include({ code: 'no_face', message: 'no face found at the box given' });
    const badBox = await json(key, '/people/howard/add', { raw_data: group.toString('base64'), box: '10,10,5,5' });
    expect(badBox.status).to.equal(400);
    expect(badBox.body.error.code).to.equal('invalid_request');
    const plate = await json(key, '/people/howard/add', { raw_data: group.toString('base64'), box: 'everything' });
    expect(plate.body.error.code).to.equal('invalid_request');
  });

  it('refuses a photo of several faces with none chosen, naming how many and how to choose; takes the subject of a photo framed around one person with a neighbour at its edge', async () => {
    const key = await server.createService({ name: 'several faces', type: 'face-detection' });
    const group = fs.readFileSync(path.join(FACES_DIR, 'bbt1.jpg'));
    const several = /^the photo shows 4 faces \(\d+, \d+, \d+ and \d+ px tall\) and none stands out as the person's: one must be at least 1\.5 × as prominent as every other \(larger, nearer the middle\)/;
    const rest = await json(key, '/people/leonard/add', { raw_data: group.toString('base64') });
    expect(rest.status, JSON.stringify(rest.body)).to.equal(422);
    expect(rest.body.error.code).to.equal('unusable_face');
    expect(rest.body.error.message.replace("the photo's face cannot be registered: ", '')).to.match(several).and.to.match(/: choose the face with `box` \(left,top,right,bottom: its bounding_box in a detection answer\), or send a photo of the person alone$/);

    const alone = await register(key, 'leonard', [group]);
    expect(alone.status).to.equal(422);
    expect(alone.body).to.include({ success: false, code: 422 });
    expect(alone.body.error.replace('image: ', '')).to.match(several).and.to.match(/: send a photo of the person alone \(or cropped to their face\), or add the face by its box on POST \/api\/v1\/\{service type\}\/people\/\{userid\}\/add$/);
    const beside = await register(key, 'leonard', [group, fs.readFileSync(cropPath('leonard', 1))]);
    expect(beside.status).to.equal(200);
    expect(beside.body.faces_taken.map((face: { image: string }) => face.image)).to.deep.equal(['image1']);
    expect(beside.body.faces_refused.map(({ image, reason }: { image: string; reason: string }) => [image, reason])).to.deep.equal([['image', 'several']]);
    const listed = await fetch(`${server.url}/v1/vision/face/list`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` } });
    expect((await listed.json()).faces).to.deep.equal(['leonard']);

    // A news photo of Raj: bbt5 cut to a square 2.27 faces wide around his face, brought to a 110 px face; Penny's face is cut by its edge.
    const bbt5 = fs.readFileSync(path.join(FACES_DIR, 'bbt5.jpg'));
    const raj = (await names(key, bbt5))[0].bounding_box;
    const side = 2.27 * (raj.bottom - raj.top);
    const left = Math.max(0, Math.round((raj.left + raj.right - side) / 2));
    const top = Math.max(0, Math.round((raj.top + raj.bottom - side) / 2));
    const news = await sharp(bbt5).extract({ left, top, width: Math.round(side), height: Math.round(side) }).resize(250).jpeg({ quality: 80 }).toBuffer();
    expect(await names(key, news), 'Raj and the edge of Penny').to.have.length(2);
    const subject = await register(key, 'raj', [news]);
    expect(subject.status, JSON.stringify(subject.body)).to.equal(200);
    expect(subject.body.faces_refused).to.deep.equal([]);
    for (const index of [1, 2, 3]) expect(await nameOf(key, cropPath('raj', index)), `raj${index}`).to.deep.equal(['raj']);
  });

  it('takes an ordinary soft photo and a turned face with a warning, refuses a face too blurred or too small to describe with the reason, over REST and on DeepStack\'s register', async () => {
    const key = await server.createService({ name: 'quality', type: 'face-detection' });
    const soft = await registrationPhotos.soft(cropPath('amy', 1));
    const undescribable = await registrationPhotos.undescribable(cropPath('amy', 3));
    const tiny = await registrationPhotos.tiny();
    const turned = await png(sharp(TURNED.file).extract(TURNED.region));
    for (const [photo, reason] of [[undescribable, /^the photo's face cannot be registered: the face is too blurred to describe \(sharpness [0-3]; at least 4 needed\)$/], [tiny, /^the photo's face cannot be registered: the face is 1\d px tall, too small to describe: a registration photo's face must be at least 24 px tall$/]] as const) {
      const answer = await json(key, '/people/amy/add', { raw_data: photo.toString('base64') });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(422);
      expect(answer.body.error.code).to.equal('unusable_face');
      expect(answer.body.error.message).to.match(reason);
    }
    expect((await faceTables(server.db).selectFrom('face_people').selectAll().execute()).filter((person) => person.userid === 'amy')).to.deep.equal([]);
    const weakSamples = async () => (await faceTables(server.db).selectFrom('face_samples').innerJoin('face_people', 'face_people.id', 'face_samples.person_id').select('face_samples.weak').where('face_people.userid', '=', 'amy').execute()).map((row) => row.weak);

    const softAdded = await json(key, '/people/amy/add', { raw_data: soft.toString('base64') });
    expect(softAdded.status, JSON.stringify(softAdded.body)).to.equal(200);
    expectPublished(softAdded.body);
    expect(softAdded.body.warnings).to.have.length(1);
    expect(softAdded.body.warnings[0]).to.include({ reason: 'soft' });
    expect(softAdded.body.warnings[0].message).to.match(/^the face is soft \(sharpness \d+; 15 or more describes its person more surely\)$/);
    const turnedAdded = await json(key, '/people/amy/add', { raw_data: turned.toString('base64') });
    expect(turnedAdded.body.warnings.map((warning: { reason: string }) => warning.reason)).to.deep.equal(['turned']);
    expect(turnedAdded.body.warnings[0].message).to.match(/^the face is turned sideways \(yaw -0\.\d\d; a face within ±0\.6 describes its person more surely\)$/);
    const goodAdded = await json(key, '/people/amy/add', { raw_data: base64(cropPath('amy', 2)) });
    expect(goodAdded.body.warnings).to.deep.equal([]);
    expect(await weakSamples()).to.have.members([1, 1, 0]);

    const mixed = await register(key, 'howard', [fs.readFileSync(cropPath('howard', 1)), await registrationPhotos.soft(cropPath('howard', 2)), await registrationPhotos.undescribable(cropPath('amy', 3)), tiny]);
    expect(mixed.status).to.equal(200);
    expect(mixed.body).to.include({ success: true, message: 'face added' });
    expect(mixed.body.faces_taken.map((face: { image: string }) => face.image)).to.deep.equal(['image', 'image1']);
    expect(mixed.body.faces_weak.map(({ image, reason }: { image: string; reason: string }) => [image, reason])).to.deep.equal([['image1', 'soft']]);
    expect(mixed.body.faces_refused.map(({ image, reason }: { image: string; reason: string }) => [image, reason])).to.deep.equal([['image2', 'blurred'], ['image3', 'small']]);
    const poorOnly = await register(key, 'raj', [tiny, undescribable]);
    expect(poorOnly.status).to.equal(422);
    expect(poorOnly.body).to.include({ success: false, code: 422 });
    expect(poorOnly.body.error).to.match(/^image: the face is 1\d px tall, too small to describe.*; image1: the face is too blurred to describe/);
  });

  it('corrects with a kept unknown face by its face_id: "not" keeps it unknown, "add" makes it the person\'s and it leaves the unknown people; a far kept face is added or named weak', async () => {
    const key = await server.createService({ name: 'kept faces', type: 'face-detection' });
    const api = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${server.url}/api/v1/face-detection${route}`, { method, headers: { Authorization: `ApiKey ${key}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    };
    await json(key, '/people/penny/add', { raw_data: base64(cropPath('penny', 1)) });
    expect((await api('PUT', '/unknown-people/settings', { remember: true })).body).to.include({ remember: true });
    expect(await nameOf(key, cropPath('bernadette', 2))).to.deep.equal(['unknown']);
    const [group] = (await api('GET', '/unknown-people')).body.unknown_people;
    const [face] = (await api('GET', `/unknown-people/${group.id}`)).body.faces;

    const not = await json(key, '/people/penny/not', { face_id: face.id });
    expect(not.status).to.equal(200);
    expect(not.body).to.deep.include({ face: { face_id: face.id } });
    expect(not.body.person).to.include({ userid: 'penny', negatives: 1 });
    expectPublished(not.body);
    expect((await api('GET', '/unknown-people')).body.unknown_people).to.have.length(1);

    const add = await json(key, '/people/bernadette/add', { face_id: face.id });
    expect(add.status).to.equal(200);
    expect(add.body).to.deep.include({ new_person: true, face: { face_id: face.id }, warnings: [] });
    expectPublished(add.body);
    expect((await api('GET', '/unknown-people')).body.unknown_people).to.deep.equal([]);
    expect(await faceTables(server.db).selectFrom('unknown_faces').select('id').where('id', '=', face.id).execute()).to.deep.equal([]);
    expect(await nameOf(key, cropPath('bernadette', 2))).to.deep.equal(['bernadette']);

    // A kept face is judged by its height alone: Howard's face 40 px tall in a camera's frame is added, weak.
    const far = async (person: string) => {
      const photo = await sharp(await sharp(cropPath(person, 1)).resize(40, 40).png().toBuffer()).extend({ top: 180, bottom: 180, left: 180, right: 180, background: '#808080' }).png().toBuffer();
      expect(await names(key, photo)).to.have.length(1);
      const [group] = (await api('GET', '/unknown-people')).body.unknown_people;
      return group.id as string;
    };
    const [farFace] = (await api('GET', `/unknown-people/${await far('howard')}`)).body.faces;
    const farAdded = await json(key, '/people/howard/add', { face_id: farFace.id });
    expectPublished(farAdded.body);
    expect(farAdded.body.warnings.map((warning: { reason: string }) => warning.reason)).to.deep.equal(['small']);
    expect(farAdded.body.warnings[0].message).to.match(/^the face is \d\d px tall; a face at least 48 px tall describes its person more surely$/);
    // So is an unknown person's far face when the unknown person is named.
    const farNamed = await api('POST', `/unknown-people/${await far('raj')}/name`, { userid: 'raj' });
    expect(farNamed.body).to.include({ userid: 'raj', registered_faces: 1, weak_faces: 1 });

    const gone = await json(key, '/people/bernadette/add', { face_id: face.id });
    expect([gone.status, gone.body.error.code]).to.deep.equal([404, 'unknown_person']);
    const both = await json(key, '/people/bernadette/add', { face_id: face.id, raw_data: base64(cropPath('amy', 1)) });
    expect([both.status, both.body.error.code]).to.deep.equal([400, 'invalid_request']);
  });

  it('answers hostile calls with a precise 4xx JSON error', async () => {
    const key = await server.createService({ name: 'hostile', type: 'face-detection' });
    const objects = await server.createService({ name: 'objects', type: 'object-detection' });
    const photo = base64(cropPath('amy', 1));
    const refusals: [Promise<{ status: number; body: any }>, number, string][] = [
      [json(key, '/people/amy/add', { raw_data: 'not base64!' }), 400, 'invalid_base64'],
      [json(key, '/people/amy/add', { raw_data: Buffer.from('not an image').toString('base64') }), 400, 'invalid_image'],
      [json(key, '/people/amy/add', ['raw_data']), 400, 'invalid_request'],
      [json(key, '/people/amy/add', { raw_data: photo, box: '1,2,3' }), 400, 'invalid_request'],
      [json(key, '/people/amy/add', { raw_data: photo, face_id: 'x' }), 400, 'invalid_request'],
      [call(key, '/people/amy/add', '{', 'application/json'), 400, 'invalid_json'],
      [call(key, '/people/amy/add', 'text', 'text/plain'), 415, 'unsupported_media_type'],
      [call(key, '/people/amy/add?frame_id=1', new Uint8Array(fs.readFileSync(cropPath('amy', 1))), 'image/png'), 400, 'invalid_request'],
      [json(key, `/people/${'x'.repeat(201)}/add`, { raw_data: photo }), 400, 'invalid_configuration'],
      // `unknown` is what a face named no one is called: no person may be, in any case.
      [json(key, '/people/unknown/add', { raw_data: photo }), 400, 'invalid_configuration'],
      [json(key, '/people/UnKnown/add', { raw_data: photo }), 400, 'invalid_configuration'],
      [json(key, '/people/nobody/not', { raw_data: photo }), 404, 'unknown_person'],
      [json('dtd_wrong', '/people/amy/add', { raw_data: photo }), 401, 'unauthorized'],
    ];
    for (const [index, [answer, status, code]] of refusals.entries()) {
      const { status: got, body } = await answer;
      expect([got, body.error?.code], `refusal ${index}: ${JSON.stringify(body)}`).to.deep.equal([status, code]);
    }
    const objectService = await fetch(`${server.url}/api/v1/object-detection/people/amy/add`, { method: 'POST', headers: { Authorization: `ApiKey ${objects}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ raw_data: photo }) });
    expect([objectService.status, (await objectService.json()).error.code]).to.deep.equal([404, 'not_found']);
    const get = await fetch(`${server.url}/api/v1/face-detection/people/amy/not`, { headers: { Authorization: `ApiKey ${key}` } });
    expect([get.status, get.headers.get('allow'), (await get.json()).error.code]).to.deep.equal([405, 'POST', 'method_not_allowed']);
  });

  it('passes every shared face crop (8 people × 5) on DeepStack\'s register', async () => {
    const key = await server.createService({ name: 'all crops', type: 'face-detection' });
    for (const person of PEOPLE) {
      const form = new FormData();
      for (const index of [1, 2, 3, 4, 5]) form.append(index === 1 ? 'image' : `image${index}`, new Blob([new Uint8Array(fs.readFileSync(cropPath(person, index)))]), `${person}${index}.png`);
      form.append('userid', person);
      const answer = await (await fetch(`${server.url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: form })).json();
      expect(answer.faces_refused, person).to.deep.equal([]);
      expect(answer.faces_weak, person).to.deep.equal([]);
      expect(answer.faces_taken, person).to.have.length(5);
    }
  });
});
