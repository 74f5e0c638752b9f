import fs from 'node:fs';

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
}

/** POSTs a JSON body (object or raw string) to a detection endpoint, as any HTTP client would. */
export async function postDetection(
  url: string,
  body: unknown,
  options: { apiKey?: string; path?: string; contentType?: string; authorization?: string } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { 'Content-Type': options.contentType ?? 'application/json' };
  const authorization = options.authorization ?? (options.apiKey ? `ApiKey ${options.apiKey}` : undefined);
  if (authorization) headers.Authorization = authorization;
  const response = await fetch(url + (options.path ?? '/api/v1/object-detection'), {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Non-JSON answers are returned as text so a test can show them.
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

export function imageRequest(file: string | Buffer, configurations: Record<string, string> = {}): { raw_data: string; configurations: { parameter: string; value: string }[] } {
  const bytes = typeof file === 'string' ? fs.readFileSync(file) : file;
  return {
    raw_data: bytes.toString('base64'),
    configurations: Object.entries(configurations).map(([parameter, value]) => ({ parameter, value })),
  };
}
