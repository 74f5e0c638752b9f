import { AccountError, AccountErrors, codesOf } from '../accounts/account-error.js';
import { html, type SafeHtml } from './html.js';

/** A form sent back after a refusal: what was typed, and each error under the form field it is about ('' for the form as a whole). */
export interface FormState {
  readonly values: Readonly<Record<string, string>>;
  readonly errors: Readonly<Record<string, string>>;
}

/**
 * A refusal of the account domain as messages by form field: every error it holds (several at
 * once when several inputs were wrong) under the field it names, renamed by `formNames` where the
 * form calls it otherwise; an error naming no field goes under `unnamed`.
 */
export function messagesByField(error: AccountError, formNames: Readonly<Record<string, string>> = {}, unnamed = ''): Record<string, string> {
  const messages: Record<string, string> = {};
  for (const each of error instanceof AccountErrors ? error.errors : [error]) {
    const name = each.field === undefined ? unnamed : (formNames[each.field] ?? each.field);
    messages[name] = messages[name] ? `${messages[name]}; ${each.message}` : each.message;
  }
  return messages;
}

/** 409 when the refusal is only a clash with what exists (a taken name or email), else 400. */
export function refusalStatus(error: AccountError): number {
  return codesOf(error).every((code) => code === 'service_name_taken' || code === 'email_taken') ? 409 : 400;
}

interface ControlOptions {
  readonly label: string;
  readonly name: string;
  /** Shown under the control, and marks it invalid. */
  readonly error?: string;
  readonly hint?: string;
  readonly required?: boolean;
  readonly autofocus?: boolean;
}

export interface FieldOptions extends ControlOptions {
  readonly type?: 'text' | 'email' | 'password' | 'number';
  readonly value?: string;
  readonly autocomplete?: string;
  /** Bounds the input states to the browser and to assistive technology (the server checks them again). */
  readonly min?: number;
  readonly max?: number;
  readonly minlength?: number;
  readonly maxlength?: number;
}

/** The label, the control, and its error (or hint) under it, tied together for screen readers; the control gets its `id name` and its state attributes to place. */
function labelled(options: ControlOptions, control: (naming: SafeHtml, state: SafeHtml) => SafeHtml): SafeHtml {
  const id = `field-${options.name}`;
  const described = options.error ? `${id}-error` : options.hint ? `${id}-hint` : undefined;
  const state = html`${options.required ? html` required` : ''}${options.autofocus ? html` autofocus` : ''}${options.error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}`;
  return html`<div class="field${options.error ? ' has-error' : ''}">
  <label for="${id}">${options.label}</label>
  ${control(html`id="${id}" name="${options.name}"`, state)}
  ${options.error ? html`<p class="field-error" id="${id}-error">${options.error}</p>` : options.hint ? html`<p class="field-hint" id="${id}-hint">${options.hint}</p>` : ''}
</div>`;
}

const attribute = (name: string, value: number | string | undefined) => (value === undefined ? '' : html` ${name}="${value}"`);

/** A labelled input with its error in place. */
export function field(options: FieldOptions): SafeHtml {
  const type = options.type ?? 'text';
  return labelled(
    options,
    (naming, state) =>
      html`<input ${naming} type="${type}" value="${options.value ?? ''}"${attribute('autocomplete', options.autocomplete)}${attribute('min', options.min)}${attribute('max', options.max)}${type === 'number' ? html` step="1" inputmode="numeric"` : ''}${attribute('minlength', options.minlength)}${attribute('maxlength', options.maxlength)}${state}>`,
  );
}

/** One choice of a drop-down. */
export interface Choice {
  readonly value: string;
  readonly label: string;
}

/** Choices under a heading of their own (an `<optgroup>`), with `data-*` attributes for the page's script. */
export interface ChoiceGroup {
  readonly label: string;
  readonly data: Readonly<Record<string, string>>;
  readonly choices: readonly Choice[];
}

/** A labelled drop-down of `choices` (value and label; or groups of them), `value` selected, with its error in place. */
export function selectField(options: ControlOptions & { readonly value?: string; readonly choices: readonly (Choice | ChoiceGroup)[]; readonly disabled?: boolean }): SafeHtml {
  const option = (choice: Choice) => html`<option value="${choice.value}"${choice.value === (options.value ?? '') ? html` selected` : ''}>${choice.label}</option>`;
  return labelled(
    options,
    (naming, state) =>
      html`<select ${naming}${options.disabled ? html` disabled` : ''}${state}>${options.choices.map((choice) =>
        'choices' in choice
          ? html`<optgroup label="${choice.label}"${Object.entries(choice.data).map(([name, value]) => html` data-${name}="${value}"`)}>${choice.choices.map(option)}</optgroup>`
          : option(choice),
      )}</select>`,
  );
}

/** The first field of `order` that has an error: it takes the focus, so the page opens on it. */
export function firstInvalid(errors: Readonly<Record<string, string>> | undefined, order: readonly string[]): string | undefined {
  return errors && order.find((name) => errors[name] !== undefined);
}

/** The error about a form as a whole, above its fields. */
export function formError(message: string | undefined): SafeHtml | '' {
  return message ? html`<p class="form-error" role="alert">${message}</p>` : '';
}

/** The hidden CSRF field every console form carries. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** A one-button form posting to `action` (with CSRF); `confirm` asks first in the browser. */
export function actionButton(options: { action: string; label: string; csrfToken: string; style?: 'primary' | 'secondary' | 'danger'; confirm?: string; extra?: SafeHtml }): SafeHtml {
  return html`<form method="post" action="${options.action}" class="inline"${options.confirm ? html` data-confirm="${options.confirm}"` : ''}>${csrfField(options.csrfToken)}${options.extra ?? ''}<button type="submit" class="button ${options.style ?? 'secondary'}">${options.label}</button></form>`;
}
