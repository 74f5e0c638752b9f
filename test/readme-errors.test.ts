import fs from 'node:fs';
import { expect } from 'chai';
import { DESCRIBED_FEATURES } from '../src/features/index.js';

/** The rows of the first table under docs/api.md's "## Errors" heading, each as its cells. */
function documentedErrorRows(): string[][] {
  const page = fs.readFileSync('docs/api.md', 'utf8');
  const section = page.split(/^## Errors$/m)[1]?.split(/^## /m)[0];
  if (section === undefined) throw new Error('docs/api.md has no "## Errors" section');
  const tableLines = section
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('|'));
  const [header, rule, ...rows] = tableLines;
  expect(header, 'Errors table header').to.equal('| Status | Code | When |');
  expect(rule).to.match(/^\|(-+\|){3}$/);
  return rows.map((row) => row.slice(1, -1).split('|').map((cell) => cell.trim()));
}

describe('docs/api.md "Errors" table', () => {
  it('lists exactly the error catalogue (the core\'s codes and every feature\'s): same codes, statuses and summary text, in the same order', () => {
    const expected = DESCRIBED_FEATURES.errors.entries().map(([code, entry]) => [String(entry.status), `\`${code}\``, entry.summary]);
    expect(documentedErrorRows()).to.deep.equal(expected);
  });
});
