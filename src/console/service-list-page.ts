import type { Account } from '../accounts/accounts.js';
import type { Service } from '../core/service.js';
import { TASK_TYPES } from '../tasks/index.js';
import { csrfField, field } from './form-fields.js';
import { html } from './html.js';
import { layout } from './layout.js';

const date = (iso: string) => iso.slice(0, 10);

export function serviceListPage(options: { account: Account; csrfToken: string; services: readonly Service[]; defaultModel: string; notice?: string }): string {
  const rows = options.services.map(
    (service) => html`<tr>
  <td><a href="/console/services/${service.id}">${service.name}</a></td>
  <td class="hide-narrow">${service.type}</td>
  <td>${service.model ?? html`<span class="muted">default (${options.defaultModel})</span>`}</td>
  <td>${service.disabled ? html`<span class="badge off">Disabled</span>` : html`<span class="badge on">Active</span>`}</td>
  <td class="nowrap hide-narrow">${date(service.createdAt)}</td>
</tr>`,
  );
  return layout(
    { title: 'Services', account: options.account, csrfToken: options.csrfToken, notice: options.notice },
    html`<div class="page-head">
  <h1>Services</h1>
  <a class="button primary" href="/console/services/new">New service</a>
</div>
${options.services.length === 0
  ? html`<section class="card empty">
  <h2>No services yet</h2>
  <p>Create a service to get an API key for ${TASK_TYPES.map((type) => html`<code>POST /api/v1/${type}</code> `)}.</p>
  <p><a class="button primary" href="/console/services/new">Create your first service</a></p>
</section>`
  : html`<section class="card flush"><div class="table-scroll"><table class="list">
  <thead><tr><th>Name</th><th class="hide-narrow">Type</th><th>Model</th><th>Status</th><th class="hide-narrow">Created</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div></section>`}`,
  );
}

export interface NewServiceForm {
  readonly account: Account;
  readonly csrfToken: string;
  readonly models: readonly string[];
  readonly name?: string;
  readonly model?: string;
  readonly errors?: { readonly name?: string; readonly type?: string; readonly model?: string };
}

export function newServicePage(form: NewServiceForm): string {
  const modelOptions = form.models.map(
    (model, index) => html`<option value="${model}"${(form.model ?? '') === model ? html` selected` : ''}>${model}${index === 0 ? ' (default)' : ''}</option>`,
  );
  return layout(
    { title: 'New service', account: form.account, csrfToken: form.csrfToken },
    html`<p class="crumbs"><a href="/console/services">Services</a> /</p>
<section class="card narrow">
  <h1>New service</h1>
  <form method="post" action="/console/services" novalidate>
    ${csrfField(form.csrfToken)}
    ${field({ label: 'Name', name: 'name', value: form.name, error: form.errors?.name, hint: 'Letters, digits, spaces, ".", "_" or "-"; up to 63 characters.', required: true, autofocus: true })}
    <div class="field${form.errors?.type ? ' has-error' : ''}">
      <label for="field-type">Type</label>
      <select id="field-type" name="type">${TASK_TYPES.map((type) => html`<option value="${type}">${type}</option>`)}</select>
      ${form.errors?.type ? html`<p class="field-error">${form.errors.type}</p>` : ''}
    </div>
    <div class="field${form.errors?.model ? ' has-error' : ''}">
      <label for="field-model">Model</label>
      <select id="field-model" name="model"${form.models.length < 2 ? html` disabled` : ''}>${modelOptions}</select>
      ${form.errors?.model
        ? html`<p class="field-error">${form.errors.model}</p>`
        : html`<p class="field-hint">${form.models.length < 2 ? 'This server runs one model.' : 'The detector that answers this service\u2019s calls.'}</p>`}
    </div>
    <div class="actions"><button type="submit" class="button primary">Create service</button><a class="button secondary" href="/console/services">Cancel</a></div>
  </form>
</section>`,
  );
}
