import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

/** The folder of the committed models. */
export const ASSETS = path.resolve('assets/models');

export const sha256Of = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The cells of assets/models/README.md's table row for `file` (file, what, license, source, sha256), code quotes dropped. */
export function readmeRow(file: string): string[] {
  const readme = fs.readFileSync(path.join(ASSETS, 'README.md'), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith(`| \`${file}\``));
  expect(row, `assets/models/README.md has a row for ${file}`).to.be.a('string');
  return row!.split(' | ').map((cell) => cell.replace(/^\| |\s\|$/g, '').replaceAll('`', ''));
}
