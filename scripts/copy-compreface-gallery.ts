/**
 * Copies a CompreFace face collection into a detectd face service, both through CompreFace's REST
 * API (which detectd's CompreFace door speaks): every example of every subject, listed a page at a
 * time (`GET /api/v1/recognition/faces?page=&size=` — the JS SDK's `list()` asks for the first page
 * only, 20 examples), its photo downloaded (`GET /api/v1/recognition/faces/{image_id}/img`) and
 * added to detectd under its subject (`POST /api/v1/recognition/faces?subject=`). CompreFace keeps
 * each example's photo unless it runs with `save_images_to_db=false`; an example without one is
 * reported and left out. One line per example; exits 1 when one was not copied.
 *
 *   npx tsx scripts/copy-compreface-gallery.ts --from http://compreface:8000 --from-key <recognition key> \
 *     --to http://localhost:8080 --to-key <detectd face service key>
 */
import { Command } from 'commander';

const PAGE_SIZE = 100;

interface Example {
  readonly image_id: string;
  readonly subject: string;
}

interface Options {
  readonly from: string;
  readonly fromKey: string;
  readonly to: string;
  readonly toKey: string;
}

const program = new Command()
  .requiredOption('--from <url>', "CompreFace's address, e.g. http://compreface:8000")
  .requiredOption('--from-key <key>', "the key of CompreFace's recognition service whose collection is copied")
  .requiredOption('--to <url>', "detectd's address, e.g. http://localhost:8080")
  .requiredOption('--to-key <key>', "the key of the detectd face service that receives it")
  .parse();

/** Every example of the collection at `url`, a page at a time. */
async function* examplesOf(url: string, key: string): AsyncGenerator<Example> {
  for (let page = 0, pages = 1; page < pages; page += 1) {
    const response = await fetch(`${url}/api/v1/recognition/faces?page=${page}&size=${PAGE_SIZE}`, { headers: { 'x-api-key': key } });
    if (!response.ok) throw new Error(`listing the examples of ${url}: HTTP ${response.status} ${await response.text()}`);
    const listed = (await response.json()) as { faces: Example[]; total_pages: number };
    pages = listed.total_pages;
    yield* listed.faces;
  }
}

/** One example copied: its photo downloaded from the source and added to detectd; what went wrong otherwise. */
async function copy({ from, fromKey, to, toKey }: Options, { image_id, subject }: Example): Promise<string | undefined> {
  const photo = await fetch(`${from}/api/v1/recognition/faces/${encodeURIComponent(image_id)}/img`, { headers: { 'x-api-key': fromKey } });
  const bytes = Buffer.from(await photo.arrayBuffer());
  if (!photo.ok || bytes.length === 0) return `no photo kept (HTTP ${photo.status}, ${bytes.length} bytes)`;
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), `${image_id}.jpg`);
  const added = await fetch(`${to}/api/v1/recognition/faces?subject=${encodeURIComponent(subject)}`, { method: 'POST', headers: { 'x-api-key': toKey }, body: form });
  if (!added.ok) return `refused: HTTP ${added.status} ${await added.text()}`;
  return undefined;
}

async function main(options: Options): Promise<number> {
  let copied = 0;
  let left = 0;
  for await (const example of examplesOf(options.from, options.fromKey)) {
    const problem = await copy(options, example);
    if (problem) left += 1;
    else copied += 1;
    console.log(`${example.subject}\t${example.image_id}\t${problem ?? 'copied'}`);
  }
  console.log(`${copied} examples copied, ${left} not`);
  return left === 0 ? 0 : 1;
}

const options = program.opts<Options>();
const withoutSlash = (url: string) => url.replace(/\/+$/, '');
process.exitCode = await main({ ...options, from: withoutSlash(options.from), to: withoutSlash(options.to) });
