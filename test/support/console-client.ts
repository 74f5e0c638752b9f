export interface Page {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Redirect target, for 3xx answers. */
  readonly location: string | null;
}

/**
 * A browser-less console user: keeps cookies like a browser, reads the CSRF token of the last
 * page, submits forms as `application/x-www-form-urlencoded`, and does not follow redirects.
 */
export class ConsoleClient {
  readonly #cookies = new Map<string, string>();
  csrfToken = '';

  constructor(readonly baseUrl: string) {}

  get(path: string): Promise<Page> {
    return this.#send(path, { method: 'GET' });
  }

  /** Posts a form with the current CSRF token unless `_csrf` is given (or set to '' to send none). */
  post(path: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Page> {
    const body = new URLSearchParams({ _csrf: this.csrfToken, ...fields });
    if (body.get('_csrf') === '') body.delete('_csrf');
    return this.#send(path, { method: 'POST', body, headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers } });
  }

  /** What the overview page's script does: POST with `X-CSRF-Token`, JSON back. */
  async revealKey(serviceId: string): Promise<{ status: number; body: any }> {
    const response = await this.#send(`/console/services/${serviceId}/api-key`, {
      method: 'POST',
      headers: { 'X-CSRF-Token': this.csrfToken, Accept: 'application/json' },
    });
    return { status: response.status, body: JSON.parse(response.text) };
  }

  async signUp(email: string, password: string): Promise<Page> {
    await this.get('/console/sign-up');
    return this.post('/console/sign-up', { email, password });
  }

  async signIn(email: string, password: string): Promise<Page> {
    await this.get('/console/sign-in');
    return this.post('/console/sign-in', { email, password });
  }

  /** Creates a service through the form and returns its id (from the redirect to its overview page). */
  async createService(name: string): Promise<string> {
    await this.get('/console/services/new');
    const created = await this.post('/console/services', { name, type: 'object-detection' });
    const id = /\/console\/services\/([0-9a-f-]{36})/.exec(created.location ?? '')?.[1];
    if (created.status !== 303 || !id) throw new Error(`service not created (${created.status}): ${created.text.slice(0, 500)}`);
    return id;
  }

  async #send(path: string, init: RequestInit): Promise<Page> {
    const headers = new Headers(init.headers);
    if (this.#cookies.size) headers.set('Cookie', [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(this.baseUrl + path, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    const text = await response.text();
    const token = /<meta name="csrf-token" content="([^"]*)">/.exec(text)?.[1];
    if (token) this.csrfToken = token;
    return { status: response.status, headers: response.headers, text, location: response.headers.get('location') };
  }

  cookie(name: string): string | undefined {
    return this.#cookies.get(name);
  }
}
