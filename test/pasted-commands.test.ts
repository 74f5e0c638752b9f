import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { expect } from 'chai';
import { exampleCalls } from '../src/tasks/example-calls.js';
import { objectDetection } from '../src/features/objects/object-detection-task.js';
import { ConsoleClient } from './support/console-client.js';
import { MODELS_DIR, photoPath, SHARED_DIR } from './support/paths.js';
import { requireBuild, type ServerProcess, startProcess } from './support/processes.js';

/**
 * What a new user pastes, run for real: every ```sh block of the README in order (the servers it
 * starts included), then those of each page of docs/ (on the server the README started), then the
 * command of the console's "Copy command" and of /docs. The few rewrites below are all there is
 * between the pages and what runs here:
 * - `npm ci && ` is dropped: the checkout this runs in is installed already (CI's .ci/run installs it from scratch);
 * - the block that is just `npm test` is not run: it is the suite this test belongs to;
 * - a block ending in `npm start` runs in the background until the next one (a free port instead of 8080);
 * - `localhost:8080` becomes that port, `'dtd_…'` the key printed by an earlier block, and
 *   `../shared/` the shared folder the tests use (DETECTD_SHARED_DIR);
 * - the shell has what the README asks the reader to set: `DETECTD_URL`, and `DETECTD_API_KEY` once a block printed a key;
 * - blocks naming a bare `dog.jpg` run in a folder holding it ("with dog.jpg in the current folder"), the rest in the checkout;
 * - a block that runs `detectd restore` or `migrate-to-postgres` runs with the server stopped, as the page says to,
 *   and a block that is just `npm start` (or the end of the page) starts it again as it was started (the README's model);
 * - the PostgreSQL steps run on a PostgreSQL server of their own, started bare (no role or database of
 *   detectd's) with TLS from a CA made for the test: `sudo -u postgres psql` is its superuser's psql,
 *   `localhost:5432` its port, `/etc/detectd/postgres-ca.crt` that CA, `data/` the data folder, and the
 *   shell has the `DETECTD_DATABASE_URL` and `DETECTD_SECRET` a block exported;
 * - `models pull` downloads from a mirror of ../shared/models on this machine (DETECTD_MODELS_MIRROR, which
 *   `https://models.example.com/detectd` becomes) into a folder of the test's (DETECTD_MODELS_DIR), not the checkout's,
 *   and servers started after a pull read that folder as the `./models` a pull fills;
 * - what the pages write into the checkout (`backups/`) is removed afterwards.
 * Shell blocks run in POSIX sh (dash); the console's and /docs's command in sh, bash and zsh.
 */

interface ShellBlock {
  readonly line: number;
  readonly text: string;
}

const README = fs.readFileSync('README.md', 'utf8');
const DOCS = fs
  .readdirSync('docs')
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => ({ file: `docs/${name}`, markdown: fs.readFileSync(path.join('docs', name), 'utf8') }));
/** What the pages' commands write into the checkout. */
const WRITTEN_IN_CHECKOUT = ['backups'];
const CLUSTER_SCRIPT = path.resolve('scripts/postgres-test-cluster.sh');

/** A CA, and a certificate it signed for `localhost` and 127.0.0.1 with its key, in `folder`: `ca.crt`, `server.crt`, `server.key`. */
function makeCertificates(folder: string): void {
  const openssl = (...args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: folder, encoding: 'utf8' });
    expect(result.status, `openssl ${args.join(' ')}: ${result.stderr}`).to.equal(0);
  };
  fs.writeFileSync(path.join(folder, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=detectd test CA', '-days', '2');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'san.ext');
}
const SHELLS = ['sh', 'bash', 'zsh'];

function shellBlocks(markdown: string): ShellBlock[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => ({
    line: markdown.slice(0, match.index).split('\n').length,
    text: match[1].trimEnd(),
  }));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const unescapeHtml = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** Runs pasted text in `shell` and returns what it printed; fails with the block and its output. */
function runPasted(shell: string, text: string, options: { cwd: string; env: NodeJS.ProcessEnv }, where: string): string {
  const result = spawnSync(shell, ['-e', '-c', text], { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect(result.status, `${where} in ${shell}:\n${text}\n--- output:\n${result.stdout}${result.stderr}`).to.equal(0);
  return result.stdout;
}

interface DetectionAnswer {
  readonly detected_objects?: { name: string }[];
  /** The DeepStack routes' shape. */
  readonly predictions?: { label: string }[];
}

/** What a command printed, if it is a detection answer (detectd's or DeepStack's shape). */
function detectionAnswer(output: string): DetectionAnswer | undefined {
  try {
    const body = JSON.parse(output) as DetectionAnswer;
    return body.detected_objects || body.predictions ? body : undefined;
  } catch {
    return undefined;
  }
}

function expectDog(output: string, where: string) {
  const answer = detectionAnswer(output);
  expect(answer, `${where} printed no detection answer: ${output.slice(0, 500)}`).to.not.equal(undefined);
  const names = answer!.detected_objects?.map((object) => object.name) ?? answer!.predictions!.map((prediction) => prediction.label);
  expect(names, `${where}: ${output.slice(0, 500)}`).to.include('dog');
}

describe('the commands users paste: README sh blocks, console "Copy command", /docs example', function () {
  // Every docs block runs its commands as a person would, each a CLI process: minutes on a loaded 2-core runner.
  this.timeout(900_000);
  let dataDir: string;
  let imageDir: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let server: ServerProcess | undefined;
  let apiKey: string | undefined;
  /** The command that last started the server. */
  let lastStart: string | undefined;
  /** The PostgreSQL server of the pages' PostgreSQL steps, once started: rewrites to reach it. */
  let postgres: { folder: string; certificates: string; superuser: string; port: number } | undefined;
  /** What a page's block exported for the blocks after it (DETECTD_DATABASE_URL, DETECTD_SECRET). */
  const exported: Record<string, string> = {};
  /** The models mirror of the pages' `models pull` (../shared/models over HTTP), and the folder it pulls into. */
  let modelsMirror: { server: ChildProcess; url: string; folder: string } | undefined;
  /** What the README's blocks printed. */
  const readmeOutputs: { block: ShellBlock; stdout: string }[] = [];

  before(async () => {
    requireBuild();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pasted-'));
    imageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pasted-image-'));
    fs.copyFileSync(photoPath('dog.jpg'), path.join(imageDir, 'dog.jpg'));
    port = await freePort();
    const { DETECTD_MODEL: _model, DETECTD_DATABASE_URL: _database, DETECTD_SECRET: _secret, ...inherited } = process.env;
    env = { ...inherited, DETECTD_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(imageDir, { recursive: true, force: true });
    for (const written of WRITTEN_IN_CHECKOUT) fs.rmSync(written, { recursive: true, force: true });
    if (modelsMirror) {
      modelsMirror.server.kill();
      fs.rmSync(modelsMirror.folder, { recursive: true, force: true });
    }
    if (postgres) {
      spawnSync('bash', [CLUSTER_SCRIPT, 'stop', postgres.folder]);
      fs.rmSync(postgres.certificates, { recursive: true, force: true });
    }
  });

  /**
   * Serves ../shared/models over HTTP (express.static: Range requests included, for resuming) as the pages'
   * models mirror (once), from a process of its own: the blocks run synchronously, holding this one's event loop.
   */
  async function pagesModelsMirror(): Promise<NonNullable<typeof modelsMirror>> {
    if (modelsMirror) return modelsMirror;
    const serve = `const s = require('express')().use(require('express').static(process.argv[1])).listen(0, '127.0.0.1', () => console.log(s.address().port));`;
    const server = spawn(process.execPath, ['-e', serve, MODELS_DIR], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [mirrorPort] = (await once(readline.createInterface({ input: server.stdout! }), 'line')) as [string];
    modelsMirror = { server, url: `http://127.0.0.1:${mirrorPort}`, folder: fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pasted-models-')) };
    return modelsMirror;
  }

  /** Starts the pages' PostgreSQL server (once): bare, over TLS, on a free port. */
  async function pagesPostgres(): Promise<NonNullable<typeof postgres>> {
    if (postgres) return postgres;
    const certificates = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pasted-tls-'));
    makeCertificates(certificates);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pasted-pg-'));
    const pgPort = await freePort();
    const started = spawnSync('bash', [CLUSTER_SCRIPT, 'start', folder, String(pgPort), 'bare', certificates], { encoding: 'utf8' });
    expect(started.status, started.stderr).to.equal(0);
    postgres = { folder, certificates, superuser: started.stdout.trim(), port: pgPort };
    return postgres;
  }

  /** A server's environment: once a page pulled models, their folder is its models folder (as `./models` would be). */
  // A server started again starts in the shell the blocks left: what they exported, the models they pulled.
  const serverEnv = (): NodeJS.ProcessEnv => ({ ...env, ...exported, ...(modelsMirror ? { DETECTD_MODELS_DIR: modelsMirror.folder } : {}) });

  /** Runs the sh blocks of `markdown` (the page `file`) in order, with the rewrites above; what each printed. */
  async function runBlocks(file: string, markdown: string): Promise<{ block: ShellBlock; stdout: string }[]> {
    const ran: { block: ShellBlock; stdout: string }[] = [];
    for (const block of shellBlocks(markdown)) {
      if (block.text === 'npm test') continue;
      let text = block.text
        .replace(/^npm ci && /, '')
        .replaceAll('localhost:8080', `127.0.0.1:${port}`)
        .replaceAll('../shared/', `${SHARED_DIR}/`);
      if (text.includes("'dtd_…'")) {
        expect(apiKey, `${file} line ${block.line} needs a key printed by an earlier block`).to.be.a('string');
        text = text.replaceAll("'dtd_…'", `'${apiKey}'`);
      }
      if (/sudo -u postgres psql|localhost:5432/.test(text)) {
        const cluster = await pagesPostgres();
        text = text
          .replaceAll('sudo -u postgres psql', `psql '${cluster.superuser}'`)
          .replaceAll('localhost:5432', `localhost:${cluster.port}`)
          .replaceAll('/etc/detectd/postgres-ca.crt', path.join(cluster.certificates, 'ca.crt'))
          .replaceAll('data/secret.key', path.join(dataDir, 'secret.key'));
      }
      expect(text.replace(/\s#.*$/gm, ''), `${file} line ${block.line}: a placeholder left`).to.not.contain('…');
      if (/(^|\s)npm start$/.test(text)) {
        // A bare `npm start` starts the server again as it was started before (a page's "start it again").
        if (text !== 'npm start' || !lastStart) lastStart = text;
        await server?.stop();
        server = await startProcess(serverEnv(), ['sh', '-e', '-c', lastStart]);
        continue;
      }
      if (/\bdetectd (restore|migrate-to-postgres)\b/.test(text)) {
        await server?.stop();
        server = undefined;
      }
      const pulls = /\bdetectd models pull\b/.test(text) ? await pagesModelsMirror() : undefined;
      if (pulls) text = text.replaceAll('https://models.example.com/detectd', pulls.url);
      const cwd = /(^|[\s@<=])dog\.jpg\b/m.test(text) ? imageDir : process.cwd();
      const shellEnv = {
        ...env,
        ...exported,
        ...(pulls ? { DETECTD_MODELS_MIRROR: pulls.url, DETECTD_MODELS_DIR: pulls.folder } : {}),
        DETECTD_URL: `http://127.0.0.1:${port}`,
        ...(apiKey ? { DETECTD_API_KEY: apiKey } : {}),
      };
      const stdout = runPasted('sh', text, { cwd, env: shellEnv }, `${file} line ${block.line}`);
      ran.push({ block, stdout });
      apiKey ??= /"api_key":\s*"(dtd_[\w-]+)"/.exec(stdout)?.[1];
      const databaseUrl = /^export DETECTD_DATABASE_URL='([^']+)'$/m.exec(text)?.[1];
      if (databaseUrl) exported.DETECTD_DATABASE_URL = databaseUrl;
      const secretFile = /^export DETECTD_SECRET="\$\(cat ([^)]+)\)"$/m.exec(text)?.[1];
      if (secretFile) exported.DETECTD_SECRET = fs.readFileSync(secretFile, 'utf8').trim();
    }
    if (!server && lastStart) server = await startProcess(serverEnv(), ['sh', '-e', '-c', lastStart]);
    return ran;
  }

  // Every test below starts from what the README's blocks leave (its server, account, services, key): they run once, here.
  before(async () => {
    expect(shellBlocks(README).length).to.be.greaterThan(3);
    readmeOutputs.push(...(await runBlocks('README', README)));
  });

  it("the README's example command is the one console and /docs give (one generator)", () => {
    expect(README).to.contain(exampleCalls(objectDetection, 'http://localhost:8080/api/v1/object-detection', 'assets/photos/dog.jpg').curl);
  });

  it('every sh block of the README runs as pasted, and its detection finds the dog', async () => {
    expect(server, 'a README block starts the service').to.not.equal(undefined);
    const detections = readmeOutputs.filter(({ block }) => /\/api\/v1\/object-detection|\/v1\/vision\/detection/.test(block.text));
    expect(detections.length, 'README blocks call the detection API').to.be.greaterThan(0);
    for (const { block, stdout } of detections) expectDog(stdout, `README line ${block.line}`);
    // The face example: the astronaut's face found, registered, then named.
    const faces = readmeOutputs.filter(({ block }) => block.text.includes('/v1/vision/face/register'));
    expect(faces, 'README registers a face').to.have.length(1);
    expect(faces[0].stdout).to.match(/"detected_faces":\[\{"name":"face"/).and.match(/"detected_faces":\[\{"name":"eileen","parent":"face","similarity":1,/);
  });

  it('every sh block of docs/*.md runs as pasted: a backup of the README\'s server, restored, the server started again; moved into PostgreSQL over TLS, dumped and restored', async () => {
    const operations = DOCS.find((page) => page.file === 'docs/operations.md');
    expect(operations, 'docs/operations.md').to.not.equal(undefined);
    const ran: { block: ShellBlock; stdout: string }[] = [];
    for (const { file, markdown } of DOCS) ran.push(...(await runBlocks(file, markdown)));
    const printed = ran.map(({ stdout }) => stdout).join('');
    expect(printed).to.match(/backup written to .*backups\/detectd-[\d-]+\.tar\.gz/).and.match(/restored .* into /);
    // Moved into PostgreSQL over TLS (verify-full): the README's two services and its registered face, and docs/moving-from-compreface.md's face service and the example it adds, where the CLI then finds them.
    expect(printed).to.match(/copied into PostgreSQL postgres:\/\/detectd@localhost:\d+\/detectd: accounts 1, invitations 0, services 3, api_keys 3, .*memory_versions \d+, face_people 2, face_samples 2, face_negatives 0, unknown_groups 0, unknown_faces 0, known_plates 0, state_regions 0, state_examples 0\./);
    expect(printed).to.match(/you@example\.com\s+cameras\s+object-detection/);
    expect(fs.readdirSync('backups').filter((name) => name.endsWith('.dump')), 'pg_dump wrote a dump').to.have.length(1);
    // docs/plates.md: the plate models pulled, the server started again, a plate service answering CodeProject.AI's route.
    // docs/moving-from-compreface.md: an example added through CompreFace's API, the face then named, the subject listed.
    const compreFace = ran.find(({ block }) => block.text.includes('/api/v1/recognition/recognize'));
    expect(compreFace?.stdout, 'docs/moving-from-compreface.md calls CompreFace\'s recognize').to.match(/"subject":"eileen"/).and.contain('"subjects":[{"subject":"eileen","similarity":1}]').and.contain('{"subjects":["eileen"]}');
    const alpr = ran.find(({ block }) => block.text.includes('/v1/image/alpr'));
    expect(alpr?.stdout, 'docs/plates.md calls /v1/image/alpr').to.contain('"message":"No plates found"');
    expect(server, 'the pages leave a server running').to.not.equal(undefined);
    for (const { block, stdout } of ran.filter(({ block }) => /\/api\/v1\/object-detection|\/v1\/vision\/detection/.test(block.text))) expectDog(stdout, `docs line ${block.line}`);
  });

  it('the console\'s "Copy command" text, with the key it puts in, runs in sh, bash and zsh', async () => {
    const browser = new ConsoleClient(`http://127.0.0.1:${port}`);
    const signedIn = await browser.signIn('you@example.com', 'a long passphrase');
    expect(signedIn.status, signedIn.text.slice(0, 300)).to.equal(303);
    const list = await browser.get('/console/services');
    const serviceId = /\/console\/services\/([0-9a-f-]{36})/.exec(list.text)?.[1];
    expect(serviceId, 'the README created a service').to.be.a('string');
    const overview = await browser.get(`/console/services/${serviceId}`);
    const pre = /<pre [^>]*\bid="curl-example"[^>]*>([\s\S]*?)<\/pre>/.exec(overview.text)?.[1];
    expect(pre, 'the overview page shows the command').to.be.a('string');
    const { body } = await browser.revealKey(serviceId!);
    // What "Copy command" copies: the pre's text, with the key in its slot.
    const copied = unescapeHtml(pre!.replace(/<span data-key-slot>[^<]*<\/span>/, body.api_key).replace(/<[^>]+>/g, ''));
    expect(copied).to.contain(`export DETECTD_API_KEY='${body.api_key}'`);
    for (const shell of SHELLS) expectDog(runPasted(shell, copied, { cwd: imageDir, env }, 'console "Copy command"'), `console command in ${shell}`);
  });

  it('the /docs example (from /openapi.json, aimed at this server) runs in sh, bash and zsh with the key in DETECTD_API_KEY', async () => {
    const document = (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as { paths: Record<string, { post: { description: string } }> };
    const command = /```sh\n([\s\S]*?)\n```/.exec(document.paths['/api/v1/object-detection'].post.description)?.[1];
    expect(command, '/docs shows an example').to.be.a('string').and.contain(`http://127.0.0.1:${port}/api/v1/object-detection`);
    for (const shell of SHELLS) {
      expectDog(runPasted(shell, command!, { cwd: imageDir, env: { ...env, DETECTD_API_KEY: apiKey } }, '/docs example'), `/docs example in ${shell}`);
    }
  });
});
