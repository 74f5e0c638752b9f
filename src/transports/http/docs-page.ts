import type { TaskTable } from '../../tasks/task-table.js';
import { ERROR_CATALOGUE } from '../../core/errors.js';
import { escapeHtml } from '../../html-escape.js';
import { streamPaths } from '../stream-paths.js';

const code = (text: string) => `<code>${escapeHtml(text)}</code>`;

/** A self-contained API reference page (no CDN: the service runs offline), built from the same tables as the OpenAPI document. */
export function renderDocsPage(openApi: Record<string, unknown>, tasks: TaskTable): string {
  const TASKS = tasks.all;
  const components = (openApi.components as { schemas: Record<string, unknown> }).schemas;
  const taskRows = TASKS.map(
    (task) =>
      `<tr><td>POST</td><td>${code(`/api/v1/${task.type}`)}</td><td>${escapeHtml(task.summary)} (current).</td></tr>` +
      `<tr><td>POST</td><td>${code(`/api/${task.type}`)}</td><td>Legacy path: the parameters marked "legacy" below.</td></tr>`,
  ).join('\n');
  const parameterRows = TASKS.flatMap((task) =>
    Object.entries(task.parameters).map(
      ([name, rule]) => `<tr><td>${code(name)}</td><td>${code(rule.defaultValue)}</td><td>${escapeHtml(rule.allowed)}</td><td>${rule.versions.join(', ')}</td><td>${escapeHtml(rule.description)}</td></tr>`,
    ),
  ).join('');
  const streamRows = TASKS.map(
    (task) =>
      `<tr><td>GET</td><td>${code(streamPaths(task.type).json)}</td><td>Real-time video analysis over WebSocket, what was found with track ids (see README); try it at <a href="/stream-demo">/stream-demo</a>.</td></tr>` +
      `<tr><td>POST</td><td>${code(streamPaths(task.type).tokens)}</td><td>Single-use stream token for browsers.</td></tr>`,
  ).join('\n');
  const errorRows = Object.entries(ERROR_CATALOGUE)
    .map(([name, entry]) => `<tr><td>${entry.status}</td><td>${code(name)}</td><td>${escapeHtml(entry.summary)}</td></tr>`)
    .join('');
  const schemaBlocks = Object.entries(components)
    .map(([name, schema]) => `<h3>${escapeHtml(name)}</h3><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre>`)
    .join('');
  const examples = TASKS.map((task) => `<pre>${escapeHtml(task.exampleCommand(`http://localhost:8080/api/v1/${task.type}`, 'dog.jpg'))}</pre>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>detectd API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2430}
h1,h2{line-height:1.2}table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border-bottom:1px solid #dde2ea;padding:.35rem .5rem;text-align:left;vertical-align:top}
pre{background:#f4f6f9;padding:1rem;overflow:auto;border-radius:6px;font-size:13px}code{background:#f4f6f9;padding:0 .25rem;border-radius:3px}
</style></head><body>
<h1>detectd API</h1>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<h2>Endpoints</h2>
<table><tr><th>Method</th><th>Path</th><th></th></tr>
${taskRows}
<tr><td>GET</td><td>${code('/healthz')}, ${code('/readyz')}</td><td>Liveness; readiness (model loaded, database reachable).</td></tr>
${streamRows}</table>
<p>Every call carries ${code('Authorization: ApiKey <key>')} (or ${code('Bearer <key>')}, or the bare key) and ${code('Content-Type: application/json')} (optionally ${code('; charset=utf-8')}). Every response carries ${code('X-Request-Id')}.</p>
<p>Nvision clients work unchanged: the body may carry ${code('frame_id')} and ${code('source_id')} (echoed back); every answer carries ${code('service_id')}; with ${code('OutputVisualizedImage')} ${code('"true"')} the drawn image comes back as ${code('raw_data')} (base64 JPEG).</p>
<h2>Example</h2><p>With the key in ${code('DETECTD_API_KEY')} and an image file ${code('dog.jpg')} in the current folder (Linux and macOS):</p>${examples}
<h2>Configuration parameters</h2>
<table><tr><th>Parameter</th><th>Default</th><th>Allowed</th><th>Versions</th><th>Effect</th></tr>${parameterRows}</table>
<h2>Errors</h2><p>Every error is ${code('{"error": {"code", "message", "request_id"}}')}.</p>
<table><tr><th>Status</th><th>Code</th><th>Meaning</th></tr>${errorRows}</table>
<h2>Schemas</h2>${schemaBlocks}
</body></html>`;
}
