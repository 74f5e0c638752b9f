import type { Account } from '../accounts/accounts.js';
import type { Service } from '../core/service.js';
import type { ServiceWithoutModel } from '../services-without-model.js';
import { type Choice, type ChoiceGroup, csrfField, field, firstInvalid, formError, type FormState, selectField } from './form-fields.js';
import { html } from './html.js';
import { layout } from './layout.js';

const date = (iso: string) => iso.slice(0, 10);

export const SERVICE_NAME_HINT = 'Letters, digits, spaces, ".", "_" or "-"; up to 63 characters.';

/** A service's status badge: disabled, unavailable (its model is not loaded here: the overview says how to fix it), or active. */
export function serviceBadge(service: Service, withoutModel: ServiceWithoutModel | undefined) {
  if (service.disabled) return html`<span class="badge off">Disabled</span>`;
  return withoutModel ? html`<span class="badge failing" title="${withoutModel.problem}">Unavailable</span>` : html`<span class="badge on">Active</span>`;
}

export function serviceListPage(options: {
  account: Account;
  csrfToken: string;
  services: readonly Service[];
  taskTypes: readonly string[];
  defaultModelOf: (type: string) => string;
  withoutModel: (service: Service) => ServiceWithoutModel | undefined;
  notice?: string;
}): string {
  const rows = options.services.map(
    (service) => html`<tr>
  <td><a href="/console/services/${service.id}">${service.name}</a></td>
  <td class="hide-narrow">${service.type}</td>
  <td>${service.model ?? html`<span class="muted">default (${options.defaultModelOf(service.type)})</span>`}</td>
  <td>${serviceBadge(service, options.withoutModel(service))}</td>
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

/** The models a service of one type may name (those that find what its task finds), and the one it gets when it names none. */
export interface ModelsOfType {
  readonly type: string;
  readonly models: readonly string[];
  readonly defaultModel: string;
}

export interface NewServiceForm {
  readonly account: Account;
  readonly csrfToken: string;
  /** The service types to choose from (the task table's), each with its models; the first type is the default. */
  readonly types: readonly ModelsOfType[];
  /** After a refusal: what was typed, and the errors by field (`name`, `type`, `model`). */
  readonly form?: FormState;
}

/**
 * The model drop-down: the server default of the chosen type first, then each type's models under
 * its type. Without JavaScript every type's list shows (the server refuses a model of another type,
 * saying which it may be); console.js keeps only the chosen type's and names its default.
 */
function modelChoices(types: readonly ModelsOfType[]): (Choice | ChoiceGroup)[] {
  return [
    { value: '', label: 'Server default for the type' },
    ...types.map((each) => ({ label: `${each.type} models`, data: { type: each.type, 'default-model': each.defaultModel }, choices: each.models.map((model) => ({ value: model, label: model })) })),
  ];
}

export function newServicePage(page: NewServiceForm): string {
  const { values = {}, errors = {} } = page.form ?? {};
  const focus = firstInvalid(errors, ['name', 'type', 'model']) ?? 'name';
  return layout(
    { title: 'New service', account: page.account, csrfToken: page.csrfToken },
    html`<nav aria-label="Breadcrumb"><ol class="crumbs"><li><a href="/console/services">Services</a></li><li aria-current="page">New service</li></ol></nav>
<section class="card narrow">
  <h1>New service</h1>
  ${formError(errors[''])}
  <form method="post" action="/console/services" id="new-service-form" novalidate>
    ${csrfField(page.csrfToken)}
    ${field({ label: 'Name', name: 'name', value: values.name, error: errors.name, hint: SERVICE_NAME_HINT, required: true, maxlength: 63, autofocus: focus === 'name' })}
    ${selectField({ label: 'Type', name: 'type', value: values.type, error: errors.type, choices: page.types.map(({ type }) => ({ value: type, label: type })), autofocus: focus === 'type' })}
    ${selectField({
      label: 'Model',
      name: 'model',
      value: values.model,
      error: errors.model,
      choices: modelChoices(page.types),
      hint: 'The detector that answers this service\u2019s calls: one of the models of its type.',
      autofocus: focus === 'model',
    })}
    <div class="actions"><button type="submit" class="button primary">Create service</button><a class="button secondary" href="/console/services">Cancel</a></div>
  </form>
</section>`,
  );
}
