import { expect } from 'chai';
import { LimitExceededError, ServiceLimits } from '../src/limits/service-limits.js';
import { ConsoleClient } from './support/console-client.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { describeEachEngine, POSTGRESQL } from './support/engines.js';
import { DEFAULT_TEST_MODEL, photoPath } from './support/paths.js';
import { requireBuild, type ServerProcess, startProcess } from './support/processes.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';
import type { ScratchStore } from '../scripts/lib/local-server.js';

const PASSWORD = 'a long passphrase';
const dog = () => imageRequest(photoPath('dog.jpg'));

/** Signs up, creates a service and returns its id and key. */
async function serviceOf(client: ConsoleClient, email: string, name: string): Promise<{ id: string; apiKey: string }> {
  if ((await client.signUp(email, PASSWORD)).status !== 303) expect((await client.signIn(email, PASSWORD)).status).to.equal(303);
  const id = await client.createService(name);
  return { id, apiKey: (await client.revealKey(id)).body.api_key as string };
}

async function setLimits(client: ConsoleClient, id: string, rate: string, quota: string) {
  await client.get(`/console/services/${id}`);
  return client.post(`/console/services/${id}/limits`, { rate_limit_per_minute: rate, monthly_quota: quota });
}

describeEachEngine('per-service limits in the database (GCRA rate limit, monthly quota)', (engine) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, engine);
  });
  after(async () => server?.close());

  it('admits a burst of the limit, then one call per interval; counts a quota per UTC month', async () => {
    let now = Date.UTC(2026, 0, 31, 23, 59, 0);
    const limits = new ServiceLimits(server.db, () => now);
    const service = await server.domain.services.create((await server.domain.accounts.findAccount('user1@example.com'))!.id, { name: 'clocked' });
    await server.domain.services.setLimits(service.service, { rateLimitPerMinute: 4, monthlyQuota: 6 });
    const limited = (await server.domain.keys.authenticate(service.apiKey))!;

    const remaining: number[] = [];
    for (let call = 0; call < 4; call++) remaining.push((await limits.admit(limited))[0].remaining);
    expect(remaining, 'a burst of 4, each answer saying what is left').to.deep.equal([3, 2, 1, 0]);
    const refused = await limits.admit(limited).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(LimitExceededError);
    expect((refused as LimitExceededError).code).to.equal('rate_limited');
    expect((refused as LimitExceededError).retryAfterSeconds, 'one emission interval (15 s) away').to.equal(15);
    now += 14_999;
    expect(await limits.admit(limited).then(() => 'admitted', (error: LimitExceededError) => error.code)).to.equal('rate_limited');
    now += 1;
    const [rate, quota] = await limits.admit(limited);
    expect(rate).to.include({ policy: 'rate', quota: 4, windowSeconds: 60, remaining: 0 });
    expect(quota, '5 calls counted, 1 left, 45 s to February').to.include({ policy: 'quota', quota: 6, remaining: 1, resetSeconds: 45, windowSeconds: 31 * 86400 });

    now += 15_000;
    await limits.admit(limited);
    now += 15_000;
    const overQuota = await limits.admit(limited).then(() => undefined, (error: unknown) => error as LimitExceededError);
    expect(overQuota?.code).to.equal('quota_exceeded');
    expect(await limits.callsThisMonth(limited.id)).to.equal(6);
    now = Date.UTC(2026, 1, 1, 0, 0, 1);
    expect((await limits.admit(limited))[1]).to.include({ policy: 'quota', remaining: 5, windowSeconds: 28 * 86400 }, 'a new month, a new count');
  });

  it('answers 429 rate_limited / quota_exceeded with Retry-After and the RateLimit headers over HTTP; the console sets and shows the limits', async () => {
    const client = new ConsoleClient(server.url);
    expect((await client.signIn('user1@example.com', 'correct horse battery')).status).to.equal(303);
    const id = await client.createService('limited');
    const apiKey = (await client.revealKey(id)).body.api_key as string;

    const unlimited = await postDetection(server.url, dog(), { apiKey });
    expect(unlimited.status).to.equal(200);
    expect(unlimited.headers.get('ratelimit-policy'), 'no limit, no headers').to.equal(null);

    expect((await setLimits(client, id, 'many', '')).status).to.equal(400);
    expect((await setLimits(client, id, '0', '')).text).to.contain('requests per minute must be a whole number from 1 to');
    const saved = await setLimits(client, id, '2', '3');
    expect(saved.status).to.equal(303);
    const page = (await client.get(`/console/services/${id}`)).text;
    expect(page).to.contain('name="rate_limit_per_minute" type="number" value="2"').and.contain('name="monthly_quota" type="number" value="3"');
    // The call made before the quota was set counts: the quota is the month's, not the calls since it was set.
    expect(page).to.match(/id="usage-limits">Limits: rate limit 2 requests\/minute; quota 1 of 3 calls used in \w+ \d{4} \(UTC, 33 %\)/);

    const first = await postDetection(server.url, dog(), { apiKey });
    expect(first.status).to.equal(200);
    expect(first.headers.get('ratelimit-policy')).to.match(/^"rate";q=2;w=60, "quota";q=3;w=\d+$/);
    expect(first.headers.get('ratelimit')).to.match(/^"rate";r=1;t=\d+, "quota";r=1;t=\d+$/);
    expect((await postDetection(server.url, dog(), { apiKey })).headers.get('ratelimit')).to.match(/^"rate";r=0;t=\d+, "quota";r=0;t=\d+$/);

    const limited = await postDetection(server.url, dog(), { apiKey });
    expect(limited.status).to.equal(429);
    expect(limited.body.error.code).to.equal('rate_limited');
    expect(limited.body.error.message).to.contain('may make 2 requests a minute');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 30);
    expect(limited.headers.get('ratelimit-policy')).to.equal('"rate";q=2;w=60');
    expect(limited.headers.get('ratelimit')).to.match(/^"rate";r=0;t=\d+$/);

    // A generous rate limit leaves the quota (3, all used: the rate-limited call did not count) to refuse the next call.
    expect((await setLimits(client, id, '1000', '3')).status).to.equal(303);
    const overQuota = await postDetection(server.url, dog(), { apiKey });
    expect(overQuota.status).to.equal(429);
    expect(overQuota.body.error.code).to.equal('quota_exceeded');
    expect(overQuota.body.error.message).to.match(/has used all 3 calls of its quota for \d{4}-\d{2}; the quota renews at /);
    expect((await client.get(`/console/services/${id}`)).text).to.match(/quota 3 of 3 calls used in \w+ \d{4} \(UTC, 100 %\)/);
    const untilNextMonth = Math.ceil((Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1) - Date.now()) / 1000);
    expect(Number(overQuota.headers.get('retry-after'))).to.be.within(1, untilNextMonth + 1);
    expect(overQuota.headers.get('ratelimit')).to.match(/"quota";r=0;t=\d+$/);

    expect((await setLimits(client, id, '', '')).status, 'empty fields remove the limits').to.equal(303);
    const free = await postDetection(server.url, dog(), { apiKey });
    expect(free.status).to.equal(200);
    expect(free.headers.get('ratelimit')).to.equal(null);

    // The usage panel lists the refusals by code.
    await waitFor(
      async () => {
        const text = (await client.get(`/console/services/${id}?window=hour`)).text;
        return text.includes('<code>quota_exceeded</code>') && text.includes('<code>rate_limited</code>');
      },
      { what: 'rate_limited and quota_exceeded in the usage panel', intervalMs: 100 },
    );
  });
});

describe('limits hold across two server processes on one PostgreSQL database', () => {
  let store: ScratchStore;
  let replicas: ServerProcess[] = [];

  before(async () => {
    requireBuild();
    store = await POSTGRESQL.scratch();
    const env = { ...process.env, ...store.env, DETECTD_MODEL: DEFAULT_TEST_MODEL, HOST: '127.0.0.1', DETECTD_INFERENCE_THREADS: '1', PORT: '0' };
    replicas = [await startProcess(env), await startProcess(env)];
  });
  after(async () => {
    for (const replica of replicas) expect(await replica.stop()).to.equal(0);
    await store?.remove();
  });

  it('shares one rate limit and one quota between replicas: calls alternating between A and B are refused once the shared limit is used', async () => {
    const [a, b] = replicas;
    const client = new ConsoleClient(a.url);
    const rated = await serviceOf(client, 'limits@example.com', 'rated');
    expect((await setLimits(client, rated.id, '4', '')).status).to.equal(303);
    const statuses: number[] = [];
    for (const replica of [a, b, a, b, a, b]) statuses.push((await postDetection(replica.url, dog(), { apiKey: rated.apiKey })).status);
    expect(statuses, 'four admitted in all, not four per replica').to.deep.equal([200, 200, 200, 200, 429, 429]);

    const quota = await client.createService('quota');
    const quotaKey = (await client.revealKey(quota)).body.api_key as string;
    expect((await setLimits(client, quota, '', '3')).status).to.equal(303);
    const quotaStatuses: number[] = [];
    for (const replica of [b, a, b, a]) {
      const answer = await postDetection(replica.url, dog(), { apiKey: quotaKey });
      quotaStatuses.push(answer.status);
      if (answer.status === 429) expect(answer.body.error.code).to.equal('quota_exceeded');
    }
    expect(quotaStatuses).to.deep.equal([200, 200, 200, 429]);

    // Twelve calls at once, six on each replica: the conditional UPDATE admits exactly the limit.
    const burst = await client.createService('burst');
    const burstKey = (await client.revealKey(burst)).body.api_key as string;
    expect((await setLimits(client, burst, '5', '')).status).to.equal(303);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, index) => postDetection(replicas[index % 2].url, dog(), { apiKey: burstKey })));
    expect(answers.filter((answer) => answer.status === 200)).to.have.length(5);
    expect(answers.filter((answer) => answer.status === 429 && answer.body.error.code === 'rate_limited')).to.have.length(7);
  });
});
