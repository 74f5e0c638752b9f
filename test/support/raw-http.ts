import net from 'node:net';

export interface RawResponse {
  /** Status of the final answer (after any `100 Continue`). */
  readonly status: number;
  readonly headers: Record<string, string>;
  /** The JSON body when it is JSON, else the text. */
  readonly body: any;
  /** Whether a `100 Continue` came before the answer. */
  readonly continued: boolean;
  /** Whether the server closed the connection (within `closeWithinMs` of the answer). */
  readonly closed: boolean;
  /** What the server sent after the answer, until it closed or `closeWithinMs` passed (latin1). */
  readonly after: string;
}

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
  length: number;
}

/** One HTTP response at the start of `data`, or undefined while it is incomplete (bodies framed by Content-Length only). */
function parseResponse(data: Buffer): Parsed | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyLength = Number(headers['content-length'] ?? 0);
  if (data.length < end + 4 + bodyLength) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body: data.subarray(end + 4, end + 4 + bodyLength).toString('utf8'), length: end + 4 + bodyLength };
}

/**
 * Writes `parts` to a new connection, in order (a part `'await-100'` waits for the
 * interim answer) and reads one answer; then waits up to `closeWithinMs` to see whether the
 * server closes the connection.
 */
export async function rawExchange(
  port: number,
  parts: readonly (string | Buffer | 'await-100')[],
  options: { closeWithinMs?: number; answerWithinMs?: number } = {},
): Promise<RawResponse> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {}); // a reset after the answer is part of what is observed, not a failure
  let received = Buffer.alloc(0);
  let closed = false;
  const changed = new Set<() => void>();
  const notify = () => changed.forEach((callback) => callback());
  socket.on('data', (chunk) => {
    received = Buffer.concat([received, chunk]);
    notify();
  });
  socket.on('close', () => {
    closed = true;
    notify();
  });
  const until = (test: () => boolean, ms: number) =>
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (!test()) return;
        changed.delete(check);
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        changed.delete(check);
        resolve(false);
      }, ms);
      changed.add(check);
      check();
    });
  let continued = false;
  const interim = () => {
    const parsed = parseResponse(received);
    if (parsed?.status !== 100) return false;
    continued = true;
    received = received.subarray(parsed.length);
    return true;
  };
  await new Promise((resolve) => socket.once('connect', resolve));
  for (const part of parts) {
    if (closed) break;
    if (part === 'await-100') {
      await until(interim, 5_000);
      continue;
    }
    socket.write(part);
  }
  let answer: Parsed | undefined;
  await until(() => {
    interim();
    answer = parseResponse(received);
    return answer !== undefined || closed;
  }, options.answerWithinMs ?? 10_000);
  if (!answer) {
    socket.destroy();
    throw new Error(`no answer; received ${JSON.stringify(received.toString('latin1').slice(0, 200))}, closed ${closed}`);
  }
  await until(() => closed, options.closeWithinMs ?? 0);
  socket.destroy();
  let body: any = answer.body;
  try {
    body = JSON.parse(answer.body);
  } catch {
    // Not JSON: the page or text is returned as it is.
  }
  return { status: answer.status, headers: answer.headers, body, continued, closed, after: received.subarray(answer.length).toString('latin1') };
}

/** A request head (request line and headers, blank line included). */
export function head(requestLine: string, headers: Record<string, string | number>, extra: readonly string[] = []): string {
  return `${requestLine}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}${extra.join('')}\r\n`;
}
