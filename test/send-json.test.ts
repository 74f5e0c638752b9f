import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { sendJson } from '../src/transports/http/send-json.js';

describe('sendJson: JSON answers with large strings in slices (a real HTTP server)', () => {
  const answers: unknown[] = [
    { small: 'a "quoted" answer', n: 1 },
    // A 12 MP visualization's base64 (written as its own bytes), then large strings JSON must escape.
    { raw_data: crypto.randomBytes(3_000_000).toString('base64'), objects: [] },
    { text: `${'x'.repeat(900_000)}"\\\n\u0001é ✓ \u2028 ${'y'.repeat(800_000)}` },
    // Emoji across a slice boundary (one character in, every pair is split by an even slice length), a lone surrogate.
    { emoji: `a${'😀'.repeat(500_000)}`, lone: `${'z'.repeat(800_000)}\ud800` },
  ];
  let url: string;
  let close: () => void;

  before(async () => {
    const app = express();
    app.get('/answer/:index', (request, response) => sendJson(response, answers[Number(request.params.index)]));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  after(() => close());

  it('sends exactly what JSON.stringify would, with a Content-Length and never chunked', async () => {
    for (const [index, answer] of answers.entries()) {
      const response = await fetch(`${url}/answer/${index}`);
      const text = await response.text();
      expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(response.headers.get('transfer-encoding')).to.equal(null);
      expect(Number(response.headers.get('content-length'))).to.equal(Buffer.byteLength(text));
      expect(text, `answer ${index}`).to.equal(JSON.stringify(answer));
    }
  });
});
