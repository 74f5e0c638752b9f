import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const run = promisify(execFile);

/** The `sh` code blocks of the README section under `heading` (up to the next heading of its level or above). */
function shellBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const level = heading.indexOf(' ');
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
}

describe('README upload commands, run as written against a real server', () => {
  const readme = fs.readFileSync('README.md', 'utf8');
  const commands = [
    ...shellBlocks(readme, '### Sending the image: a form, the raw bytes, or JSON'),
    ...shellBlocks(readme, '## Moving from DeepStack / CodeProject.AI'),
  ];
  let server: TestServer;
  let folder: string;

  before(async () => {
    server = await startTestServer();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-readme-'));
    fs.copyFileSync(photoPath('dog.jpg'), path.join(folder, 'dog.jpg'));
  });
  after(async () => {
    await server?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('finds one command per form: multipart, raw image, base64 JSON and DeepStack', () => {
    expect(commands).to.have.length(4);
    expect(commands[0]).to.contain('-F image=@dog.jpg');
    expect(commands[1]).to.contain('--data-binary @dog.jpg');
    expect(commands[2]).to.contain('base64 < dog.jpg');
    expect(commands[3]).to.contain('/v1/vision/detection');
  });

  for (const shell of ['sh', 'bash']) {
    it(`each command finds the dog, the bicycle and the truck above 0.5 (${shell})`, async () => {
      for (const command of commands) {
        const { stdout } = await run(shell, ['-c', command], { cwd: folder, env: { ...process.env, DETECTD_URL: server.url, DETECTD_API_KEY: server.apiKey } });
        const answer = JSON.parse(stdout) as { detected_objects?: { name: string; confidence: number }[]; predictions?: { label: string; confidence: number }[] };
        const found = answer.detected_objects?.map(({ name, confidence }) => ({ name, confidence })) ?? answer.predictions!.map(({ label, confidence }) => ({ name: label, confidence }));
        expect(found.map(({ name }) => name).sort(), command).to.deep.equal(['bicycle', 'dog', 'truck']);
        expect(found.every(({ confidence }) => confidence >= 0.5), command).to.equal(true);
      }
    });
  }
});
