import { expect } from 'chai';
import type { Feature, FeatureParts } from '../src/features/feature.js';
import { FEATURES } from '../src/features/index.js';
import { RouteClaimedTwice, RouteLedger } from '../src/transports/route-ledger.js';
import { startTestServer } from './support/test-server.js';

/** A feature of no task whose one REST route answers `GET path` with its name. */
const featureAnswering = (name: string, method: 'get' | 'post', path: string): Feature => ({
  name,
  docs: 'docs/development.md',
  parts: (): FeatureParts => ({
    tasks: [],
    rest: [{ router: ({ router }) => router()[method](path, (_request, response) => void response.json({ answered_by: name })), openApiPaths: () => ({}) }],
  }),
});

/** Why a server of the registered features and `extra` did not start; undefined when it did (it is closed again). */
async function refusalOf(...extra: Feature[]): Promise<unknown> {
  return startTestServer({}, undefined, [...FEATURES, ...extra]).then(
    async (server) => {
      await server.close();
      return undefined;
    },
    (error: unknown) => error,
  );
}

describe('route ledger: every door claims its routes in one ledger per server', () => {
  it('refuses a method and path claimed twice, naming the route and both owners, as Express matches paths', () => {
    const ledger = new RouteLedger();
    ledger.claim('get', '/api/v1/things/:id', 'feature first');
    ledger.claim('post', '/api/v1/things/:id', 'feature second');
    // Express matches paths case-insensitively, a trailing slash optional, a parameter by any name.
    expect(() => ledger.claim('GET', '/API/v1/things/:name/', 'feature second')).to.throw(RouteClaimedTwice, 'GET /API/v1/things/:name/ is claimed by feature first and by feature second');
    expect(() => ledger.claim('post', '/api/v1/things/:id', 'feature second')).to.throw(RouteClaimedTwice, 'POST /api/v1/things/:id is claimed by feature second and by feature second');
  });

  it('refuses a route under a path another owner claims whole, whichever comes first', () => {
    const ledger = new RouteLedger();
    ledger.claimUnder('/console', 'the console');
    ledger.claim('get', '/consoles', 'feature first');
    expect(() => ledger.claim('get', '/console/plates', 'feature first')).to.throw(RouteClaimedTwice, 'GET /console/plates is claimed by the console (every path under /console) and by feature first');
    const other = new RouteLedger();
    other.claim('post', '/docs/assets/app.js', 'feature first');
    expect(() => other.claimUnder('/docs', 'the API reference')).to.throw(RouteClaimedTwice, 'POST /docs/assets/app.js is claimed by feature first and by the API reference (every path under /docs)');
  });

  it('serves a feature\'s route declared on the router the server hands it', async () => {
    const server = await startTestServer({}, undefined, [...FEATURES, featureAnswering('lonely', 'get', '/api/v1/lonely-route')]);
    try {
      const response = await fetch(`${server.url}/api/v1/lonely-route`);
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ answered_by: 'lonely' });
    } finally {
      await server.close();
    }
  });

  it('does not start a server where two features claim one route, and names both', async () => {
    const refusal = await refusalOf(featureAnswering('first', 'get', '/api/v1/shared-route'), featureAnswering('second', 'get', '/api/v1/shared-route'));
    expect(refusal).to.be.instanceOf(RouteClaimedTwice).and.to.have.property('message', 'GET /api/v1/shared-route is claimed by feature first and by feature second');
  });

  it('does not start a server where a feature claims a route of another door, and names both', async () => {
    // A task's REST analysis, DeepStack's detection route, the health check, a page of the console: whichever door declared it first is named first.
    for (const [method, path, message] of [
      ['post', '/api/v1/object-detection', 'POST /api/v1/object-detection is claimed by feature intruder and by task object-detection'],
      ['post', '/v1/vision/detection', 'POST /v1/vision/detection is claimed by task object-detection and by feature intruder'],
      ['get', '/healthz', 'GET /healthz is claimed by feature intruder and by the health checks'],
      ['get', '/console/intruder', 'GET /console/intruder is claimed by the console (every path under /console) and by feature intruder'],
    ] as const) {
      const refusal = await refusalOf(featureAnswering('intruder', method, path));
      expect(refusal, path).to.be.instanceOf(RouteClaimedTwice).and.to.have.property('message', message);
    }
  });
});
