import type { IncomingMessage, ServerResponse } from 'node:http';

/** After an early error answer, how long the server keeps reading (and dropping) an unwanted body so the client can read the answer before the connection closes. */
export const LINGER_MS = 2_000;

/**
 * For an answer given before the request body was read (refused key, oversized or malformed
 * body, deadline): the connection is closed rather than kept alive to drain a body nobody wants.
 * The server keeps reading and dropping for a short while after its answer (as nginx's
 * lingering close) so that the client is not reset before it has read the answer.
 */
export function closeAfterEarlyAnswer(request: IncomingMessage, response: ServerResponse): void {
  if (request.complete) return;
  response.setHeader('Connection', 'close');
  const socket = request.socket;
  // Node ends a `Connection: close` response with `destroySoon`, which resets a socket that still has unread bytes.
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once('close', () => clearTimeout(timer));
  };
}
