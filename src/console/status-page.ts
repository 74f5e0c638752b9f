import type { Account } from '../accounts/accounts.js';
import { RECENT_ERRORS_KEPT } from '../core/recent-errors.js';
import type { ServerStatus } from './server-status.js';
import { html, withCode } from './html.js';
import { layout } from './layout.js';
import type { ServiceWithoutModel } from '../services-without-model.js';
import type { StorageState } from '../store/storage-health.js';

/** `93784` → `1 d 2 h 3 min`. */
export function durationInWords(seconds: number): string {
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['min', 60]] as const) {
    if (seconds >= size) parts.push(`${Math.floor(seconds / size)} ${unit}`);
    seconds %= size;
  }
  return parts.length ? parts.join(' ') : `${Math.floor(seconds)} s`;
}

const minute = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

/** The administrator's status page: version, uptime, inference threads, models and their health, recent errors of this process. */
export function statusPage(data: { account: Account; csrfToken: string; status: ServerStatus; servicesWithoutModel: readonly ServiceWithoutModel[] }): string {
  const { status } = data;
  const models = status.models.map((model) => {
    const healthy = model.recentFailures === 0;
    return html`<tr>
      <td><code>${model.name}</code>${model.isDefault ? html` <span class="badge off">default</span>` : ''}</td>
      <td>${healthy ? html`<span class="badge on">Healthy</span>` : html`<span class="badge failing">${model.recentFailures} recent failure${model.recentFailures === 1 ? '' : 's'}</span>`}</td>
      <td>${model.role} of ${model.kind}</td>
      <td class="hide-narrow">${model.family} · ${model.runtime} (${model.device})</td>
      <td class="num hide-narrow">${model.inputSize.width}×${model.inputSize.height}</td>
      <td class="num"><span class="stack-label">Busy: </span>${model.load.runsInFlight} running, ${model.load.waiting} waiting</td>
    </tr>`;
  });
  const errors = status.recentErrors.map(
    (error) => html`<tr>
      <td class="nowrap"><time datetime="${error.at}">${minute(error.at)}</time></td>
      <td><code>${error.code ? `${error.status} ${error.code}` : error.status}</code></td>
      <td>${error.place ? html`<code class="break">${error.place}</code>` : error.transport}${error.model ? html` · <code>${error.model}</code>` : ''}</td>
      <td class="hide-narrow">${error.serviceId ? html`<code class="break">${error.serviceId}</code>` : '–'}</td>
      <td class="hide-narrow"><code class="break">${error.requestId}</code></td>
    </tr>`,
  );
  return layout(
    { title: 'Server status', account: data.account, csrfToken: data.csrfToken },
    html`<div class="page-head"><h1>Server status</h1></div>
<section class="card" aria-labelledby="server-title">
  <h2 id="server-title">This server</h2>
  <div class="stats status-stats">
    <div class="stat"><span class="stat-value" id="status-version">${status.version}</span><span class="stat-label">detectd version</span></div>
    <div class="stat"><span class="stat-value" id="status-uptime">${durationInWords(status.uptimeSeconds)}</span><span class="stat-label">Up since ${minute(status.startedAt)}</span></div>
    <div class="stat"><span class="stat-value" id="status-threads">${status.inference.threads}</span><span class="stat-label">Inference threads</span></div>
    <div class="stat"><span class="stat-value" id="status-concurrency">${status.inference.concurrency}</span><span class="stat-label">Runs of a model at once</span></div>
    <div class="stat"><span class="stat-value">${status.database === 'postgresql' ? 'PostgreSQL' : 'SQLite'}</span><span class="stat-label">Database</span></div>
    <div class="stat"><span class="stat-value">${status.nodeVersion}</span><span class="stat-label">Node.js</span></div>
  </div>
  ${storageLine(status.storage)}
  <p class="muted small">This page shows the process that answered it: behind a load balancer, each replica has its own.</p>
</section>
<section class="card flush" aria-labelledby="models-title">
  <h2 id="models-title" class="flush-title">Loaded models</h2>
  <table class="list stack" id="status-models"><thead><tr><th scope="col">Model</th><th scope="col">Health</th><th scope="col">Role</th><th scope="col" class="hide-narrow">Family · runtime</th><th scope="col" class="num hide-narrow">Input</th><th scope="col" class="num">Now</th></tr></thead>
  <tbody>${models}</tbody></table>
</section>
${data.servicesWithoutModel.length > 0 ? servicesWithoutModelSection(data.servicesWithoutModel) : ''}
<section class="card flush" aria-labelledby="errors-title">
  <h2 id="errors-title" class="flush-title">Recent errors</h2>
  ${errors.length
    ? html`<table class="list stack" id="status-errors"><thead><tr><th scope="col">When</th><th scope="col">Answer</th><th scope="col">Where</th><th scope="col" class="hide-narrow">Service</th><th scope="col" class="hide-narrow">Request id</th></tr></thead><tbody>${errors}</tbody></table>`
    : html`<p class="muted flush-title" id="status-errors">No failed call since this process started.</p>`}
  <p class="muted small flush-title">The last ${RECENT_ERRORS_KEPT} failed calls of this process (4xx and 5xx), newest first. The request id finds a call's log line.</p>
</section>`,
  );
}

/** Whether the database answers and has room: what is wrong since when, else that it works. */
function storageLine(storage: StorageState) {
  if (storage.state === 'ok') return html`<p id="status-storage">Storage: the database answers and has room to write.</p>`;
  const what = storage.state === 'full' ? 'full: writes are refused (507 storage_full), analyses go on' : 'unreachable: writes are refused (503 storage_unavailable), analyses by known keys go on';
  return html`<p class="warning" id="status-storage" role="alert">Storage ${what} since ${minute(storage.since ?? '')}: ${storage.reason ?? ''}. It resumes by itself once fixed (docs/operations.md, "When things fail").</p>`;
}

/** The services this server cannot answer because their model is not loaded, each with its fix. */
function servicesWithoutModelSection(services: readonly ServiceWithoutModel[]) {
  const rows = services.map(
    ({ service, problem, fix }) => html`<tr>
      <td>${service.name} <code class="break muted small">${service.id}</code></td>
      <td><span class="badge failing">Unavailable</span> ${problem}</td>
      <td>${withCode(fix)}</td>
    </tr>`,
  );
  return html`<section class="card flush" aria-labelledby="without-model-title">
  <h2 id="without-model-title" class="flush-title">Services whose model is not loaded</h2>
  <table class="list stack" id="status-services-without-model"><thead><tr><th scope="col">Service</th><th scope="col">Why it answers 503</th><th scope="col">Fix</th></tr></thead>
  <tbody>${rows}</tbody></table>
</section>`;
}
