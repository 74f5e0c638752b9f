import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { cropPath, FACES_DIR } from './support/faces.js';
import { photoPath } from './support/paths.js';
import { head, rawExchange } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const run = promisify(execFile);
const SCRIPT = path.resolve('test/clients/deepstack_own_tests.py');

/**
 * DeepStack's photos are not here; each is one of ../shared's that shows what theirs does: four faces
 * (bbt1: four men on a couch), one person twice (Penny's first and third crops), someone else
 * (Sheldon, twice) and a third person (Leonard), and dog.jpg's three objects (dog, bicycle, truck).
 */
const PHOTOS = {
  'face_detection.jpg': path.join(FACES_DIR, 'bbt1.jpg'),
  'adele1.jpg': cropPath('penny', 1),
  'adele2.jpg': cropPath('penny', 3),
  'obama1.jpg': cropPath('sheldon', 1),
  'obama2.jpg': cropPath('sheldon', 2),
  'bradley.jpg': cropPath('leonard', 1),
  'detection.jpg': photoPath('dog.jpg'),
};

/** DeepStack's tests, in the order pytest runs them: every one of its face and detection tests. */
const PASSING = [
  'test_face.py::test_detection',
  'test_face.py::test_register',
  'test_face.py::test_recognize',
  'test_face.py::test_match',
  'test_face.py::test_list',
  'test_face.py::test_delete',
  'test_face.py::test_recognize_after_delete',
  'test_face.py::test_list_after_delete',
  'test_objectdetection.py::test_detection',
];

/**
 * The Python interpreters to run them with, each once: the `python3` on the PATH (the one every client test runs), and
 * Debian 12's (/usr/bin/python3, requests 2.28.1, which sends a POST whose form encodes to nothing with no length,
 * then `0\r\n\r\n`), where they differ.
 */
function pythons(): string[] {
  const onPath = (process.env.PATH ?? '').split(path.delimiter).map((folder) => path.join(folder, 'python3')).find((file) => fs.existsSync(file));
  const debian = '/usr/bin/python3';
  return onPath === undefined || fs.realpathSync(onPath) === fs.realpathSync(debian) ? [debian] : [onPath, debian];
}

interface Outcome {
  test: string;
  requests: string;
  passed: boolean;
  failure?: string;
}

/**
 * DeepStack's own face and detection tests (johnolafenwa/DeepStack tests/face/test_face.py and
 * tests/detection/test_objectdetection.py, test/clients/deepstack_own_tests.py), run as their CI runs
 * them with no TEST_API_KEY, against detectd with keyless calls from this machine.
 */
describe("DeepStack's own face and detection tests, against a keyless detectd", function () {
  this.timeout(180_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
    const faceKey = await server.createService({ name: 'deepstack faces', type: 'face-detection' });
    for (const key of [server.apiKey, faceKey]) await server.domain.services.setKeylessAddressRanges((await server.domain.keys.authenticate(key))!, '');
  });
  after(async () => server?.close());

  /** The tests `names` name, run by `python`'s requests on a new face service state (DeepStack's tests register and delete "Adele"). */
  async function deepstackTests(python: string, names: readonly string[]): Promise<Outcome[]> {
    const { stdout } = await run(python, [SCRIPT, server.url, ...names], { env: { ...process.env, DEEPSTACK_TEST_PHOTOS: JSON.stringify(PHOTOS) } });
    return stdout.trim().split('\n').map((line) => JSON.parse(line));
  }

  it('pass, with the requests of every python3 here (the one on the PATH, Debian 12\'s 2.28.1)', async () => {
    const versions = new Set<string>();
    for (const python of pythons()) {
      const outcomes = await deepstackTests(python, PASSING);
      versions.add(outcomes[0]!.requests);
      expect(outcomes.filter((outcome) => !outcome.passed), `${python}, requests ${outcomes[0]!.requests}`).to.deep.equal([]);
      expect(outcomes.map((outcome) => outcome.test)).to.deep.equal(PASSING);
    }
    expect([...versions], 'Debian 12\'s requests among them').to.include('2.28.1');
  });

  it("/v1/vision/face/list as requests 2.28.1 frames it: no length, then stray bytes `0\\r\\n\\r\\n`; its own answer first, then the connection closes", async () => {
    // requests 2.28.1 sends `data={"api_key": None}` (an empty form) as a chunked body without saying so: the head has neither Content-Length nor Transfer-Encoding.
    const request = head('POST /v1/vision/face/list HTTP/1.1', {
      Host: `127.0.0.1:${server.port}`,
      'User-Agent': 'python-requests/2.28.1',
      'Accept-Encoding': 'gzip, deflate',
      Accept: '*/*',
      Connection: 'keep-alive',
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    for (const parts of [[request, '0\r\n\r\n'], [request + '0\r\n\r\n']]) {
      const response = await rawExchange(server.port, parts, { closeWithinMs: 5_000 });
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      expect(response.body).to.include({ success: true });
      expect(response.body.faces).to.be.an('array');
      expect(response.headers.connection).to.equal('close');
      expect(response.closed).to.equal(true);
      expect(response.after, 'nothing after the answer').to.equal('');
    }
  });
});
