import type { Account } from '../accounts/accounts.js';
import type { ActiveKey } from '../accounts/service-keys.js';
import { LOOPBACK_RANGES } from '../accounts/address-ranges.js';
import type { Service } from '../core/service.js';
import type { Task } from '../tasks/task.js';
import { exampleCalls, examplePhotoOf } from '../tasks/example-calls.js';
import { streamPaths } from '../transports/stream-paths.js';
import { USAGE_WINDOWS, type UsageSummary, type UsageWindow } from '../usage/usage-store.js';
import { actionButton, csrfField, field, firstInvalid, formError, type FormState, selectField } from './form-fields.js';
import type { ServiceWithoutModel } from '../services-without-model.js';
import { SERVICE_NAME_HINT, serviceBadge } from './service-list-page.js';
import { MAX_MONTHLY_QUOTA, MAX_RATE_PER_MINUTE } from '../accounts/services.js';
import { html, type SafeHtml, withCode } from './html.js';
import { layout } from './layout.js';
import { usageChart } from './usage-chart.js';
import type { CardPlace } from './service-card.js';

export interface OverviewData {
  readonly account: Account;
  readonly csrfToken: string;
  readonly service: Service;
  /** The task of the service's type, from the task table; undefined for a type the server no longer serves. */
  readonly task: Task | undefined;
  /** Set when this server has not loaded the service's model: what it lacks, and the fix. */
  readonly withoutModel: ServiceWithoutModel | undefined;
  /** Base URL callers reach this server at, without a trailing slash. */
  readonly baseUrl: string;
  readonly defaultModel: string;
  /** The confidence threshold the authors of the service's model suggest, if known (the model catalogue's): where Try it starts. */
  readonly suggestedThreshold?: { readonly model: string; readonly threshold: number };
  /** The models a service of this type may name. */
  readonly models: readonly string[];
  /** The DeepStack / CodeProject.AI paths a service of this type answers with its key (the door's route table); none: no DeepStack card. */
  readonly deepStackPaths: readonly string[];
  /** The features' cards for a service of its type (ServiceCard), in the order of their registration, each with its place. */
  readonly cards: readonly PlacedCard[];
  readonly keys: readonly ActiveKey[];
  readonly usage: UsageSummary;
  readonly window: UsageWindow;
  /** Calls admitted this UTC month: what the monthly quota counts, whether or not one is set. */
  readonly callsThisMonth: number;
  readonly graceSeconds: number;
  /** How long a stream token for the live-video demo stays valid. */
  readonly streamTokenSeconds: number;
  readonly notice?: string;
  /** The card the notice belongs to (the form just saved there), shown in that card rather than at the top of the page. */
  readonly noticeSection?: NoticeSection;
  /** The form whose change was just refused, shown again with what was typed and its errors in place. */
  readonly refused?: RefusedForm;
}

/** A feature's card laid out: its HTML, and where on the page. */
export interface PlacedCard {
  readonly place: CardPlace;
  readonly html: SafeHtml;
}

/** The overview's cards that have a form of their own, by their element id: the console's own, or a feature card's (CardForm.path). */
export type NoticeSection = string;

/** A notice in the card whose form was just saved. */
export const cardNotice = (notice: string) => html`<p class="notice" role="status">${notice}</p>`;

/** The notice, if it belongs in the card `section`. */
function noticeIn(data: OverviewData, section: NoticeSection): SafeHtml | '' {
  return data.notice && data.noticeSection === section ? cardNotice(data.notice) : '';
}

/** A refused form of the overview page: which one, what was typed, and the errors by field. */
export interface RefusedForm extends FormState {
  readonly form: NoticeSection;
}

/** The cards of `place`. */
const cardsIn = (data: OverviewData, place: CardPlace) => data.cards.filter((card) => card.place === place).map((card) => card.html);

/** What was typed into `form` if it was just refused, else undefined (the page shows the stored values). */
function refusedState(data: OverviewData, form: RefusedForm['form']): FormState | undefined {
  return data.refused?.form === form ? data.refused : undefined;
}

const MASK = 'dtd_' + '•'.repeat(24);

/** The service overview page: endpoint, API Key (masked, reveal, copy, rotate, revoke), usage, "Try it". */
export function serviceOverviewPage(data: OverviewData): string {
  const { service } = data;
  const base = `/console/services/${service.id}`;
  const endpoint = `${data.baseUrl}/api/v1/${data.service.type}`;
  const confidence = data.task?.confidenceName ?? 'Confidence';
  const threshold = tryItThreshold(data);
  return layout(
    { title: service.name, account: data.account, csrfToken: data.csrfToken, notice: data.noticeSection ? undefined : data.notice },
    html`<nav aria-label="Breadcrumb"><ol class="crumbs"><li><a href="/console/services">Services</a></li><li aria-current="page">${service.name}</li></ol></nav>
<div class="page-head">
  <h1>${service.name} ${serviceBadge(service, data.withoutModel)}</h1>
</div>
<div class="overview" data-service="${service.id}" data-api-path="${new URL(endpoint).pathname}" data-stream-tokens-path="${streamPaths(service.type).tokens}">
  <section class="card" aria-labelledby="details-title">
    <h2 id="details-title">Service</h2>
    <dl class="entries">
      <div class="entry"><dt>Name</dt><dd>${service.name}</dd></div>
      <div class="entry"><dt>Type</dt><dd>${service.type}</dd></div>
      <div class="entry"><dt>Model</dt><dd>${service.model ?? `${data.defaultModel} (server default)`}</dd></div>
      <div class="entry"><dt>Endpoint URL</dt><dd class="copy-row"><code class="break" id="endpoint-url">${endpoint}</code><button type="button" class="button small secondary" data-copy-from="endpoint-url">Copy URL</button></dd></div>
      ${apiKeyEntry(data, base)}
    </dl>
    ${service.disabled ? html`<p class="warning">This service is disabled: its key is answered with 403 until you enable it again.</p>` : ''}
    ${data.withoutModel ? html`<p class="warning" id="model-unavailable">Unavailable: ${data.withoutModel.problem} on this server, so calls are answered with 503 <code>model_unavailable</code>. To fix it: ${withCode(data.withoutModel.fix)}, or choose a loaded model under <a href="#settings">Name and model</a>.</p>` : ''}
  </section>

  ${callItSection(data, endpoint)}

  ${cardsIn(data, 'memory')}

  <section class="card" aria-labelledby="try-title">
    <h2 id="try-title">Try it</h2>
    <p class="muted">Send an image through the public API with this service\u2019s key and see what it finds.</p>
    <form id="try-form" class="try-form" data-answer="${data.task?.answerField ?? ''}" data-confidence="${confidence.toLowerCase()}" data-draws="${String(Object.hasOwn(data.task?.parameters ?? {}, 'OutputVisualizedImage'))}">
      <div class="try-field"><label for="try-file">Image</label><input type="file" id="try-file" name="image" accept="image/*" required></div>
      <div class="try-field"><label for="try-confidence">${confidence} threshold <output id="try-confidence-value" for="try-confidence">${threshold.value.toFixed(2)}</output></label>
        <input type="range" id="try-confidence" name="confidence" min="${Math.min(0.05, threshold.value)}" max="0.95" step="0.05" value="${threshold.value}" aria-describedby="try-confidence-note"></div>
      <button type="submit" class="button primary">Detect</button>
      <p class="muted small try-note" id="try-confidence-note">${threshold.note}</p>
    </form>
    <div id="try-status" class="try-status" role="status" aria-live="polite"></div>
    <div id="try-result" class="try-result" hidden>
      <figure class="try-figure"><img id="try-image" alt="The image with what was found outlined and named">
        <figcaption><a id="try-download" class="button small secondary" download="detected.jpg">Download annotated image</a></figcaption></figure>
      <div class="try-objects">
        <ul id="try-counts" class="try-counts" aria-label="Found, by name"></ul>
        <table class="list compact" id="try-table"><caption class="muted small">Found, surest first</caption>
          <thead><tr><th scope="col">Name</th><th scope="col" class="num">${confidence}</th><th scope="col" class="num">Box (left, top, right, bottom)</th></tr></thead><tbody></tbody></table>
      </div>
      <details class="try-raw"><summary>JSON answer</summary><pre class="code" id="try-json"></pre></details>
    </div>
  </section>

  ${cardsIn(data, 'settings')}

  <section class="card" aria-labelledby="live-title">
    <h2 id="live-title">Live video</h2>
    <p class="muted">Stream a webcam or a video file to this service in the live-video demo. The page gets a single-use stream token for this service (valid ${data.streamTokenSeconds} s); the key never goes into a URL.</p>
    <a class="button secondary" id="live-video" href="/stream-demo">Open the live-video demo</a>
  </section>

  ${usageSection(data, base)}

  ${limitsSection(data, base)}

  ${keylessSection(data, base)}

  ${settingsSection(data, base)}

  <section class="card danger-zone" aria-labelledby="manage-title">
    <h2 id="manage-title">Manage</h2>
    <div class="actions">
      ${service.disabled
        ? actionButton({ action: `${base}/enable`, label: 'Enable service', csrfToken: data.csrfToken })
        : actionButton({ action: `${base}/disable`, label: 'Disable service', csrfToken: data.csrfToken, confirm: 'Disable this service? Calls with its key will be refused until you enable it.' })}
      ${actionButton({ action: `${base}/delete`, label: 'Delete service', csrfToken: data.csrfToken, style: 'danger', confirm: 'Delete this service, its API keys and its usage? This cannot be undone.' })}
    </div>
  </section>
</div>`,
  );
}

/**
 * Where Try it's threshold starts, and why: the threshold the model's authors suggest where one is
 * known (a newcomer's first try shows what a person would call right), else the API's default;
 * either way the note says what a call that sends none gets.
 */
function tryItThreshold(data: OverviewData): { readonly value: number; readonly note: string } {
  const apiDefault = Number(data.task?.parameters.ConfidenceThreshold?.defaultValue ?? 0.5).toFixed(2);
  const suggested = data.suggestedThreshold;
  return suggested
    ? { value: suggested.threshold, note: `Starts at ${suggested.threshold.toFixed(2)}, what ${suggested.model}\u2019s authors suggest; a call that sends no ConfidenceThreshold gets ${apiDefault}.` }
    : { value: Number(apiDefault), note: `Starts at ${apiDefault}, what a call that sends no ConfidenceThreshold gets.` };
}

function apiKeyEntry(data: OverviewData, base: string): SafeHtml {
  const current = data.keys.find((key) => key.expiresAt === null);
  const older = data.keys.filter((key) => key.expiresAt !== null);
  const graceHours = Math.round((data.graceSeconds / 3600) * 10) / 10;
  const value = !current
    ? html`<p class="warning">No working API key. Create one to call the service.</p>`
    : current.hint === null
      ? html`<p class="warning">This key was issued before keys were stored encrypted, so it cannot be shown. Rotate it to get a key you can read here.</p>`
      : html`<div class="copy-row key-row"><code class="api-key break" id="api-key" data-masked="true">${MASK}</code>
        <button type="button" class="button small secondary" id="reveal-key" aria-controls="api-key">Reveal</button>
        <button type="button" class="button small secondary" data-copy-key>Copy key</button></div>
        <p class="muted small">Created ${current.createdAt.slice(0, 16).replace('T', ' ')} UTC · key ending …${current.hint.slice(-4)}</p>`;
  return html`<div class="entry" id="api-key-entry"><dt>API Key</dt><dd>
    ${value}
    ${older.map(
      (key) => html`<div class="older-key"><span>Previous key ${key.hint ?? ''} works until ${key.expiresAt!.slice(0, 16).replace('T', ' ')} UTC</span>
      ${actionButton({ action: `${base}/keys/${key.id}/revoke`, label: 'Revoke now', csrfToken: data.csrfToken, style: 'danger' })}</div>`,
    )}
    <form method="post" action="${base}/rotate" class="rotate-form">
      ${csrfField(data.csrfToken)}
      ${current
        ? html`<fieldset><legend>Rotate key: a new key, and the old one…</legend>
        <label class="choice"><input type="radio" name="old_key" value="grace" checked> keeps working for ${graceHours} h</label>
        <label class="choice"><input type="radio" name="old_key" value="revoke"> stops working at once</label>
        <button type="submit" class="button secondary" id="rotate-key">Rotate key</button></fieldset>`
        : html`<input type="hidden" name="old_key" value="revoke"><button type="submit" class="button primary" id="rotate-key">Create a new key</button>`}
    </form>
    ${current
      ? html`<div class="revoke-row"><span class="muted small">Revoking leaves the service without a working key until you create a new one.</span>
      ${actionButton({ action: `${base}/keys/${current.id}/revoke`, label: 'Revoke key', csrfToken: data.csrfToken, style: 'danger', confirm: 'Revoke this key now? Calls with it will be refused at once.' })}</div>`
      : ''}
  </dd></div>`;
}

const keySlot = html`<span data-key-slot>${MASK}</span>`;

/** How to call the service: the task's example call (tasks/example-calls.ts) in curl, Python and JavaScript, one tab each; copying fills the key in (console.js). */
function callItSection(data: OverviewData, endpoint: string): SafeHtml {
  const hasKey = data.keys.some((key) => key.expiresAt === null);
  const { task } = data;
  if (!hasKey || !task) {
    return html`<section class="card" aria-labelledby="curl-title"><h2 id="curl-title">Call it</h2>
    <p class="warning" id="curl-example">This service has no working API key, so there is no command to call it with. Create a new key under <a href="#api-key-entry">API Key</a> first.</p></section>`;
  }
  const photo = examplePhotoOf(task);
  const calls = exampleCalls(task, endpoint, photo.file);
  const panels = [
    {
      id: 'curl',
      label: 'curl',
      intro: html`Ready to paste into a shell on Linux or macOS, with ${photo.description}, <code>${photo.file}</code>, in the current folder.`,
      code: html`export DETECTD_API_KEY='${keySlot}'
${calls.curl}`,
      copy: 'Copy command',
      run: undefined,
    },
    { id: 'python', label: 'Python', intro: html`Python 3 with <code>requests</code> (<code>pip install requests</code>). Save it as <code>detect.py</code> beside <code>${photo.file}</code>, then run it with the key:`, code: html`${calls.python}`, copy: 'Copy Python', run: html`DETECTD_API_KEY='${keySlot}' python3 detect.py` },
    { id: 'javascript', label: 'JavaScript', intro: html`Node.js 20 or later, no packages. Save it as <code>detect.mjs</code> beside <code>${photo.file}</code>, then run it with the key:`, code: html`${calls.javascript}`, copy: 'Copy JavaScript', run: html`DETECTD_API_KEY='${keySlot}' node detect.mjs` },
  ];
  // A shell command wraps on a phone; a script's lines keep their indentation (its block scrolls sideways).
  return html`<section class="card" aria-labelledby="curl-title" id="call-it">
    <div class="card-head"><h2 id="curl-title">Call it</h2>
      <div class="tabs" role="tablist" aria-label="Language">${panels.map(
        (panel, index) => html`<button type="button" role="tab" class="tab${index === 0 ? ' active' : ''}" id="tab-${panel.id}" aria-controls="panel-${panel.id}" aria-selected="${index === 0 ? 'true' : 'false'}">${panel.label}</button>`,
      )}</div></div>
    ${panels.map(
      (panel, index) => html`<div role="tabpanel" id="panel-${panel.id}" aria-labelledby="tab-${panel.id}"${index === 0 ? '' : html` hidden`}>
      <p class="muted">${panel.intro}</p>
      <pre class="code${panel.run ? '' : ' wrap'}" id="${panel.id}-example" tabindex="0">${panel.code}</pre>
      ${panel.run ? html`<pre class="code wrap" id="${panel.id}-run">${panel.run}</pre>` : ''}
      <div class="actions"><button type="button" class="button small secondary" data-copy-from="${panel.id}-example" data-needs-key>${panel.copy}</button>
      ${panel.run ? html`<button type="button" class="button small secondary" data-copy-from="${panel.id}-run" data-needs-key>Copy run command</button>` : ''}</div>
    </div>`,
    )}
  </section>`;
}

/** How DeepStack / CodeProject.AI clients call this service (its type's routes), and "Accept DeepStack calls without a key": off by default, its state stated plainly. */
function keylessSection(data: OverviewData, base: string): SafeHtml | '' {
  if (data.deepStackPaths.length === 0) return '';
  const ranges = data.service.keylessAddressRanges;
  const refused = refusedState(data, 'keyless');
  const error = refused?.errors.ranges;
  const typed = refused?.values.ranges ?? (ranges ?? LOOPBACK_RANGES).join('\n');
  return html`<section class="card" aria-labelledby="keyless-title" id="keyless">
    <h2 id="keyless-title">DeepStack / CodeProject.AI clients</h2>
    ${noticeIn(data, 'keyless')}
    <p class="muted">DeepStack and CodeProject.AI clients (Blue Iris, Agent DVR, Frigate, Home Assistant, Double Take) call this service at <code class="break" id="deepstack-base-url">${data.baseUrl}</code> with its key in the <code>api_key</code> field, on the routes of its type:</p>
    <ul class="route-list" id="deepstack-routes">${data.deepStackPaths.map((path) => html`<li><code>${path}</code></li>`)}</ul>
    <p class="muted">Some (Blue Iris) cannot send a key at all: you can let calls without a key from chosen address ranges act as this service.</p>
    ${ranges === null
      ? html`<p id="keyless-state"><span class="badge off">Off</span> Calls without a key are refused (the default).</p>`
      : html`<p id="keyless-state" class="warning"><span class="badge on">On</span> Calls <strong>without a key</strong> from ${ranges.map((range, index) => html`${index ? ', ' : ''}<code>${range}</code>`)} are answered as this service.</p>`}
    <form method="post" action="${base}/keyless" class="keyless-form" novalidate>
      ${csrfField(data.csrfToken)}
      <div class="field${error ? ' has-error' : ''}">
        <label for="field-keyless-ranges">Address ranges (CIDR, one per line; empty: this machine only)</label>
        <textarea id="field-keyless-ranges" name="ranges" rows="3"${error ? html` aria-invalid="true" aria-describedby="field-keyless-ranges-error" autofocus` : ''}>${typed}</textarea>
        ${error ? html`<p class="field-error" id="field-keyless-ranges-error">${error}</p>` : ''}
      </div>
      <div class="actions">
        <button type="submit" name="keyless" value="on" class="button secondary" id="keyless-on">${ranges === null ? 'Accept calls without a key' : 'Save ranges'}</button>
        ${ranges === null ? '' : html`<button type="submit" name="keyless" value="off" class="button primary" id="keyless-off">Require a key again</button>`}
      </div>
    </form>
  </section>`;
}

const milliseconds = (value: number | null) => (value === null ? '–' : value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`);

function usageSection(data: OverviewData, base: string): SafeHtml {
  const { usage } = data;
  const tabs = Object.entries(USAGE_WINDOWS).map(
    ([window, { label }]) => html`<a class="tab${window === data.window ? ' active' : ''}" href="${base}?window=${window}#usage"${window === data.window ? html` aria-current="page"` : ''}>${label}</a>`,
  );
  const errorRows = Object.entries(usage.errorsByCode)
    .sort(([, a], [, b]) => b - a)
    .map(([code, count]) => html`<tr><td><code>${code}</code></td><td class="num">${count}</td></tr>`);
  const stat = (label: string, value: string | number, id: string) => html`<div class="stat"><span class="stat-value" id="${id}">${value}</span><span class="stat-label">${label}</span></div>`;
  return html`<section class="card" aria-labelledby="usage-title" id="usage" data-window="${data.window}">
    <div class="card-head"><h2 id="usage-title">Usage</h2><nav class="tabs">${tabs}</nav></div>
    <div class="stats">
      ${stat('Requests', usage.requests, 'usage-requests')}
      ${stat('Images', usage.images, 'usage-images')}
      ${stat('Detections', usage.detections, 'usage-detections')}
      ${stat('Errors', usage.errors, 'usage-errors')}
      ${stat('p50 latency', milliseconds(usage.p50Ms), 'usage-p50')}
      ${stat('p95 latency', milliseconds(usage.p95Ms), 'usage-p95')}
    </div>
    ${limitsSummary(data)}
    ${usageChart(usage.series)}
    ${usage.requests === 0 ? html`<p class="chart-empty small">No calls in this period yet.</p>` : ''}
    <p class="muted small legend"><span class="swatch ok"></span>Answered <span class="swatch error"></span>Errors</p>
    <p class="muted small">Latency is measured inside the server, to about 19 %. Counts reach this panel within a few seconds; it refreshes itself while the page is open.</p>
    ${errorRows.length ? html`<table class="list compact"><thead><tr><th>Error code</th><th class="num">Count</th></tr></thead><tbody>${errorRows}</tbody></table>` : ''}
  </section>`;
}

const count = (value: number) => value.toLocaleString('en-US');

/** The calendar month (UTC) the quota counts, by name: "November 2026". */
const thisMonth = () => new Date().toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** One line in the usage panel: the limits in force, and this month's calls as the quota counts them (counted with or without a quota). */
function limitsSummary(data: OverviewData): SafeHtml {
  const { service, callsThisMonth } = data;
  const calls = `${count(callsThisMonth)} call${callsThisMonth === 1 ? '' : 's'}`;
  if (service.rateLimitPerMinute === null && service.monthlyQuota === null) {
    return html`<p class="muted small" id="usage-limits">No rate limit or quota. ${calls} in ${thisMonth()} (UTC) so far; a quota set now counts them.</p>`;
  }
  const rate = service.rateLimitPerMinute === null ? 'no rate limit' : `rate limit ${count(service.rateLimitPerMinute)} requests/minute`;
  const quota =
    service.monthlyQuota === null
      ? `no monthly quota (${calls} in ${thisMonth()}, UTC)`
      : `quota ${count(callsThisMonth)} of ${count(service.monthlyQuota)} calls used in ${thisMonth()} (UTC, ${Math.min(100, Math.round((callsThisMonth / service.monthlyQuota) * 100))} %)`;
  return html`<p class="small" id="usage-limits">Limits: ${rate}; ${quota}. Calls over a limit are answered 429 and listed under errors.</p>`;
}

/** Rename the service, or change its model: one of the models this server offers for its type, or the server default. */
function settingsSection(data: OverviewData, base: string): SafeHtml {
  const { service } = data;
  const { values, errors } = refusedState(data, 'settings') ?? { values: { name: service.name, model: service.model ?? '' }, errors: {} };
  const focus = firstInvalid(errors, ['name', 'model']);
  const choices = [{ value: '', label: `Server default (${data.defaultModel})` }, ...data.models.map((model) => ({ value: model, label: model }))];
  return html`<section class="card" aria-labelledby="settings-title" id="settings">
    <h2 id="settings-title">Name and model</h2>
    ${noticeIn(data, 'settings')}
    <p class="muted">The key, limits and usage stay with the service; calls use a new model from the next one on.</p>
    ${formError(errors[''])}
    <form method="post" action="${base}/settings" class="settings-form" novalidate>
      ${csrfField(data.csrfToken)}
      ${field({ label: 'Name', name: 'name', value: values.name, error: errors.name, hint: SERVICE_NAME_HINT, required: true, maxlength: 63, autofocus: focus === 'name' })}
      ${selectField({ label: 'Model', name: 'model', value: values.model, error: errors.model, choices, hint: `Models this server offers for ${service.type}.`, autofocus: focus === 'model' })}
      <button type="submit" class="button secondary" id="save-settings">Save name and model</button>
    </form>
  </section>`;
}

/** The form that sets the service's request-rate limit and monthly quota (empty: none); a refused one comes back as typed, each error beside its field. */
function limitsSection(data: OverviewData, base: string): SafeHtml {
  const { service } = data;
  const stored = (limit: number | null) => (limit === null ? '' : String(limit));
  const { values, errors } = refusedState(data, 'limits') ?? { values: { rate_limit_per_minute: stored(service.rateLimitPerMinute), monthly_quota: stored(service.monthlyQuota) }, errors: {} };
  const focus = firstInvalid(errors, ['rate_limit_per_minute', 'monthly_quota']);
  return html`<section class="card" aria-labelledby="limits-title" id="limits">
    <h2 id="limits-title">Limits</h2>
    ${noticeIn(data, 'limits')}
    <p class="muted">Calls over a limit are answered <code>429</code> (<code>rate_limited</code> or <code>quota_exceeded</code>) with <code>Retry-After</code> and the <code>RateLimit</code> headers, on every server sharing this database. Leave a field empty for no limit.</p>
    ${formError(errors[''])}
    <form method="post" action="${base}/limits" class="limits-form" novalidate>
      ${csrfField(data.csrfToken)}
      ${field({ label: 'Requests per minute', name: 'rate_limit_per_minute', type: 'number', min: 1, max: MAX_RATE_PER_MINUTE, value: values.rate_limit_per_minute, error: errors.rate_limit_per_minute, hint: 'Bursts of up to this many, then evenly spread.', autofocus: focus === 'rate_limit_per_minute' })}
      ${field({ label: 'Calls per month', name: 'monthly_quota', type: 'number', min: 1, max: MAX_MONTHLY_QUOTA, value: values.monthly_quota, error: errors.monthly_quota, hint: 'Every call of the calendar month (UTC) counts, also those made before the quota was set.', autofocus: focus === 'monthly_quota' })}
      <button type="submit" class="button secondary" id="save-limits">Save limits</button>
    </form>
  </section>`;
}
