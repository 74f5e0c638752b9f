import type { ExamplePhoto, Task } from './task.js';

/** What a task is shown sending unless it names its own photo. */
const EXAMPLE_PHOTO: ExamplePhoto = { file: 'dog.jpg', description: 'an image file' };

/** The photo `task`'s example call sends: its own (Task.examplePhoto), else dog.jpg. */
export const examplePhotoOf = (task: Pick<Task, 'examplePhoto'>): ExamplePhoto => task.examplePhoto ?? EXAMPLE_PHOTO;

/** The languages the console shows a task's call in; the README and /docs show its curl. */
export interface ExampleCalls {
  /** A shell command (POSIX sh, bash, zsh; Linux and macOS). */
  readonly curl: string;
  /** A Python 3 script using requests. */
  readonly python: string;
  /** A JavaScript module for Node 20 or later (save as `detect.mjs`, run `node detect.mjs`): fetch and FormData, no packages. */
  readonly javascript: string;
}

/** `text` as one shell word: as it is when it holds nothing the shell would read, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w./:@%+,=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** `text` as a string literal Python and JavaScript both read as `text` (JSON's escapes are valid in both). */
const literal = (text: string) => JSON.stringify(text);

/**
 * How to call a task at `endpoint` with the image file at `imagePath` and the key in
 * `$DETECTD_API_KEY`, in every language from one description: a form upload of the image as
 * `image` and the task's `exampleFields`. A form, because curl reads the file itself: base64
 * through a command-line argument is what fails (`-d "$(base64 …)"`: a photo's base64 is longer
 * than the 128 KiB Linux allows one argument, and `base64 -w0` is GNU-only).
 */
export function exampleCalls(task: Pick<Task, 'exampleFields'>, endpoint: string, imagePath: string): ExampleCalls {
  const fields = Object.entries(task.exampleFields);
  const curlFields = fields.map(([name, value]) => ` -F ${shellWord(`${name}=${value}`)}`).join('');
  const curl = [`curl -s ${shellWord(endpoint)} \\`, `  -H "Authorization: ApiKey $DETECTD_API_KEY" \\`, `  -F ${shellWord(`image=@${imagePath}`)}${curlFields}`].join('\n');
  const python = [
    'import os',
    '',
    'import requests',
    '',
    `with open(${literal(imagePath)}, "rb") as image:`,
    '    response = requests.post(',
    `        ${literal(endpoint)},`,
    '        headers={"Authorization": "ApiKey " + os.environ["DETECTD_API_KEY"]},',
    '        files={"image": image},',
    `        data={${fields.map(([name, value]) => `${literal(name)}: ${literal(value)}`).join(', ')}},`,
    '        timeout=60,',
    '    )',
    'response.raise_for_status()',
    'print(response.json())',
  ].join('\n');
  const javascript = [
    'import { readFile } from "node:fs/promises";',
    '',
    'const form = new FormData();',
    `form.append("image", new Blob([await readFile(${literal(imagePath)})]), ${literal(imagePath.split('/').pop()!)});`,
    ...fields.map(([name, value]) => `form.append(${literal(name)}, ${literal(value)});`),
    `const response = await fetch(${literal(endpoint)}, {`,
    '  method: "POST",',
    '  headers: { Authorization: `ApiKey ${process.env.DETECTD_API_KEY}` },',
    '  body: form,',
    '});',
    'if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);',
    'console.log(JSON.stringify(await response.json(), null, 2));',
  ].join('\n');
  return { curl, python, javascript };
}
