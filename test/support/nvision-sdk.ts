import { createRequire } from 'node:module';
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
