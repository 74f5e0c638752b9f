/**
 * `npm run soak`: the built server (`npm start`'s launcher, so jemalloc when the system has it)
 * in its own process on loopback, driven at saturation with mixed traffic for a bounded time —
 * dog.jpg, 12 MP JPEGs and a 6000×6000 16-bit RGBA PNG made at start, crops and visualized images, gzip bodies and a share of bad
 * inputs (invalid JSON/base64/images, bad keys and paths, corrupt gzip, a scan-bomb JPEG, an
 * oversized PNG) — and video streams (JSON and Nvision protocols in turn, a 640×480 pan at 15 fps,
 * 10 s each). Every minute it pauses the clients for a moment to read the server's RSS at rest,
 * and prints it with RSS under load and p50/p99 latency; at the end, status counts and the targets:
 * no unplanned 5xx, the RSS at rest within ±10 % of minute 2 from then on. With --faces, the
 * traffic is a face service's instead (the embedded face model): recognition of crowds of
 * 20–60 faces with people registered, detection, the Nvision face API with crops, registrations
 * and deletions, and bad images on every face route — what holds the describer's memory. With
 * --faults, none of that: the parts the server stands on fail under load instead (lib/soak-faults.ts).
 *
 *   npm run soak -- [--minutes 10] [--clients 6] [--streams 2] [--model FILE] [--faces] [--no-jemalloc]
 *   npm run soak -- --faults [--model FILE]
 */
import './lib/typescript-workers.js';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Command } from 'commander';
import sharp from 'sharp';
import { accountDomain } from '../src/accounts/account-domain.js';
import { loadServerSecret } from '../src/accounts/server-secret.js';
import { openDatabase } from '../src/store/database.js';
import { SCHEMA, TASK_DESCRIPTIONS } from '../src/features/index.js';
import { percentile, positiveNumber } from './lib/bench-numbers.js';
import { freePort } from './lib/free-port.js';
import { makePanClip } from './lib/pan-clip.js';
import { soakFaults } from './lib/soak-faults.js';
import { CONNECT_STREAM, STREAM_PROTOCOLS } from './lib/stream-connection.js';

const program = new Command()
  .option('--minutes <n>', 'how long to run', positiveNumber, 10)
  .option('--clients <n>', 'concurrent clients', positiveNumber, 6)
  .option('--streams <n>', 'video streams open at once (besides the clients)', nonNegativeInteger, 2)
  .option('--model <file>', 'ONNX model to serve', path.resolve('../shared/models/yolox-nano-416.onnx'))
  .option('--faces', 'a face service\'s traffic instead of object detection\'s')
  .option('--faults', 'PostgreSQL restarted and the data disk filled under load, instead of the soak (needs root)')
  .option('--no-jemalloc', 'run the server on the system allocator (DETECTD_JEMALLOC=0)')
  .parse();
const options = program.opts<{ minutes: number; clients: number; streams: number; model: string; faces?: boolean; faults?: boolean; jemalloc: boolean }>();

/** Answers that are the point of the request: a refusal under saturation (503 overloaded) is planned, a 500 never is. */
const PLANNED_5XX = new Set(['overloaded', 'deadline_exceeded']);

/**
 * How long the clients pause before the RSS at rest is read: the server's idle collection (2 s),
 * then jemalloc's decay, which returns what that freed over the following 10 s — with room to
 * spare (at 13 s one reading of thirty still held 25 MiB more than its neighbours).
 */
const REST_MS = 20_000;

/** A video client's frame rate and how long each of its streams lasts. */
const STREAM_FPS = 15;
const STREAM_SECONDS = 10;

function nonNegativeInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`expected a whole number ≥ 0, got "${value}"`);
  return number;
}

async function newApiKey(dataDir: string, type: string | undefined): Promise<string> {
  const db = await openDatabase({ dataDir, databaseUrl: undefined }, SCHEMA);
  const domain = accountDomain(db, loadServerSecret(undefined, dataDir), { serviceTypes: TASK_DESCRIPTIONS.types });
  const account = await domain.accounts.createAccount('soak@example.com', 'correct horse battery');
  const { apiKey } = await domain.services.create(account.id, { name: 'soak', type });
  await db.destroy();
  return apiKey;
}

/** The server's RSS: the launcher's child when it re-ran node with jemalloc, else the launcher itself. */
function serverRssBytes(launcherPid: number): number {
  const children = fs.readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  const pid = children.length ? Number(children[0]) : launcherPid;
  const rssPages = Number(fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
  return rssPages * 4096;
}

interface Call {
  readonly kind: string;
  readonly path?: string;
  readonly body: Uint8Array<ArrayBuffer> | string;
  readonly headers?: Record<string, string>;
  readonly weight: number;
}

const body = (image: Buffer, configurations: Record<string, string> = {}) =>
  JSON.stringify({ raw_data: image.toString('base64'), configurations: Object.entries(configurations).map(([parameter, value]) => ({ parameter, value })) });

/** A progressive JPEG with 200 scans (one repeated): refused from its markers before any decoding. */
async function scanBomb(): Promise<Buffer> {
  const small = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#884422' } }).jpeg({ progressive: true }).toBuffer();
  const lastScan = small.lastIndexOf(Buffer.from([0xff, 0xda]));
  return Buffer.concat([small.subarray(0, small.length - 2), ...Array<Buffer>(200).fill(small.subarray(lastScan, small.length - 2)), Buffer.from([0xff, 0xd9])]);
}

async function calls(apiKey: string): Promise<Call[]> {
  const dog = fs.readFileSync(path.resolve('../shared/eval/photos/dog.jpg'));
  const twelveMp = await sharp(dog).resize(4000, 3000).jpeg({ quality: 90 }).toBuffer();
  const hugePngHeader = await sharp({ create: { width: 8000, height: 8000, channels: 3, background: '#000' } }).png({ compressionLevel: 9 }).toBuffer();
  const gzipDog = zlib.gzipSync(body(dog));
  // Small on the wire, 36 MP × 8 bytes in libvips: the allocation pattern that fragments glibc's heap.
  const bigPng = await sharp({ create: { width: 6000, height: 6000, channels: 4, background: { r: 90, g: 140, b: 200, alpha: 0.5 } } }).toColourspace('rgb16').png({ compressionLevel: 9 }).toBuffer();
  const auth = { Authorization: `ApiKey ${apiKey}` };
  const table: Call[] = [
    { kind: 'dog', body: body(dog), weight: 40 },
    { kind: '12mp', body: body(twelveMp), weight: 10 },
    { kind: 'crops+visualized', body: body(dog, { OutputCroppedImage: 'true', OutputVisualizedImage: 'true' }), weight: 15 },
    { kind: '36mp-16bit-png', body: body(bigPng), weight: 1 },
    { kind: 'gzip', body: new Uint8Array(gzipDog), headers: { 'Content-Encoding': 'gzip' }, weight: 5 },
    { kind: 'bad:json', body: '{"raw_data": ', weight: 4 },
    { kind: 'bad:base64', body: '{"raw_data": "@@@"}', weight: 4 },
    { kind: 'bad:image', body: body(Buffer.from('not an image at all')), weight: 4 },
    { kind: 'bad:key', body: body(dog), headers: { Authorization: 'ApiKey nope' }, weight: 4 },
    { kind: 'bad:path', path: '/api/v1/object-detection%zz', body: body(dog), weight: 3 },
    { kind: 'bad:gzip', body: Buffer.from('not gzip at all'), headers: { 'Content-Encoding': 'gzip' }, weight: 3 },
    { kind: 'bad:scan-bomb', body: body(await scanBomb()), weight: 4 },
    { kind: 'bad:huge-png', body: body(hugePngHeader), weight: 4 },
  ];
  return table.map((call) => ({ ...call, headers: { 'Content-Type': 'application/json', ...auth, ...call.headers } }));
}

/** A multipart form as bytes and its Content-Type, to send again and again. */
async function form(fields: Record<string, Buffer | string>): Promise<Pick<Call, 'body' | 'headers'>> {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') data.append(name, value);
    else data.append(name, new Blob([new Uint8Array(value)]), `${name}.jpg`);
  }
  const encoded = new Response(data);
  return { body: new Uint8Array(await encoded.arrayBuffer()), headers: { 'Content-Type': encoded.headers.get('content-type')! } };
}

/** A face service's calls: people are registered first (registerPeople), so that every face found is described and matched. */
async function faceCalls(apiKey: string): Promise<Call[]> {
  const faces = path.resolve('../shared/eval/faces');
  const crowds = ['18--Concerts/18_Concerts_Concerts_18_151.jpg', '12--Group/12_Group_Team_Organized_Group_12_Group_Team_Organized_Group_12_927.jpg', '2--Demonstration/2_Demonstration_Demonstration_Or_Protest_2_895.jpg'].map((file) =>
    fs.readFileSync(path.join(faces, 'wider-val', 'images', file)),
  );
  const group = fs.readFileSync(path.join(faces, 'bbt4.jpg'));
  const portrait = await sharp(fs.readFileSync(path.join(faces, 'bbt3.jpg'))).extract({ left: 110, top: 50, width: 140, height: 196 }).resize({ width: 2000 }).jpeg({ quality: 90 }).toBuffer();
  const crop = fs.readFileSync(path.join(faces, 'amy', 'amy2.png'));
  const auth = { Authorization: `ApiKey ${apiKey}` };
  const deepStack = async (route: string, fields: Record<string, Buffer | string>, kind: string, weight: number): Promise<Call> => {
    const encoded = await form(fields);
    return { kind, path: `/v1/vision/${route}`, body: encoded.body, headers: { ...auth, ...encoded.headers }, weight };
  };
  const nvision = (image: Buffer, configurations: Record<string, string>, kind: string, weight: number): Call => ({
    kind,
    path: '/api/v1/face-detection',
    body: body(image, configurations),
    headers: { ...auth, 'Content-Type': 'application/json' },
    weight,
  });
  return [
    ...(await Promise.all(crowds.map((crowd, index) => deepStack('face/recognize', { image: crowd, min_confidence: '0.1' }, `recognize crowd ${index + 1}`, 10)))),
    await deepStack('face/recognize', { image: group }, 'recognize group', 15),
    await deepStack('face', { image: portrait }, 'detect 2000 px portrait', 10),
    nvision(group, { OutputCroppedImage: 'true', OutputVisualizedImage: 'true' }, 'nvision crops+visualized', 10),
    await deepStack('face/register', { image: crop, userid: 'visitor' }, 'register', 3),
    await deepStack('face/delete', { userid: 'visitor' }, 'delete', 3),
    await deepStack('face/match', { image1: crop, image2: portrait }, 'match', 5),
    await deepStack('face/recognize', { image: Buffer.alloc(0) }, 'bad:empty image', 4),
    await deepStack('face/register', { image: Buffer.from('not an image at all'), userid: 'x' }, 'bad:register not an image', 4),
    { ...nvision(Buffer.from('not an image at all'), {}, 'bad:image', 4) },
    await deepStack('face/register', { image: crop, userid: 'a\u0085b' }, 'bad:userid', 2),
  ];
}

/** Registers the cast of ../shared/eval/faces (one crop each) with the face service. */
async function registerPeople(url: string, apiKey: string): Promise<void> {
  for (const person of ['amy', 'bernadette', 'howard', 'leonard', 'penny', 'raj', 'sheldon', 'stuart']) {
    const call = await form({ image: fs.readFileSync(path.resolve('../shared/eval/faces', person, `${person}1.png`)), userid: person });
    const response = await fetch(`${url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, ...call.headers }, body: call.body });
    if (!response.ok) throw new Error(`registering ${person}: ${response.status} ${await response.text()}`);
  }
}

function pick(table: readonly Call[]): Call {
  const total = table.reduce((sum, call) => sum + call.weight, 0);
  let at = Math.random() * total;
  for (const call of table) if ((at -= call.weight) < 0) return call;
  return table[0];
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-soak-'));
  const apiKey = await newApiKey(dataDir, options.faces ? 'face-detection' : undefined);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['dist/src/start.js'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DETECTD_DATA_DIR: dataDir, DETECTD_MODEL: options.model, DETECTD_LOG_LEVEL: 'warn', DETECTD_JEMALLOC: options.jemalloc ? '1' : '0' },
  });
  const stopServer = () => server.kill('SIGTERM');
  process.once('SIGINT', () => {
    stopServer();
    process.exit(130);
  });
  while (!(await fetch(`${url}/readyz`).then((response) => response.ok, () => false))) await new Promise((resolve) => setTimeout(resolve, 250));
  if (options.faces) await registerPeople(url, apiKey);
  const table = options.faces ? await faceCalls(apiKey) : await calls(apiKey);
  const clip = await makePanClip(path.resolve(options.faces ? '../shared/eval/faces/bbt1.jpg' : '../shared/eval/photos/dog.jpg'));
  console.log(
    `soak: ${options.minutes} min, ${options.clients} clients and ${options.streams} video streams, ${options.faces ? 'a face service (the embedded face model)' : `model ${path.basename(options.model)}`}, allocator ${options.jemalloc ? 'jemalloc (if installed)' : 'system'}, server pid ${server.pid}`,
  );

  const endAt = Date.now() + options.minutes * 60_000;
  let minuteLatencies: number[] = [];
  const allLatencies: number[] = [];
  const statuses = new Map<string, number>();
  const unplanned: string[] = [];
  const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);

  // Once a minute the clients pause, the calls in flight finish, and the server's RSS is read at
  // rest: what the process keeps between images, without the images in flight at that moment.
  let pause: Promise<void> | undefined;
  let inFlight = 0;
  async function rssAtRest(): Promise<number> {
    let resume = () => {};
    pause = new Promise((resolve) => (resume = resolve));
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, REST_MS));
    const mib = serverRssBytes(server.pid!) / 2 ** 20;
    pause = undefined;
    resume();
    return mib;
  }

  async function client(): Promise<void> {
    while (Date.now() < endAt) {
      if (pause) await pause;
      const call = pick(table);
      inFlight++;
      const started = performance.now();
      try {
        const response = await fetch(url + (call.path ?? '/api/v1/object-detection'), { method: 'POST', headers: call.headers, body: call.body });
        // The Nvision API's error is {code, message}; DeepStack's is a sentence, with its code beside it.
        const answer = (await response.json().catch(() => ({}))) as { error?: { code?: string } | string; code?: string };
        const code = (typeof answer.error === 'object' ? answer.error.code : answer.code) ?? 'ok';
        count(`${response.status} ${code}`);
        if (response.status === 200 && !call.kind.startsWith('bad:')) {
          const ms = performance.now() - started;
          minuteLatencies.push(ms);
          allLatencies.push(ms);
        }
        if (response.status >= 500 && !PLANNED_5XX.has(code)) unplanned.push(`${call.kind}: ${response.status} ${code}`);
        if (response.status === 200 && call.kind.startsWith('bad:')) unplanned.push(`${call.kind}: answered 200`);
      } catch (error) {
        count('connection error');
        unplanned.push(`${call.kind}: ${(error as Error).message}`);
      } finally {
        inFlight--;
      }
    }
  }

  /**
   * A camera: opens a stream (JSON and Nvision protocol in turn), sends the pan clip's frames at
   * STREAM_FPS for STREAM_SECONDS, closes it, and again; a pause for the RSS reading closes the
   * stream at once, so nothing is open at rest. Frames the server skipped for a newer one are
   * dropped, never failed; an error answer or a close other than ours is unplanned.
   */
  const streamCounts = { opened: 0, frames: 0, results: 0, errors: 0 };
  async function camera(index: number): Promise<void> {
    for (let round = 0; Date.now() < endAt; round++) {
      if (pause) await pause;
      const protocol = STREAM_PROTOCOLS[(index + round) % STREAM_PROTOCOLS.length];
      inFlight++;
      try {
        const connection = await CONNECT_STREAM[protocol]({ url, apiKey, task: options.faces ? 'face-detection' : undefined });
        streamCounts.opened++;
        count(`stream ${protocol} opened`);
        connection.onAnswer((answer) => {
          if (answer.kind === 'result') streamCounts.results++;
          else {
            streamCounts.errors++;
            unplanned.push(`stream ${protocol}: frame answered ${answer.code}`);
          }
        });
        let closedByUs = false;
        void connection.closed.then((code) => {
          if (!closedByUs) unplanned.push(`stream ${protocol}: closed by the server with ${code}`);
        });
        const started = performance.now();
        for (let frame = 0; frame < STREAM_FPS * STREAM_SECONDS && !pause && Date.now() < endAt; frame++) {
          const due = started + (frame * 1000) / STREAM_FPS;
          if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
          connection.send(clip.frames[frame % clip.frames.length], frame + 1);
          streamCounts.frames++;
        }
        // The last frame's answer, then our close.
        await new Promise((resolve) => setTimeout(resolve, 300));
        closedByUs = true;
        await connection.close();
      } catch (error) {
        count(`stream ${protocol} failed`);
        unplanned.push(`stream ${protocol}: ${(error as Error).message}`);
      } finally {
        inFlight--;
      }
    }
  }

  // RSS is also sampled every 5 s under load: floor, mean and peak per minute count the images in
  // flight at the moment of sampling, so the targets are judged on the RSS at rest.
  const rss: number[] = [];
  const floors: number[] = [];
  const atRest: number[] = [];
  let samples: number[] = [];
  const sampler = setInterval(() => samples.push(serverRssBytes(server.pid!) / 2 ** 20), 5_000);
  const report = (minute: number, rest: number) => {
    const mib = samples.reduce((sum, value) => sum + value, 0) / samples.length;
    rss.push(mib);
    floors.push(Math.min(...samples));
    atRest.push(rest);
    const p = (q: number) => (minuteLatencies.length ? percentile(minuteLatencies, q).toFixed(0) : '—');
    console.log(`minute ${minute}: RSS at rest ${rest.toFixed(0)} MiB; under load floor ${Math.min(...samples).toFixed(0)}, mean ${mib.toFixed(0)}, peak ${Math.max(...samples).toFixed(0)}; ${minuteLatencies.length} good answers, p50 ${p(50)} ms, p99 ${p(99)} ms`);
    minuteLatencies = [];
    samples = [];
  };
  let minute = 0;
  let sampling = Promise.resolve();
  const ticker = setInterval(() => (sampling = rssAtRest().then((rest) => report(++minute, rest))), 60_000);
  await Promise.all([...Array.from({ length: options.clients }, client), ...Array.from({ length: options.streams }, (_, index) => camera(index))]);
  clearInterval(ticker);
  // A reading begun as the clients finished is read before the server stops.
  await sampling;
  clearInterval(sampler);

  console.log('\nstatus counts:');
  for (const [key, value] of [...statuses].sort()) console.log(`  ${key}: ${value}`);
  console.log(`latency of good answers: p50 ${percentile(allLatencies, 50).toFixed(0)} ms, p99 ${percentile(allLatencies, 99).toFixed(0)} ms (${allLatencies.length})`);
  const { opened, frames, results, errors } = streamCounts;
  console.log(`video streams: ${opened} opened, ${frames} frames sent, ${results} answered with objects, ${frames - results - errors} skipped for a newer frame, ${errors} errors`);
  const flatWithin = (series: number[]) => series.slice(1).every((value) => Math.abs(value - series[1]) <= 0.1 * series[1]);
  const describe = (series: number[]) =>
    `${series.map((value) => value.toFixed(0)).join(', ')}${series.length >= 3 ? ` (from minute 2: ${flatWithin(series) ? 'flat' : 'NOT flat'} within ±10 % of minute 2)` : ''}`;
  console.log(`RSS at rest per minute (MiB): ${describe(atRest)}`);
  console.log(`RSS under load, floor per minute (MiB): ${describe(floors)}`);
  console.log(`RSS under load, mean per minute (MiB): ${describe(rss)}`);
  const flat = flatWithin(atRest);
  console.log(`unplanned failures: ${unplanned.length}${unplanned.length ? `\n  ${[...new Set(unplanned)].slice(0, 20).join('\n  ')}` : ''}`);
  stopServer();
  await new Promise((resolve) => server.once('exit', resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
  clip.remove();
  process.exitCode = unplanned.length || !flat ? 1 : 0;
}

if (options.faults) process.exitCode = (await soakFaults(options.model)) ? 0 : 1;
else await main();
