import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { DCLinter } from 'dclint';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate as validateDockerfile } from 'dockerfile-utils';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { MAIN, requireBuild, startProcess } from './support/processes.js';

/**
 * The packaging files, linted and checked against what detectd needs on every test run: the Dockerfile
 * with dockerfile-utils (the Dockerfile language service's validator) and its parsed instructions,
 * compose.yaml with dclint (Compose Specification schema and lint rules), the systemd unit with
 * `systemd-analyze verify`. Building and running them takes a container engine: scripts/container-check.sh
 * does that under podman, on every .ci/run (docs/deployment.md, "Checking the deployment files").
 */

const read = (file: string) => fs.readFileSync(file, 'utf8');

/** The variables the Configuration table of docs/configuration.md documents. */
const DOCUMENTED = new Set([...read('docs/configuration.md').matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((match) => match[1]));

describe('packaging: Dockerfile, .dockerignore, compose.yaml, systemd unit', () => {
  describe('Dockerfile', () => {
    const content = read('Dockerfile');
    const dockerfile = DockerfileParser.parse(content);
    const instructions = dockerfile.getInstructions();
    const froms = dockerfile.getFROMs();
    const finalStage = instructions.filter((instruction) => instruction.getRange().start.line > froms.at(-1)!.getRange().start.line);
    const named = (keyword: string, among: Instruction[] = instructions) => among.filter((instruction) => instruction.getKeyword() === keyword);
    const argument = (instruction: Instruction) => instruction.getArgumentsContent() ?? '';

    it('has no problem the Dockerfile validator finds', () => {
      expect(validateDockerfile(content).map((problem) => `line ${problem.range.start.line + 1}: ${problem.message}`)).to.deep.equal([]);
    });

    it('is multi-stage on pinned Debian Node.js images, build arguments of the same default (the native modules are glibc builds for that Node.js)', () => {
      expect(froms.length).to.be.at.least(2);
      const nodeImage = /^ARG NODE_IMAGE=(\S+)$/m.exec(content)?.[1];
      expect(nodeImage).to.match(/^node:\d+-bookworm-slim$/);
      expect(/^ARG BUILD_IMAGE=(\S+)$/m.exec(content)?.[1]).to.equal(nodeImage);
      expect(froms.map((from) => from.getImage())).to.deep.equal(['${BUILD_IMAGE}', '${NODE_IMAGE}']);
      expect(named('COPY', finalStage).some((copy) => copy.getTextContent().startsWith('COPY --from=build '))).to.equal(true);
    });

    it('runs as an unprivileged user, as `npm start` does (start.js: jemalloc, installed), the data folder a volume', () => {
      const users = named('USER', finalStage);
      expect(users.length).to.equal(1);
      expect(argument(users[0])).to.not.match(/^(root|0)(:|$)/);
      expect(JSON.parse(argument(named('CMD', finalStage)[0]))).to.deep.equal(['node', 'dist/src/start.js']);
      expect(JSON.parse(read('package.json')).scripts.start).to.equal('node dist/src/start.js');
      expect(argument(named('RUN', finalStage)[0])).to.match(/apt-get install .*\blibjemalloc2\b/);
      expect(argument(named('ENV', finalStage)[0])).to.contain('DETECTD_DATA_DIR=/var/lib/detectd');
      expect(argument(named('VOLUME', finalStage)[0])).to.contain('/var/lib/detectd');
      expect(named('ADD')).to.deep.equal([]);
    });

    it('checks health on /readyz: its command passes against a ready server and fails once it stopped', async function () {
      this.timeout(60_000);
      requireBuild();
      const healthchecks = named('HEALTHCHECK', finalStage);
      expect(healthchecks.length).to.equal(1);
      const command = JSON.parse(/CMD (\[.*\])$/s.exec(argument(healthchecks[0]).replace(/\\\n\s*/g, ''))![1]) as string[];
      expect(command[0]).to.equal('node');
      expect(command.join(' ')).to.contain('/readyz');
      const port = await new Promise<number>((resolve) => {
        const probe = net.createServer().listen(0, '127.0.0.1', () => {
          const { port: free } = probe.address() as net.AddressInfo;
          probe.close(() => resolve(free));
        });
      });
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-healthcheck-'));
      const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DETECTD_DATA_DIR: dataDir, DETECTD_MODEL: DEFAULT_TEST_MODEL };
      const healthcheck = () => spawnSync(process.execPath, command.slice(1), { env, encoding: 'utf8' }).status;
      try {
        const server = await startProcess(env, [process.execPath, MAIN]);
        try {
          expect(healthcheck(), 'healthy while serving').to.equal(0);
        } finally {
          await server.stop();
        }
        expect(healthcheck(), 'unhealthy once stopped').to.equal(1);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('the image needs no development package: compiled detectd imports only "dependencies"', () => {
      requireBuild();
      const { dependencies } = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
      const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
      const imported = new Set<string>();
      for (const file of fs.readdirSync('dist/src', { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'))) {
        const source = read(path.join('dist/src', file));
        // Static and dynamic imports as the compiler sees them (not text inside strings), and require.resolve.
        const specifiers = [...ts.preProcessFile(source, true, true).importedFiles.map((reference) => reference.fileName), ...[...source.matchAll(/require\.resolve\('([^']+)'\)/g)].map((match) => match[1])];
        for (const specifier of specifiers) {
          if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
          imported.add(packageOf(specifier));
        }
      }
      expect(imported.size).to.be.greaterThan(5);
      expect([...imported].filter((name) => !(name in dependencies))).to.deep.equal([]);
    });

    it('copies only what exists and what .dockerignore lets into the build context', () => {
      const allowed = read('.dockerignore')
        .split('\n')
        .filter((line) => line.startsWith('!'))
        .map((line) => line.slice(1).replace(/\/$/, ''));
      expect(read('.dockerignore').split('\n').find((line) => line && !line.startsWith('#'))).to.equal('*');
      const sources = named('COPY')
        .filter((copy) => !copy.getTextContent().startsWith('COPY --from='))
        .flatMap((copy) => argument(copy).split(/\s+/).slice(0, -1));
      expect(sources.length).to.be.greaterThan(3);
      for (const source of sources) {
        expect(fs.existsSync(source), source).to.equal(true);
        expect(allowed.some((entry) => source === entry || source.startsWith(entry + '/')), `${source} in .dockerignore`).to.equal(true);
      }
      // What detectd reads at run time besides dist/ and node_modules/.
      for (const needed of ['package.json', 'schemas', 'assets']) expect(content).to.match(new RegExp(`^COPY .*\\b${needed}\\b`, 'm'));
    });
  });

  describe('compose.yaml', () => {
    const compose = parseYaml(read('compose.yaml')) as {
      services: Record<
        string,
        { environment?: Record<string, string>; volumes?: string[]; deploy?: { replicas?: number }; image?: string; build?: { context: string; args: Record<string, string> } }
      >;
    };

    it('passes dclint: the Compose Specification schema and every lint rule', () => {
      const linter = new DCLinter({ rules: {}, quiet: true, debug: false, exclude: [] });
      const [result] = linter.lintFiles(['compose.yaml'], false);
      expect(result.messages.map((message: { line: number; rule: string; message: string }) => `line ${message.line}: ${message.rule}: ${message.message}`)).to.deep.equal([]);
    });

    it('runs two detectd replicas from this Dockerfile on one PostgreSQL with a shared secret, models mounted read-only', () => {
      const { detectd, postgres } = compose.services;
      expect(detectd.build?.context).to.equal('.');
      expect(detectd.deploy?.replicas).to.equal(2);
      expect(detectd.environment?.DETECTD_DATABASE_URL).to.match(/^postgres:\/\/detectd:.*@postgres:5432\/detectd$/);
      expect(detectd.environment?.DETECTD_SECRET).to.match(/^\$\{DETECTD_SECRET:\?/);
      expect(detectd.environment?.DETECTD_MODEL).to.contain('/models/');
      expect(detectd.volumes?.some((volume) => volume.endsWith(':/models:ro'))).to.equal(true);
      expect(postgres.image).to.match(/^\$\{POSTGRES_IMAGE:-postgres:\d+/);
    });

    it('base images are variables defaulting to the registry images (for the Dockerfile: its own defaults)', () => {
      const { detectd, postgres, proxy } = compose.services;
      for (const name of ['NODE_IMAGE', 'BUILD_IMAGE']) {
        const dockerfileDefault = new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(read('Dockerfile'))?.[1];
        expect(detectd.build?.args[name]).to.equal(`\${${name}:-${dockerfileDefault}}`);
      }
      expect(postgres.image).to.match(/^\$\{POSTGRES_IMAGE:-postgres:[\w.-]+\}$/);
      expect(proxy.image).to.match(/^\$\{NGINX_IMAGE:-nginx:[\w.-]+\}$/);
    });

    it('nginx gets deploy/nginx.conf (nginx itself reads it in scripts/container-check.sh), which never marks every replica down', () => {
      expect(compose.services.proxy.volumes).to.deep.equal(['./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro']);
      // max_fails=0: requests that came while the replicas were starting must not take them all out of the upstream.
      expect(read('deploy/nginx.conf')).to.match(/^\s*server detectd:8080 max_fails=0;$/m);
    });

    it('sets only variables docs/configuration.md documents', () => {
      for (const name of Object.keys(compose.services.detectd.environment ?? {})) expect(DOCUMENTED, name).to.include(name);
    });
  });

  describe('deploy/detectd.service and deploy/detectd.env', () => {
    it('passes systemd-analyze verify without a warning', () => {
      const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-unit-'));
      try {
        // verify checks that ExecStart's program exists: the node running this test stands in for /usr/bin/node.
        const unit = read('deploy/detectd.service').replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${process.execPath} `);
        fs.writeFileSync(path.join(directory, 'detectd.service'), unit);
        const result = spawnSync('systemd-analyze', ['verify', path.join(directory, 'detectd.service')], { encoding: 'utf8' });
        expect(result.error, 'systemd-analyze (Debian package systemd) is installed').to.equal(undefined);
        expect(result.stderr).to.equal('');
        expect(result.status).to.equal(0);
      } finally {
        fs.rmSync(directory, { recursive: true, force: true });
      }
    });

    it('starts the built service as an unprivileged user with its state folder and the env file', () => {
      const unit = read('deploy/detectd.service');
      expect(unit).to.match(/^User=detectd$/m);
      // As `npm start` (start.js: on jemalloc); the signal to start.js alone, which passes it on once.
      expect(unit).to.match(/^ExecStart=\/usr\/bin\/node \/opt\/detectd\/dist\/src\/start\.js$/m);
      expect(unit).to.match(/^KillMode=mixed$/m);
      // A start-up that fails for good (a missing model, exit 1; a refused setting, exit 2) does not loop forever.
      expect(unit).to.match(/^StartLimitBurst=\d+$/m);
      expect(unit).to.match(/^RestartPreventExitStatus=2$/m);
      expect(unit).to.match(/^StateDirectory=detectd$/m);
      expect(unit).to.match(/^Environment=DETECTD_DATA_DIR=\/var\/lib\/detectd$/m);
      expect(unit).to.match(/^EnvironmentFile=\/etc\/detectd\/detectd\.env$/m);
    });

    it('the env file names only variables docs/configuration.md documents, in systemd syntax', () => {
      const lines = read('deploy/detectd.env').split('\n');
      const names = lines.flatMap((line) => /^#? ?([A-Z][A-Z0-9_]*)=/.exec(line)?.[1] ?? []);
      expect(names.length).to.be.greaterThan(3);
      for (const name of names) expect(DOCUMENTED, name).to.include(name);
      expect(lines.filter((line) => line.startsWith('export '))).to.deep.equal([]);
    });
  });
});
