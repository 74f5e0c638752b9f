import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { schedulerOfService } from '../src/core/service-scheduler.js';
import type { Service } from '../src/core/service.js';
import { cropPath, FACES_DIR } from './support/faces.js';
import { SHARED_DIR } from './support/paths.js';
import { plateModelsFolder } from './support/plate-models.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const GROUP_PHOTO = path.join(FACES_DIR, 'bbt1.jpg');
const PLATE_PHOTO = path.join(SHARED_DIR, 'eval', 'plates', 'images', 'us', 'wts-lg-000014.jpg');

/** How a service's model is kept from analysing, and the refusal an analysis then gets. */
interface Condition {
  readonly name: string;
  readonly refusal: { status: number; code: string };
  /** Puts the service in the condition; returns what ends it (or nothing). */
  apply(server: TestServer, service: Service): Promise<(() => void) | undefined>;
}

const CONDITIONS: readonly Condition[] = [
  {
    name: 'unloaded',
    refusal: { status: 503, code: 'model_unavailable' },
    async apply(server, service) {
      // A model this server did not load, as after a restart without it.
      await server.db.updateTable('services').set({ model: 'a-model-this-server-has-not-loaded' }).where('id', '=', service.id).execute();
      return undefined;
    },
  },
  {
    name: 'busy',
    refusal: { status: 503, code: 'overloaded' },
    // Every place of the model's request lane taken (the server admits one request at a time here).
    apply: async (server, service) => schedulerOfService(server.schedulers, service, server.tasks.named(service.type).lead).admit(),
  },
  {
    name: 'over quota',
    refusal: { status: 429, code: 'quota_exceeded' },
    async apply(server, service) {
      // The analyses that made the service's memory used the month's one call, and more.
      await server.domain.services.setLimits(service, { rateLimitPerMinute: null, monthlyQuota: 1 });
      return undefined;
    },
  },
];

/**
 * Management calls (docs/faces.md "Memory", docs/plates.md "Known plates"): what a service
 * remembers — its registered people, its unknown people, its known plates — is listed, changed and
 * forgotten with its key whatever its model's state, and never counted against its rate limit or
 * quota. Real server, real models, real photos; each condition on services of its own.
 */
describe('what a service remembers is managed apart from analysis: people, unknown people and known plates answer while the model is unloaded, busy or over quota', function () {
  this.timeout(300_000);
  let server: TestServer;
  let models: string;

  before(async () => {
    models = plateModelsFolder();
    server = await startTestServer({ DETECTD_MODELS_DIR: models, DETECTD_MAX_PENDING_REQUESTS: '1' });
  });
  after(async () => {
    await server?.close();
    fs.rmSync(models, { recursive: true, force: true });
  });

  const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as any });
  const keyed = (apiKey: string, body?: unknown) => ({
    headers: { Authorization: `ApiKey ${apiKey}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const deepStack = (route: string, apiKey: string, fields: Record<string, string>, image?: string) => {
    const form = new FormData();
    form.append('api_key', apiKey);
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (image) form.append('image', new Blob([new Uint8Array(fs.readFileSync(image))]), 'photo');
    return fetch(`${server.url}/v1/vision/face/${route}`, { method: 'POST', body: form }).then(json);
  };
  const unknownPeople = (apiKey: string, method = 'GET', suffix = '', body?: unknown) => fetch(`${server.url}/api/v1/face-detection/unknown-people${suffix}`, { method, ...keyed(apiKey, body) }).then(json);
  const knownPlates = (apiKey: string, method = 'GET', suffix = '', body?: unknown) => fetch(`${server.url}/api/v1/license-plate/known-plates${suffix}`, { method, ...keyed(apiKey, body) });
  const analyse = (type: string, apiKey: string, photo: string) =>
    fetch(`${server.url}/api/v1/${type}`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(fs.readFileSync(photo)) }).then(json);
  const serviceOf = async (apiKey: string) => (await server.domain.keys.authenticate(apiKey))!;

  for (const condition of CONDITIONS) {
    it(`a face service's model ${condition.name}: its people and unknown people are listed, shown, named and forgotten`, async () => {
      const apiKey = await server.createService({ name: `faces ${condition.name}`, type: 'face-detection' });
      expect((await unknownPeople(apiKey, 'PUT', '/settings', { remember: true })).status).to.equal(200);
      expect((await deepStack('register', apiKey, { userid: 'leonard' }, cropPath('leonard', 1))).status).to.equal(200);
      expect((await analyse('face-detection', apiKey, GROUP_PHOTO)).status).to.equal(200);

      const end = await condition.apply(server, await serviceOf(apiKey));
      try {
        const refused = await analyse('face-detection', apiKey, GROUP_PHOTO);
        expect([refused.status, refused.body.error.code]).to.deep.equal([condition.refusal.status, condition.refusal.code]);

        expect((await deepStack('list', apiKey, {})).body).to.include({ success: true }).and.to.have.deep.property('faces', ['leonard']);
        const listed = await unknownPeople(apiKey);
        expect(listed.status).to.equal(200);
        const [first, second] = listed.body.unknown_people as { id: string; best_faces: string[] }[];
        expect((await unknownPeople(apiKey, 'GET', `/${first.id}`)).status).to.equal(200);
        const thumbnail = await fetch(`${server.url}/api/v1/face-detection/unknown-people/${first.id}/faces/${first.best_faces[0]}/thumbnail`, keyed(apiKey));
        expect([thumbnail.status, thumbnail.headers.get('content-type')]).to.deep.equal([200, 'image/jpeg']);
        expect((await unknownPeople(apiKey, 'GET', '/settings')).body).to.include({ remember: true });
        expect((await unknownPeople(apiKey, 'POST', `/${second.id}/name`, { userid: 'someone' })).body).to.include({ userid: 'someone', forgotten: second.id });
        expect((await unknownPeople(apiKey, 'DELETE', `/${first.id}`)).body).to.deep.equal({ forgotten: first.id });
        expect((await deepStack('delete', apiKey, { userid: 'leonard' })).body).to.include({ success: true, message: 'face deleted' });
        expect((await deepStack('list', apiKey, {})).body.faces).to.deep.equal(['someone']);
        expect((await unknownPeople(apiKey)).body.unknown_people.map((person: { id: string }) => person.id)).to.not.include.members([first.id, second.id]);
      } finally {
        end?.();
      }
    });

    it(`a licence-plate service's model ${condition.name}: its known plates are listed, added and removed`, async () => {
      const apiKey = await server.createService({ name: `plates ${condition.name}`, type: 'license-plate' });
      expect((await knownPlates(apiKey, 'POST', '', { plate: 'DG2Z6V', name: 'Amy' })).status).to.equal(201);
      expect((await analyse('license-plate', apiKey, PLATE_PHOTO)).status).to.equal(200);

      const end = await condition.apply(server, await serviceOf(apiKey));
      try {
        const refused = await analyse('license-plate', apiKey, PLATE_PHOTO);
        expect([refused.status, refused.body.error.code]).to.deep.equal([condition.refusal.status, condition.refusal.code]);

        expect((await knownPlates(apiKey, 'POST', '', { plate: 'AB 123 C', name: 'the van' })).status).to.equal(201);
        expect((await knownPlates(apiKey, 'PUT', '/settings', { distance: 2 })).status).to.equal(200);
        expect((await knownPlates(apiKey, 'DELETE', '/dg2z6v')).status).to.equal(204);
        const listed = await json(await knownPlates(apiKey));
        expect([listed.status, listed.body.distance, listed.body.known_plates.map((plate: { plate: string }) => plate.plate)]).to.deep.equal([200, 2, ['AB123C']]);
      } finally {
        end?.();
      }
    });
  }

  it('management calls count against no rate limit or quota, and are logged as management calls', async () => {
    const apiKey = await server.createService({ name: 'counted', type: 'face-detection' });
    await server.domain.services.setLimits(await serviceOf(apiKey), { rateLimitPerMinute: 2, monthlyQuota: null });
    const logStart = server.logText().length;
    for (let call = 0; call < 4; call++) {
      expect((await unknownPeople(apiKey)).status).to.equal(200);
      expect((await deepStack('list', apiKey, {})).status).to.equal(200);
    }
    expect((await analyse('face-detection', apiKey, GROUP_PHOTO)).status).to.equal(200);
    expect((await analyse('face-detection', apiKey, GROUP_PHOTO)).status).to.equal(200);
    expect((await analyse('face-detection', apiKey, GROUP_PHOTO)).body.error.code).to.equal('rate_limited');
    const calls = server
      .logText()
      .slice(logStart)
      .split('\n')
      .filter((line) => line.includes('"msg":"call"'))
      .map((line) => JSON.parse(line) as { path: string; call?: string });
    expect(calls.filter((line) => line.call === 'management').map((line) => line.path)).to.have.length(8);
    expect(calls.filter((line) => line.path === '/api/v1/face-detection').every((line) => line.call === undefined)).to.equal(true);
  });
});
