import type { Account } from '../accounts/accounts.js';
import type { Service } from '../core/service.js';
import { csrfField, field, firstInvalid, formError, type FormState, selectField } from './form-fields.js';
import { html } from './html.js';
import { layout } from './layout.js';

const date = (iso: string) => iso.slice(0, 10);

export const SERVICE_NAME_HINT = 'Letters, digits, spaces, ".", "_" or "-"; up to 63 characters.';

export function serviceListPage(options: { account: Account; csrfToken: string; services: readonly Service[]; taskTypes: readonly string[]; defaultModelOf: (type: string) => string; notice?: string }): string {
  const rows = options.services.map(
    (service) => html`<tr>
  <td><a href="/console/services/${service.id}">${service.name}</a></td>
  <td class="hide-narrow">${service.type}</td>
  <td>${service.model ?? html`<span class="muted">default (${options.defaultModelOf(service.type)})</span>`}</td>
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
  <p>Create a service to get an API key for ${options.taskTypes.map((type, index) => html`${index === 0 ? '' : index === options.taskTypes.length - 1 ? ' or ' : ', '}<code>POST /api/v1/${type}</code>`)}.</p>
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
  /** The service types to choose from (the task table's). */
  readonly taskTypes: readonly string[];
  /** After a refusal: what was typed, and the errors by field (`name`, `type`, `model`). */
  readonly form?: FormState;
}

/** The models a service may name, as drop-down choices; the first is the server's default. */
export function modelChoices(models: readonly string[]): { value: string; label: string }[] {
  return models.map((model, index) => ({ value: model, label: index === 0 ? `${model} (default)` : model }));
}

export function newServicePage(page: NewServiceForm): string {
  const { values = {}, errors = {} } = page.form ?? {};
  const focus = firstInvalid(errors, ['name', 'type', 'model']) ?? 'name';
  return layout(
    { title: 'New service', account: page.account, csrfToken: page.csrfToken },
    html`<p class="crumbs"><a href="/console/services">Services</a> /</p>
<section class="card narrow">
  <h1>New service</h1>
  ${formError(errors[''])}
  <form method="post" action="/console/services" novalidate>
    ${csrfField(page.csrfToken)}
    ${field({ label: 'Name', name: 'name', value: values.name, error: errors.name, hint: SERVICE_NAME_HINT, required: true, maxlength: 63, autofocus: focus === 'name' })}
    ${selectField({ label: 'Type', name: 'type', value: values.type, error: errors.type, choices: page.taskTypes.map((type) => ({ value: type, label: type })), autofocus: focus === 'type' })}
    ${selectField({
      label: 'Model',
      name: 'model',
      value: values.model,
      error: errors.model,
      choices: modelChoices(page.models),
      disabled: page.models.length < 2,
      hint: page.models.length < 2 ? 'This server runs one model.' : 'The detector that answers this service\u2019s calls.',
      autofocus: focus === 'model',
    })}
    <div class="actions"><button type="submit" class="button primary">Create service</button><a class="button secondary" href="/console/services">Cancel</a></div>
  </form>
</section>`,
  );
}
