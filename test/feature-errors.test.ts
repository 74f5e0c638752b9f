import { expect } from 'chai';
import { ErrorCatalogue, ErrorCodeDeclaredTwice } from '../src/core/error-catalogue.js';
import { CORE_ERRORS, DetectdError, type ErrorEntry, type ErrorTable } from '../src/core/errors.js';
import type { Feature } from '../src/features/feature.js';
import { FeatureSet } from '../src/features/feature-set.js';
import { DESCRIBED_FEATURES, FEATURES } from '../src/features/index.js';
import { errorResponses } from '../src/transports/http/openapi.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** The test feature's own error code, as a folder under src/features/ declares its table. */
const ERRAND_ERRORS = {
  errand_refused: { status: 451, summary: 'The errand was refused (a test feature\'s own code).' },
} as const satisfies ErrorTable;

declare module '../src/core/errors.js' {
  interface FeatureErrors {
    errand: typeof ERRAND_ERRORS;
  }
}

const ERRAND_PATH = '/v1/errand';

/** A feature with one route, which refuses with its own code (thrown as any feature throws one: typed, no cast), and registers its table. */
const errand: Feature = {
  name: 'errand',
  docs: 'test/feature-errors.test.ts',
  errors: ERRAND_ERRORS,
  parts: () => ({
    tasks: [],
    rest: [
      {
        router: ({ router }) =>
          router().get(ERRAND_PATH, () => {
            throw new DetectdError('errand_refused', 'no errands today');
          }),
        openApiPaths: () => ({ [ERRAND_PATH]: { get: { summary: 'An errand', responses: errorResponses(['errand_refused', 'not_found'], ERRAND_ERRORS) } } }),
      },
    ],
  }),
};

/**
 * A feature brings its own error codes (Feature.errors, core/error-catalogue.ts), as it brings its
 * routes: the core's catalogue (core/errors.ts) names none of the features' codes, every door answers
 * a feature's code with the status it declares, the API reference lists it, and a code declared twice
 * stops start-up naming both owners.
 */
describe('error codes a feature brings (a real server with a test feature registered)', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, undefined, [...FEATURES, errand]);
  });
  after(() => server?.close());

  it('the core\'s catalogue holds none of the faces\' and plates\' codes; each is in the merged catalogue through its feature, with its status', () => {
    const declared = FEATURES.flatMap((feature) => Object.entries(feature.errors ?? {}).map(([code, entry]) => ({ feature: feature.name, code, entry })));
    expect(declared.map(({ feature, code }) => `${feature} ${code}`)).to.include.members(['faces no_face', 'faces missing_field', 'faces unknown_person', 'faces unusable_face', 'plates known_plate_not_found', 'plates known_plate_exists']);
    const merged = new Map<string, ErrorEntry>(DESCRIBED_FEATURES.errors.entries());
    for (const { code, entry } of declared) {
      expect(CORE_ERRORS, code).not.to.have.property(code);
      expect(merged.get(code), code).to.deep.equal(entry);
    }
  });

  it('a feature\'s route refusing with its own code: answered in the one error shape, under the status the feature declares', async () => {
    const answer = await fetch(`${server.url}${ERRAND_PATH}`);
    expect(answer.status).to.equal(451);
    const body = (await answer.json()) as { error: { code: string; message: string; request_id: string } };
    expect(body.error).to.include({ code: 'errand_refused', message: 'no errands today' });
    expect(body.error.request_id).to.be.a('string').and.not.equal('');
  });

  it('the API reference lists its code: in the error enum, and under its status on its route and on every task\'s', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>>;
      components: { schemas: { ErrorResponse: { properties: { error: { properties: { code: { enum: string[] } } } } } } };
    };
    expect(document.components.schemas.ErrorResponse.properties.error.properties.code.enum).to.include('errand_refused').and.include('not_found');
    const summary = `\`errand_refused\`: ${ERRAND_ERRORS.errand_refused.summary}`;
    expect(document.paths[ERRAND_PATH].get.responses['451'].description).to.equal(summary);
    expect(document.paths[ERRAND_PATH].get.responses['404'].description).to.equal(`\`not_found\`: ${CORE_ERRORS.not_found.summary}`);
    for (const task of server.tasks.all) expect(document.paths[`/api/v1/${task.type}`].post.responses['451'].description, task.type).to.equal(summary);
  });

  it('a code the core or another feature declares already stops start-up, naming both owners', () => {
    const declaring = (errors: ErrorTable): Feature => ({ ...errand, name: 'copycat', errors });
    expect(() => new FeatureSet([...FEATURES, declaring({ not_found: { status: 404, summary: 'again' } })], undefined)).to.throw(ErrorCodeDeclaredTwice, 'the error code not_found is declared twice: by the core and by feature copycat');
    expect(() => new FeatureSet([...FEATURES, declaring({ no_face: { status: 400, summary: 'again' } })], undefined)).to.throw(ErrorCodeDeclaredTwice, 'the error code no_face is declared twice: by feature faces and by feature copycat');
  });

  it('a code whose feature left its table out of its Feature is a bug on our side: 500, and the catalogue never throws while a door answers a failure', () => {
    const withoutErrand = new ErrorCatalogue(FEATURES.flatMap((feature) => (feature.errors ? [{ owner: feature.name, errors: feature.errors }] : [])));
    expect(withoutErrand.status('errand_refused')).to.equal(500);
    expect(withoutErrand.status('known_plate_exists')).to.equal(409);
  });
});
