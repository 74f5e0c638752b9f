import fs from 'node:fs';
import { photoPath } from './paths.js';

/** What one call of the load got: an HTTP status, or `dropped` when the connection failed (refused, reset) before an answer. */
export interface Answer {
  readonly at: number;
  readonly kind: 'detect' | 'write';
  readonly status: number | 'dropped';
  readonly code?: string;
  readonly retryAfter?: string;
}

export interface LoadTargets {
  readonly url: string;
  /** Key of an object-detection service. */
  readonly detectKey: string;
  /** Key of a licence-plate service, whose known plates the writer adds. */
  readonly plateKey: string;
}

const DOG = fs.readFileSync(photoPath('dog.jpg'));
/** Letters and digits that no other counts as (O and 0, I and 1 are one character to a known-plate list). */
const PLATE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** The `n`th plate of a run: distinct from every other, in every writing a known-plate list compares. */
function plateNumber(run: string, n: number): string {
  let digits = '';
  for (let rest = n; digits.length < 4; rest = Math.floor(rest / PLATE_ALPHABET.length)) digits = PLATE_ALPHABET[rest % PLATE_ALPHABET.length] + digits;
  return run + digits;
}

/**
 * The load an operator puts on a server when its storage fails: `detectors` clients detecting
 * objects in the dog photo, and one adding known plates one at a time, each as fast as answers
 * come. Every answer is kept with its time, and every plate the server acknowledged (201).
 */
export class FaultLoad {
  readonly answers: Answer[] = [];
  readonly acknowledged: string[] = [];
  #running = true;
  #loops: Promise<void>[];
  readonly #run = PLATE_ALPHABET[Math.floor(Math.random() * 24)] + PLATE_ALPHABET[Math.floor(Math.random() * 24)];

  constructor(
    private readonly targets: LoadTargets,
    detectors = 2,
  ) {
    this.#loops = [...Array.from({ length: detectors }, () => this.#loop('detect')), this.#loop('write')];
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }

  /** Answers of `kind` (or all) between `from` and `to` (epoch ms), counted by status (`503 storage_unavailable`, `200`, `dropped`). */
  tally(from: number, to = Infinity, kind?: Answer['kind']): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const answer of this.answers) {
      if (answer.at < from || answer.at >= to || (kind && answer.kind !== kind)) continue;
      const label = answer.code ? `${answer.status} ${answer.code}` : String(answer.status);
      counts[label] = (counts[label] ?? 0) + 1;
    }
    return counts;
  }

  /** Seconds from `since` to the first success of `kind` answered after it; undefined when none came. */
  firstSuccessAfter(since: number, kind: Answer['kind']): number | undefined {
    const first = this.answers.find((answer) => answer.at >= since && answer.kind === kind && typeof answer.status === 'number' && answer.status < 300);
    return first && (first.at - since) / 1000;
  }

  /** Answers of `kind` outside the documented ones: a 500, any other 5xx but `allowed`, a dropped connection. */
  unexpected(allowed: readonly string[]): Answer[] {
    return this.answers.filter((answer) => answer.status === 'dropped' || (answer.status >= 500 && !allowed.includes(answer.code ?? '')));
  }

  async #loop(kind: Answer['kind']): Promise<void> {
    for (let n = 0; this.#running; n++) {
      const plate = plateNumber(this.#run, n);
      try {
        const response = kind === 'detect' ? await this.#detect() : await this.#write(plate);
        const body = (await response.json().catch(() => ({}))) as { error?: { code?: string } | string; code?: unknown };
        const code = typeof body.error === 'object' ? body.error?.code : undefined;
        this.answers.push({ at: Date.now(), kind, status: response.status, code, retryAfter: response.headers.get('retry-after') ?? undefined });
        if (kind === 'write' && response.status === 201) this.acknowledged.push(plate);
        // A refusal that says when to come back is not hammered: a pause, as a polite client takes.
        if (response.status >= 500) await new Promise((resolve) => setTimeout(resolve, 50));
      } catch {
        this.answers.push({ at: Date.now(), kind, status: 'dropped' });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  #detect(): Promise<Response> {
    return fetch(`${this.targets.url}/api/v1/object-detection`, {
      method: 'POST',
      headers: { Authorization: `ApiKey ${this.targets.detectKey}`, 'Content-Type': 'image/jpeg' },
      body: new Uint8Array(DOG),
    });
  }

  #write(plate: string): Promise<Response> {
    return fetch(`${this.targets.url}/api/v1/license-plate/known-plates`, {
      method: 'POST',
      headers: { Authorization: `ApiKey ${this.targets.plateKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ plate, name: `car ${plate}` }),
    });
  }
}

/** The plates of `acknowledged` that the service's list does not hold. */
export async function missingPlates(targets: LoadTargets, acknowledged: readonly string[]): Promise<string[]> {
  const response = await fetch(`${targets.url}/api/v1/license-plate/known-plates`, { headers: { Authorization: `ApiKey ${targets.plateKey}` } });
  if (response.status !== 200) throw new Error(`listing known plates answered ${response.status}: ${await response.text()}`);
  const listed = new Set(((await response.json()) as { known_plates: { plate: string }[] }).known_plates.map((known) => known.plate));
  return acknowledged.filter((plate) => !listed.has(plate));
}
