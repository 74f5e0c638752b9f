/** One failed call as the status page lists it: what and where, never keys, headers, queries or image data. */
export interface RecentError {
  /** When it was answered, ISO 8601. */
  readonly at: string;
  readonly requestId: string;
  /** The front door: `http`, `stream-json`, … */
  readonly transport: string;
  /** Where on it, when the transport says: an HTTP request's method and path (without its query). */
  readonly place?: string;
  readonly status: number;
  /** The error code; absent for a refusal that has none (a console page's, whose status says it). */
  readonly code?: string;
  readonly serviceId?: string;
  readonly model?: string;
}

/** How many failed calls the status page lists. */
export const RECENT_ERRORS_KEPT = 50;

/** The last `capacity` failed calls of this process, newest first: the status page's "recent errors". */
export class RecentErrors {
  readonly #entries: RecentError[] = [];

  constructor(private readonly capacity = RECENT_ERRORS_KEPT) {}

  add(entry: RecentError): void {
    this.#entries.unshift(entry);
    if (this.#entries.length > this.capacity) this.#entries.pop();
  }

  list(): readonly RecentError[] {
    return [...this.#entries];
  }
}
