import { CORE_ERRORS, type ErrorCode, type ErrorEntry, type ErrorTable } from './errors.js';

/** Who declared an error table (`the core`, `feature plates`) and the table. */
export interface OwnedErrors {
  readonly owner: string;
  readonly errors: ErrorTable;
}

/** Two owners declared one error code: the start stops, naming both (as a route claimed twice does). */
export class ErrorCodeDeclaredTwice extends Error {}

/**
 * Every error code a server answers: the core's (CORE_ERRORS) and each feature's own
 * (Feature.errors), merged once by the composition root and handed to every door, which maps a code
 * to its status here. Listed by status, and within one status the core's first, then the features'
 * in the order of their registration: the order of the API reference's error enum and of the
 * "Errors" table of docs/api.md.
 */
export class ErrorCatalogue {
  readonly #entries: ReadonlyMap<string, ErrorEntry>;

  constructor(features: readonly OwnedErrors[]) {
    const owners = new Map<string, string>();
    const declared: [string, ErrorEntry][] = [];
    for (const { owner, errors } of [{ owner: 'the core', errors: CORE_ERRORS }, ...features]) {
      for (const [code, entry] of Object.entries(errors)) {
        const earlier = owners.get(code);
        if (earlier !== undefined) throw new ErrorCodeDeclaredTwice(`the error code ${code} is declared twice: by ${earlier} and by ${owner}`);
        owners.set(code, owner);
        declared.push([code, entry]);
      }
    }
    // Array.prototype.sort is stable: within a status, the order of declaration stays.
    this.#entries = new Map(declared.sort(([, a], [, b]) => a.status - b.status));
  }

  /** Every code with its entry, in the catalogue's order. */
  entries(): [ErrorCode, ErrorEntry][] {
    // Its keys are the codes the core and the registered features declare: what ErrorCode names.
    return [...this.#entries] as [ErrorCode, ErrorEntry][];
  }

  /**
   * The HTTP status of a code; 500 for one no registered feature declares (its table missing from its
   * Feature: a bug on our side), never a throw, since the doors ask while answering a failure.
   */
  status(code: ErrorCode): number {
    return this.#entries.get(code)?.status ?? 500;
  }
}
