import { expect } from 'chai';
import WebSocket from 'ws';
import { StreamClient } from '../scripts/lib/stream-client.js';
import { ServiceLimits } from '../src/limits/service-limits.js';
import { decodeNvisionMessage, encodeNvisionMessage, type NvisionMessage } from '../src/transports/stream-nvision/nvision-wire.js';
import { smallDogJpeg } from './support/images.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';

type LimitCode = 'rate_limited' | 'quota_exceeded';

/** One call through a door: what it answered, in the door's own shape, reduced to what the gate decides. */
interface Answer {
  /** `ok`, or the error code of the refusal. */
  readonly outcome: 'ok' | string;
  /** Seconds to wait, as the door says it (Retry-After, retry_after_seconds); undefined when it says nothing. */
  readonly retryAfter?: number;
}

/**
 * A front door that makes calls: `open` sets up what a call needs (a stream, for the stream doors)
 * and returns the caller; `close` ends it. Every call sends the same small photo.
 */
interface Door {
  readonly name: string;
  open(server: TestServer, apiKey: string): Promise<{ call(): Promise<Answer>; close(): Promise<void> }>;
}

/** An HTTP answer: 200, or the refusal's code and Retry-After (the REST error shape, or DeepStack's). */
async function httpAnswer(response: Response): Promise<Answer> {
  const body = (await response.json()) as { error?: { code: string } | string; success?: boolean; code?: number };
  if (response.status === 200) return { outcome: 'ok' };
  const retryAfter = response.headers.get('retry-after');
  // DeepStack's failure names no code: its status and message say which limit.
  const code = typeof body.error === 'object' ? body.error.code : /quota/i.test(String(body.error)) ? 'quota_exceeded' : /requests a minute/.test(String(body.error)) ? 'rate_limited' : `status ${response.status}`;
  return { outcome: code, retryAfter: retryAfter === null ? undefined : Number(retryAfter) };
}

const restCall = (server: TestServer, apiKey: string, body: () => Promise<{ body: BodyInit; contentType?: string }>) => async (): Promise<Answer> => {
  const { body: payload, contentType } = await body();
  const headers: Record<string, string> = { Authorization: `ApiKey ${apiKey}` };
  if (contentType) headers['Content-Type'] = contentType;
  return httpAnswer(await fetch(`${server.url}/api/v1/object-detection`, { method: 'POST', headers, body: payload }));
};

const imageForm = async (fields: Record<string, string> = {}) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('image', new Blob([new Uint8Array(await smallDogJpeg())], { type: 'image/jpeg' }), 'dog.jpg');
  return form;
};

const httpDoor = (name: string, call: (server: TestServer, apiKey: string) => () => Promise<Answer>): Door => ({
  name,
  open: async (server, apiKey) => ({ call: call(server, apiKey), close: async () => undefined }),
});

const DOORS: readonly Door[] = [
  httpDoor('REST, base64 JSON', (server, apiKey) =>
    restCall(server, apiKey, async () => ({ body: JSON.stringify({ raw_data: (await smallDogJpeg()).toString('base64') }), contentType: 'application/json' })),
  ),
  httpDoor('REST, raw image', (server, apiKey) => restCall(server, apiKey, async () => ({ body: new Uint8Array(await smallDogJpeg()), contentType: 'image/jpeg' }))),
  httpDoor('REST, multipart form', (server, apiKey) => restCall(server, apiKey, async () => ({ body: await imageForm() }))),
  httpDoor('DeepStack form, key in api_key', (server, apiKey) => async () =>
    httpAnswer(await fetch(`${server.url}/v1/vision/detection`, { method: 'POST', body: await imageForm({ api_key: apiKey }) })),
  ),
  {
    name: 'JSON stream frame',
    async open(server, apiKey) {
      const client = await StreamClient.start(server.url, apiKey);
      let frameId = 0;
      return {
        async call() {
          const id = ++frameId;
          client.sendFrame(await smallDogJpeg(), id);
          await client.waitFor((messages) => messages.some((message) => message.frame_id === id));
          const message = client.messages.find((each) => each.frame_id === id)!;
          return message.type === 'result' ? { outcome: 'ok' } : { outcome: message.error.code, retryAfter: message.retry_after_seconds };
        },
        close: () => client.close(),
      };
    },
  },
  {
    name: 'Nvision stream frame',
    async open(server, apiKey) {
      // The key as the subprotocol, as the official SDK sends it.
      const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/v1/object-detection`, apiKey);
      const messages: NvisionMessage[] = [];
      socket.on('message', (data) => void messages.push(decodeNvisionMessage(data as Buffer)));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      let frameId = 0;
      return {
        async call() {
          const id = String(++frameId);
          socket.send(encodeNvisionMessage({ frame_id: id, raw_data: await smallDogJpeg() }));
          const message = await waitFor(() => messages.find((each) => each.frame_id === id), { what: `the answer to Nvision frame ${id}` });
          return message.error?.code ? { outcome: message.error.code, retryAfter: message.error.retry_after_seconds } : { outcome: 'ok' };
        },
        async close() {
          const closed = new Promise((resolve) => socket.once('close', resolve));
          socket.close(1000);
          await closed;
        },
      };
    },
  },
];

const LIMITS: readonly { code: LimitCode; settings: { rateLimitPerMinute: number | null; monthlyQuota: number | null } }[] = [
  { code: 'rate_limited', settings: { rateLimitPerMinute: 2, monthlyQuota: null } },
  { code: 'quota_exceeded', settings: { rateLimitPerMinute: null, monthlyQuota: 2 } },
];

/**
 * The gate (src/gate/): every front door — REST in its three body forms, the DeepStack form, a frame
 * of either video stream — passes the same checks, over the real server and a real model. A service
 * with a limit of 2 gets two answers through the door and then that door's own refusal, with when to
 * retry; a refused stream frame costs only itself: the stream stays open and answers the next frame.
 */
describe('one gate for every front door: each door against each limit (real server, real model)', () => {
  let server: TestServer;
  let accountId: string;
  before(async () => {
    server = await startTestServer();
    accountId = (await server.domain.accounts.findAccount('user1@example.com'))!.id;
  });
  after(async () => server?.close());

  /** A new service of the test account with `settings`, and its key. */
  async function limitedService(name: string, settings: (typeof LIMITS)[number]['settings']): Promise<string> {
    const { service, apiKey } = await server.domain.services.create(accountId, { name: name.replace(/[^\w .-]/g, '') });
    await server.domain.services.setLimits(service, settings);
    return apiKey;
  }

  for (const limit of LIMITS) {
    for (const door of DOORS) {
      it(`${door.name}: two calls answered, the third refused ${limit.code} with when to retry`, async () => {
        const apiKey = await limitedService(`${door.name} ${limit.code}`, limit.settings);
        const caller = await door.open(server, apiKey);
        try {
          expect(await caller.call(), 'first call').to.deep.equal({ outcome: 'ok' });
          expect(await caller.call(), 'second call').to.deep.equal({ outcome: 'ok' });
          const refused = await caller.call();
          expect(refused.outcome, 'third call').to.equal(limit.code);
          expect(refused.retryAfter, 'seconds until a call is admitted again').to.be.a('number').and.to.be.at.least(1);
          // The door stays usable: a stream goes on (the next frame is answered, refused again), an HTTP caller may call again.
          expect((await caller.call()).outcome, 'fourth call').to.equal(limit.code);
        } finally {
          await caller.close();
        }
      });
    }
  }

  it('stream frames count against the monthly quota on both protocols, and a REST call after them is refused', async () => {
    const apiKey = await limitedService('shared quota', { rateLimitPerMinute: null, monthlyQuota: 4 });
    const [json, nvision] = DOORS.filter((door) => door.name.endsWith('stream frame'));
    const rest = DOORS[0];
    for (const door of [json, nvision]) {
      const caller = await door.open(server, apiKey);
      expect(await caller.call(), door.name).to.deep.equal({ outcome: 'ok' });
      expect(await caller.call(), door.name).to.deep.equal({ outcome: 'ok' });
      await caller.close();
    }
    const service = (await server.domain.keys.authenticate(apiKey))!;
    expect(await new ServiceLimits(server.db).callsThisMonth(service.id), 'four frames counted').to.equal(4);
    const after = await rest.open(server, apiKey);
    expect(await after.call(), 'the REST call after the frames').to.deep.include({ outcome: 'quota_exceeded' });
  });

  it('the JSON stream\'s ready message states the service\'s limits', async () => {
    const apiKey = await limitedService('ready limits', { rateLimitPerMinute: 30, monthlyQuota: 1000 });
    const client = await StreamClient.start(server.url, apiKey);
    const ready = client.messages.find((message) => message.type === 'ready')!;
    expect(ready.limits).to.include({ rate_limit_per_minute: 30, monthly_quota: 1000 });
    await client.close();
    const unlimited = await StreamClient.start(server.url, server.apiKey);
    expect(unlimited.messages.find((message) => message.type === 'ready')!.limits).to.include({ rate_limit_per_minute: null, monthly_quota: null });
    await unlimited.close();
  });
});
