import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { schedulerOfService } from '../src/core/service-scheduler.js';
import { TASK_DESCRIPTIONS } from '../src/features/index.js';
import { compreFaceRouteTable } from '../src/features/faces/compreface/compreface-route-table.js';
import { STRANGER_SUBJECTS } from './support/compreface.js';
import { cropPath, FACES_DIR, GROUP_PHOTOS, registrationPhotos, WIDER_VAL_DIR } from './support/faces.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const schemas = new SchemaCatalogue();
/** The people registered here: the others of the group photos are strangers to the service. */
const REGISTERED = ['amy', 'penny', 'sheldon'];

interface Answer {
  readonly status: number;
  readonly body: any;
}

/** The answer's JSON, checked against the door's schema for it (a failure: compreface-error-response). */
async function answered(response: Response, schema: string): Promise<Answer> {
  const body = await response.json();
  const validity = schemas.check(response.ok ? schema : 'compreface-error-response', body);
  expect(validity, JSON.stringify(body).slice(0, 400)).to.deep.equal({ ok: true });
  return { status: response.status, body };
}

const photo = (file: string) => new Blob([new Uint8Array(fs.readFileSync(file))]);
const fileForm = (file: string | Buffer, field = 'file') => {
  const form = new FormData();
  form.append(field, typeof file === 'string' ? photo(file) : new Blob([new Uint8Array(file)]), 'photo.jpg');
  return form;
};
const leftToRight = <Face extends { box: { x_min: number } }>(faces: readonly Face[]) => [...faces].sort((a, b) => a.box.x_min - b.box.x_min);

/**
 * CompreFace's REST API on detectd (docs/faces.md "CompreFace's API"), as its documentation gives each call and
 * its clients send it: a real server, the embedded face model, the shared face photos; every answer
 * checked against the door's JSON Schemas.
 */
describe('CompreFace door: recognition, examples, subjects, detection and verification against the real server', function () {
  this.timeout(300_000);
  let server: TestServer;
  let key: string;
  const ids = new Map<string, string>();

  const call = (method: string, route: string, apiKey: string | undefined, body?: FormData | string, contentType?: string) =>
    fetch(`${server.url}${route}`, { method, headers: { ...(apiKey !== undefined && { 'x-api-key': apiKey }), ...(contentType && { 'Content-Type': contentType }) }, body });
  const recognize = async (file: string, query = '', apiKey = key) => answered(await call('POST', `/api/v1/recognition/recognize${query}`, apiKey, fileForm(file)), 'compreface-recognition-response');
  const addExample = async (apiKey: string, subject: string, file: string | Buffer) => answered(await call('POST', `/api/v1/recognition/faces?subject=${encodeURIComponent(subject)}`, apiKey, fileForm(file)), 'compreface-example-response');

  before(async () => {
    server = await startTestServer({ DETECTD_MAX_PENDING_REQUESTS: '1' });
    key = await server.createService({ name: 'double take', type: 'face-detection' });
    for (const person of REGISTERED) {
      const added = await addExample(key, person, cropPath(person, 1));
      expect(added.status).to.equal(200);
      expect(added.body.subject).to.equal(person);
      ids.set(person, added.body.image_id);
    }
  });
  after(async () => server?.close());

  it('recognize: each registered person in the group photos is named as who they are, and no stranger is named', async () => {
    let named = 0;
    for (const [file, people] of Object.entries(GROUP_PHOTOS)) {
      const { status, body } = await recognize(path.join(FACES_DIR, file));
      expect(status).to.equal(200);
      const faces = leftToRight(body.result as { box: { x_min: number }; subjects: { subject: string; similarity: number }[] }[]);
      expect(faces, file).to.have.length(people.length);
      for (const [index, face] of faces.entries()) {
        const person = people[index];
        if (!person || !REGISTERED.includes(person)) {
          expect(face.subjects, `${file}: face ${index} is a stranger`).to.deep.equal(STRANGER_SUBJECTS);
          continue;
        }
        // A registered person is named as who they are or (a face too small or turned) as no one, never as another.
        const [subject] = face.subjects;
        expect(face.subjects, `${file}: face ${index} is ${person} or no one`).to.deep.equal(subject.subject === person ? [subject] : STRANGER_SUBJECTS);
        if (subject.subject === person) {
          named += 1;
          expect(subject.similarity).to.be.above(0.65);
        }
      }
    }
    // Amy, Penny and Sheldon appear 9 times in the five photos.
    expect(named).to.be.at.least(7);
  });

  it('recognize: no face of other people\'s photos (WIDER) is named as one of the registered subjects', async () => {
    const folders = ['11--Meeting', '13--Interview', '16--Award_Ceremony', '19--Couple', '20--Family_Group', '49--Greeting', '50--Celebration_Or_Party', '51--Dresses'];
    let faces = 0;
    for (const folder of folders) {
      const directory = path.join(WIDER_VAL_DIR, 'images', folder);
      const photo = path.join(directory, fs.readdirSync(directory).sort()[0]);
      const { status, body } = await recognize(photo);
      if (status === 400) {
        expect(body.code, photo).to.equal(28);
        continue;
      }
      faces += body.result.length;
      for (const face of body.result) expect(face.subjects, photo).to.deep.equal(STRANGER_SUBJECTS);
    }
    expect(faces).to.be.at.least(10);
  });

  it('recognize: base64 JSON as multipart, plugins landmarks and calculator, status, limit', async () => {
    const file = path.join(FACES_DIR, 'bbt4.jpg');
    const json = await answered(await call('POST', '/api/v1/recognition/recognize?face_plugins=landmarks,calculator,age,gender,mask,pose&status=true', key, JSON.stringify({ file: fs.readFileSync(file).toString('base64') }), 'application/json'), 'compreface-recognition-response');
    const form = await recognize(file, '?face_plugins=landmarks,calculator,age,gender,mask,pose&status=true');
    for (const { body } of [json, form]) {
      expect(body.result).to.have.length(6);
      for (const face of body.result) {
        expect(face.landmarks).to.have.length(5);
        expect(face.embedding).to.have.length(128);
        expect(face).to.not.have.any.keys('age', 'gender', 'mask', 'pose');
        expect(face.execution_time.detector).to.be.a('number');
      }
      expect(body.plugins_versions.detector).to.match(/^detectd\./);
    }
    expect(json.body.result.map((face: { subjects: unknown }) => face.subjects)).to.deep.equal(form.body.result.map((face: { subjects: unknown }) => face.subjects));
    // CompreFace's JavaScript SDK joins the options after the first with "?" when it sends no limit.
    const joined = await answered(await call('POST', '/api/v1/detection/detect?det_prob_threshold=0.5?face_plugins=landmarks?status=true', key, fileForm(file)), 'compreface-detection-response');
    expect([joined.status, joined.body.result[0].landmarks.length, 'plugins_versions' in joined.body]).to.deep.equal([200, 5, true]);
    const plain = await recognize(file, '?limit=2');
    expect(plain.body.result).to.have.length(2);
    expect(plain.body).to.not.have.property('plugins_versions');
    expect(plain.body.result[0]).to.have.all.keys('box', 'subjects');
  });

  it('examples: listed a page at a time and by subject; a weak photo is taken with its warning; visible to the DeepStack face list', async () => {
    const weak = await addExample(key, 'penny', await registrationPhotos.soft(cropPath('penny', 2)));
    expect(weak.status).to.equal(200);
    expect(weak.body.warnings.map((warning: { reason: string }) => warning.reason)).to.not.be.empty;
    const page = await answered(await call('GET', '/api/v1/recognition/faces?page=0&size=2', key), 'compreface-examples-response');
    expect(page.body).to.include({ page_number: 0, page_size: 2, total_elements: 4, total_pages: 2 });
    expect(page.body.faces).to.have.length(2);
    const penny = await answered(await call('GET', '/api/v1/recognition/faces?subject=penny', key), 'compreface-examples-response');
    expect(penny.body.faces).to.deep.equal([{ image_id: ids.get('penny'), subject: 'penny' }, { image_id: weak.body.image_id, subject: 'penny' }]);
    const form = new FormData();
    form.append('api_key', key);
    const listed = await (await fetch(`${server.url}/v1/vision/face/list`, { method: 'POST', body: form })).json();
    expect(listed.faces).to.have.members(REGISTERED);
    expect(listed.people.find((person: { userid: string }) => person.userid === 'penny').photos).to.equal(2);
    const forgotten = await answered(await call('DELETE', `/api/v1/recognition/faces/${weak.body.image_id}`, key), 'compreface-example-response');
    expect(forgotten.body).to.deep.equal({ image_id: weak.body.image_id, subject: 'penny' });
  });

  it('verify an example: the same person above 0.65, another below 0.55', async () => {
    const verify = async (person: string, file: string) => answered(await call('POST', `/api/v1/recognition/faces/${ids.get(person)}/verify`, key, fileForm(file)), 'compreface-example-verification-response');
    expect((await verify('amy', cropPath('amy', 2))).body.result[0].similarity).to.be.above(0.65);
    expect((await verify('sheldon', cropPath('amy', 2))).body.result[0].similarity).to.be.below(0.55);
  });

  it('verification: the source face is most like itself among the target\'s faces, and like no one else', async () => {
    const form = fileForm(cropPath('sheldon', 3), 'source_image');
    form.append('target_image', photo(path.join(FACES_DIR, 'bbt1.jpg')), 'target.jpg');
    const { status, body } = await answered(await call('POST', '/api/v1/verification/verify', key, form), 'compreface-verification-response');
    expect(status).to.equal(200);
    const similarities = leftToRight(body.result[0].face_matches).map((face: any) => face.similarity);
    // bbt1: Raj, Leonard, Howard, Sheldon.
    expect(similarities[3]).to.be.above(0.65);
    expect(similarities.slice(0, 3).every((similarity: number) => similarity < 0.55)).to.equal(true);
  });

  it('detection answers a face service\'s key: faces, landmarks, no subjects', async () => {
    const { status, body } = await answered(await call('POST', '/api/v1/detection/detect?face_plugins=landmarks', key, fileForm(path.join(FACES_DIR, 'bbt5.jpg'))), 'compreface-detection-response');
    expect(status).to.equal(200);
    expect(body.result).to.have.length(5);
    expect(body.result.every((face: object) => !('subjects' in face) && 'landmarks' in face)).to.equal(true);
  });

  it('subjects: created, listed, renamed (merged into an existing one), forgotten; examples forgotten by subject and in bulk', async () => {
    const apiKey = await server.createService({ name: 'viseron', type: 'face-detection' });
    const subjects = async () => (await answered(await call('GET', '/api/v1/recognition/subjects', apiKey), 'compreface-subjects-response')).body.subjects;
    const json = (value: unknown) => JSON.stringify(value);
    expect((await answered(await call('POST', '/api/v1/recognition/subjects', apiKey, json({ subject: 'Raj' }), 'application/json'), 'compreface-subject-response')).body).to.deep.equal({ subject: 'Raj' });
    const again = await answered(await call('POST', '/api/v1/recognition/subjects', apiKey, json({ subject: 'raj' }), 'application/json'), 'compreface-subject-response');
    expect([again.status, again.body.code]).to.deep.equal([400, 43]);
    const raj = await addExample(apiKey, 'Raj', cropPath('raj', 1));
    const koothrappali = await addExample(apiKey, 'Koothrappali', cropPath('raj', 2));
    expect(await subjects()).to.deep.equal(['Koothrappali', 'Raj']);
    expect((await answered(await call('PUT', '/api/v1/recognition/subjects/Koothrappali', apiKey, json({ subject: 'Raj' }), 'application/json'), 'compreface-subject-updated-response')).body).to.deep.equal({ updated: true });
    expect(await subjects()).to.deep.equal(['Raj']);
    const rajs = await answered(await call('GET', '/api/v1/recognition/faces?subject=raj', apiKey), 'compreface-examples-response');
    expect(rajs.body.faces.map((face: { image_id: string }) => face.image_id)).to.have.members([raj.body.image_id, koothrappali.body.image_id]);
    const bulk = await answered(await call('POST', '/api/v1/recognition/faces/delete', apiKey, json([raj.body.image_id, 'no-such-id']), 'application/json'), 'compreface-examples-deleted-response');
    expect(bulk.body).to.deep.equal([{ image_id: raj.body.image_id, subject: 'Raj' }]);
    expect((await answered(await call('DELETE', '/api/v1/recognition/faces?subject=Raj', apiKey), 'compreface-deleted-response')).body).to.deep.equal({ deleted: 1 });
    expect(await subjects()).to.deep.equal(['Raj']);
    expect((await answered(await call('DELETE', '/api/v1/recognition/subjects/Raj', apiKey), 'compreface-subject-response')).body).to.deep.equal({ subject: 'Raj' });
    await addExample(apiKey, 'Howard', cropPath('howard', 1));
    expect((await answered(await call('DELETE', '/api/v1/recognition/subjects', apiKey), 'compreface-deleted-response')).body).to.deep.equal({ deleted: 1 });
    expect(await subjects()).to.deep.equal([]);
  });

  it('image routes: detectd keeps no example photo, so both answer CompreFace\'s empty body; the static route checks its key', async () => {
    for (const route of [`/api/v1/recognition/faces/${ids.get('amy')}/img`, `/api/v1/static/${key}/images/${ids.get('amy')}`]) {
      const response = await call('GET', route, route.includes('/static/') ? undefined : key);
      expect([response.status, (await response.arrayBuffer()).byteLength]).to.deep.equal([200, 0]);
    }
    const refused = await answered(await call('GET', `/api/v1/static/dtd_${'x'.repeat(43)}/images/${ids.get('amy')}`, undefined), 'none');
    expect([refused.status, refused.body.code]).to.deep.equal([404, 10]);
    // The key in the static URL is never logged.
    expect(server.logText()).to.include('/api/v1/static/dtd_…/images/').and.not.include(key);
  });

  it('a face service\'s rate limit counts recognitions, not management calls; its refusal says when to retry', async () => {
    const apiKey = await server.createService({ name: 'limited', type: 'face-detection' });
    await server.domain.services.setLimits((await server.domain.keys.authenticate(apiKey))!, { rateLimitPerMinute: 2, monthlyQuota: null });
    const bbt1 = path.join(FACES_DIR, 'bbt1.jpg');
    expect((await recognize(bbt1, '', apiKey)).status).to.equal(200);
    expect((await recognize(bbt1, '', apiKey)).status).to.equal(200);
    const response = await call('POST', '/api/v1/recognition/recognize', apiKey, fileForm(bbt1));
    const refused = await answered(response, 'none');
    expect([refused.status, refused.body.code, Number(response.headers.get('retry-after')) > 0]).to.deep.equal([429, 0, true]);
    expect((await answered(await call('GET', '/api/v1/recognition/subjects', apiKey), 'compreface-subjects-response')).status).to.equal(200);
  });

  it('the service remembers unknown faces seen through this door; a subject added here is corrected over REST like any person', async () => {
    const apiKey = await server.createService({ name: 'remembers', type: 'face-detection' });
    const rest = (method: string, route: string, body?: unknown) =>
      fetch(`${server.url}/api/v1/face-detection${route}`, { method, headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then((response) => response.json());
    await rest('PUT', '/unknown-people/settings', { remember: true });
    await addExample(apiKey, 'leonard', cropPath('leonard', 1));
    expect((await recognize(path.join(FACES_DIR, 'bbt1.jpg'), '', apiKey)).status).to.equal(200);
    expect((await rest('GET', '/unknown-people')).unknown_people).to.have.length(3);
    const not = await rest('POST', '/people/leonard/not', { raw_data: fs.readFileSync(cropPath('howard', 1)).toString('base64') });
    expect(not.person).to.include({ userid: 'leonard', photos: 1, negatives: 1 });
  });

  it('management calls answer while the face model is busy; analyses are refused in CompreFace\'s shape', async () => {
    const service = (await server.domain.keys.authenticate(key))!;
    const leave = schedulerOfService(server.schedulers, service, server.tasks.named('face-detection').lead).admit();
    try {
      const refused = await recognize(path.join(FACES_DIR, 'bbt1.jpg'));
      expect([refused.status, refused.body.code]).to.deep.equal([503, 0]);
      expect((await answered(await call('GET', '/api/v1/recognition/subjects', key), 'compreface-subjects-response')).body.subjects).to.have.members(REGISTERED);
      expect((await answered(await call('GET', '/api/v1/recognition/faces', key), 'compreface-examples-response')).status).to.equal(200);
    } finally {
      leave();
    }
  });

  it('the reference publishes each route with the schema its answers are checked against here, and CompreFace\'s error shape', async () => {
    const reference = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    const title = (name: string) => `#/components/schemas/${String(schemas.schemas.get(name)!.title)}`;
    const routes = compreFaceRouteTable(TASK_DESCRIPTIONS.named('face-detection'));
    expect(routes).to.have.length(16);
    for (const route of routes) {
      const operation = reference.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method];
      const success = operation.responses['200'].content;
      if (route.answerSchema) expect(success['application/json'].schema.$ref, route.operationId).to.equal(title(route.answerSchema));
      else expect(Object.keys(success), route.operationId).to.deep.equal(['application/octet-stream']);
      for (const [status, response] of Object.entries(operation.responses).filter(([status]) => status !== '200') as [string, any][]) {
        expect(response.content['application/json'].schema.$ref, `${route.operationId} ${status}`).to.equal(title('compreface-error-response'));
      }
    }
  });

  it('hostile and wrong input, the reserved subject `unknown` among them: CompreFace\'s statuses and codes, never a 500', async () => {
    const objectKey = await server.createService({ name: 'objects', type: 'object-detection' });
    const refusal = async (response: Promise<Response>) => {
      const { status, body } = await answered(await response, 'none');
      return [status, body.code];
    };
    const bbt1 = path.join(FACES_DIR, 'bbt1.jpg');
    expect(await refusal(call('POST', '/api/v1/recognition/recognize', key, fileForm(photoPath('dog.jpg'))))).to.deep.equal([400, 28]);
    expect(await refusal(call('POST', '/api/v1/recognition/faces?subject=dog', key, fileForm(photoPath('dog.jpg'))))).to.deep.equal([400, 28]);
    expect(await refusal(call('POST', '/api/v1/detection/detect', key, fileForm(photoPath('dog.jpg'))))).to.deep.equal([400, 28]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize', undefined, fileForm(bbt1)))).to.deep.equal([400, 20]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize', objectKey, fileForm(bbt1)))).to.deep.equal([404, 10]);
    expect(await refusal(call('GET', '/api/v1/recognition/subjects', objectKey))).to.deep.equal([404, 10]);
    expect(await refusal(call('POST', '/api/v1/detection/detect', 'not-a-key', fileForm(bbt1)))).to.deep.equal([404, 10]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize?det_prob_threshold=2', key, fileForm(bbt1)))).to.deep.equal([400, 36]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize?limit=-1', key, fileForm(bbt1)))).to.deep.equal([400, 36]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize?status=maybe', key, fileForm(bbt1)))).to.deep.equal([400, 36]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize', key, fileForm(Buffer.from('not an image'))))).to.deep.equal([400, 21]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize', key, fileForm(bbt1, 'image')))).to.deep.equal([400, 34]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize', key, JSON.stringify({ file: '%%%' }), 'application/json'))).to.deep.equal([400, 21]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize', key, '{"file": ', 'application/json'))).to.deep.equal([400, 26]);
    expect(await refusal(call('POST', '/api/v1/recognition/recognize', key, 'raw', 'text/plain'))).to.deep.equal([415, 0]);
    expect(await refusal(call('POST', '/api/v1/recognition/faces', key, fileForm(cropPath('amy', 2))))).to.deep.equal([400, 33]);
    expect(await refusal(call('POST', '/api/v1/recognition/faces?subject=amy', key, fileForm(await registrationPhotos.undescribable(cropPath('amy', 2)))))).to.deep.equal([400, 26]);
    expect(await refusal(call('POST', `/api/v1/recognition/faces?subject=${'x'.repeat(201)}`, key, fileForm(cropPath('amy', 2))))).to.deep.equal([400, 36]);
    // `unknown` is what the door calls a face it names no one for: no subject may be called so, in any case or spacing.
    const reserved = await answered(await call('POST', '/api/v1/recognition/faces?subject=Unknown', key, fileForm(cropPath('amy', 2))), 'none');
    expect([reserved.status, reserved.body.code, reserved.body.message]).to.deep.equal([400, 36, '"Unknown" is what a face no one is named for is called: choose another userid']);
    expect(await refusal(call('POST', '/api/v1/recognition/faces?subject=%20unknown%20', key, fileForm(cropPath('amy', 2))))).to.deep.equal([400, 36]);
    expect(await refusal(call('POST', '/api/v1/recognition/subjects', key, JSON.stringify({ subject: 'UNKNOWN' }), 'application/json'))).to.deep.equal([400, 36]);
    expect(await refusal(call('PUT', '/api/v1/recognition/subjects/amy', key, JSON.stringify({ subject: 'unknown' }), 'application/json'))).to.deep.equal([400, 36]);
    expect((await answered(await call('GET', '/api/v1/recognition/subjects', key), 'compreface-subjects-response')).body.subjects, 'nothing refused changed the subjects').to.have.members(REGISTERED);
    expect(await refusal(call('GET', '/api/v1/recognition/faces?page=-1', key))).to.deep.equal([400, 36]);
    expect(await refusal(call('GET', `/api/v1/recognition/faces?page=${Number.MAX_SAFE_INTEGER}&size=1000`, key))).to.deep.equal([400, 36]);
    expect(await refusal(call('POST', '/api/v1/recognition/faces/delete', key, JSON.stringify(Array.from({ length: 1001 }, (_, index) => String(index))), 'application/json'))).to.deep.equal([400, 36]);
    expect(await refusal(call('POST', '/api/v1/recognition/faces/delete', key, JSON.stringify([1, 2]), 'application/json'))).to.deep.equal([400, 26]);
    expect(await refusal(call('DELETE', '/api/v1/recognition/faces/no-such-id', key))).to.deep.equal([404, 11]);
    expect(await refusal(call('POST', '/api/v1/recognition/faces/no-such-id/verify', key, fileForm(bbt1)))).to.deep.equal([404, 11]);
    expect(await refusal(call('PUT', '/api/v1/recognition/subjects/nobody', key, JSON.stringify({ subject: 'x' }), 'application/json'))).to.deep.equal([404, 42]);
    expect(await refusal(call('DELETE', '/api/v1/recognition/subjects/nobody', key))).to.deep.equal([404, 42]);
    expect(await refusal(call('POST', '/api/v1/recognition/subjects', key, JSON.stringify({ name: 'x' }), 'application/json'))).to.deep.equal([400, 26]);
    expect(await refusal(call('POST', '/api/v1/recognition/faces/delete', key, JSON.stringify({ ids: [] }), 'application/json'))).to.deep.equal([400, 26]);
    expect(await refusal(call('PATCH', '/api/v1/recognition/subjects', key))).to.deep.equal([405, 0]);
    expect(await refusal(call('GET', '/api/v1/recognition/nothing-here', key))).to.deep.equal([404, 0]);
    expect(await refusal(call('GET', '/api/v1/recognition/faces/%zz/img', key))).to.deep.equal([400, 26]);
  });
});
