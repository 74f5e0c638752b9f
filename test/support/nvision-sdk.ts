import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import WebSocket from 'ws';

/** The unmodified official SDK (@nipacloud/nvision 0.1.7, CommonJS), as an app would load it. */
export const nvision = createRequire(import.meta.url)('@nipacloud/nvision') as typeof import('@nipacloud/nvision');

/** Where the SDK's stream connects: hard-coded in its bundle (Constant.NVISION_WS_URL). */
const SDK_STREAM_BASE = 'wss://nvision.nipa.cloud/api';

/**
 * Points the SDK's stream at `serverUrl` without touching the SDK: it uses the global `WebSocket`
 * when there is one (as in a browser), so the test provides `ws` as that global, with the
 * hard-coded host swapped for the test server's. Everything else — subprotocol, binary type,
 * messages — is the SDK's own. Returns the function that removes the global again.
 */
export function redirectSdkStreams(serverUrl: string): () => void {
  const target = serverUrl.replace(/^http/, 'ws') + '/api';
  class RedirectedWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      if (!url.startsWith(SDK_STREAM_BASE)) throw new Error(`the SDK opened an unexpected URL: ${url}`);
      super(target + url.slice(SDK_STREAM_BASE.length), protocols);
    }
  }
  const global = globalThis as { WebSocket?: unknown };
  const previous = global.WebSocket;
  global.WebSocket = RedirectedWebSocket;
  return () => {
    global.WebSocket = previous;
  };
}

/** The host the SDK's predict() posts to: hard-coded in its bundle (Constant.NVISION_REST_URL, `https://nvision.nipa.cloud/api`). */
export const NVISION_HOST = 'nvision.nipa.cloud';

export interface NvisionHostRedirect {
  /** The self-signed certificate the front presents for NVISION_HOST (PEM). */
  readonly certificate: string;
  /** Puts `https.globalAgent` back and closes the front. */
  close(): Promise<void>;
}

/** A new self-signed certificate and key for NVISION_HOST, made with the openssl command (test-only, never committed). */
function selfSignedCertificate(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-nvision-tls-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', `/CN=${NVISION_HOST}`, '-addext', `subjectAltName=DNS:${NVISION_HOST}`,
      '-keyout', keyFile, '-out', certFile,
    ], { stdio: 'ignore' });
    return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Sends this process's HTTPS calls to NVISION_HOST to a detectd server instead, without touching
 * the SDK: its bundled axios requests through Node's `https.globalAgent` (and ignores proxy
 * variables), so the test swaps in an agent whose connections go to a local TLS front. The front
 * presents a self-signed certificate for NVISION_HOST (which the agent trusts) and forwards the
 * decrypted bytes to the server as they are, so the server sees exactly what the SDK sent.
 */
export async function redirectNvisionHost(serverUrl: string): Promise<NvisionHostRedirect> {
  const target = new URL(serverUrl);
  const { key, cert } = selfSignedCertificate();
  const open = new Set<net.Socket>();
  const front = tls.createServer({ key, cert }, (clear) => {
    open.add(clear);
    clear.once('close', () => open.delete(clear));
    const upstream = net.connect(Number(target.port), target.hostname);
    clear.pipe(upstream).pipe(clear);
    const end = () => {
      clear.destroy();
      upstream.destroy();
    };
    clear.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const frontPort = (front.address() as net.AddressInfo).port;

  class NvisionHostAgent extends https.Agent {
    override createConnection(options: tls.ConnectionOptions): net.Socket {
      if (options.host !== NVISION_HOST && options.servername !== NVISION_HOST) {
        throw new Error(`test agent: unexpected HTTPS host ${String(options.host)}; only ${NVISION_HOST} is redirected`);
      }
      return tls.connect({ ...options, host: '127.0.0.1', port: frontPort, servername: NVISION_HOST, ca: cert });
    }
  }
  const previous = https.globalAgent;
  https.globalAgent = new NvisionHostAgent({ keepAlive: false });
  return {
    certificate: cert,
    close: async () => {
      https.globalAgent = previous;
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    },
  };
}
