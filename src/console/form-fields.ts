import { html, type SafeHtml } from './html.js';

export interface FieldOptions {
  readonly label: string;
  readonly name: string;
  readonly type?: 'text' | 'email' | 'password' | 'number';
  readonly value?: string;
  /** Shown under the field, and marks it invalid. */
  readonly error?: string;
  readonly hint?: string;
  readonly autocomplete?: string;
  readonly required?: boolean;
  readonly autofocus?: boolean;
}

/** A labelled input with its error in place. */
export function field(options: FieldOptions): SafeHtml {
  const id = `field-${options.name}`;
  const described = options.error ? `${id}-error` : options.hint ? `${id}-hint` : undefined;
  return html`<div class="field${options.error ? ' has-error' : ''}">
  <label for="${id}">${options.label}</label>
  <input id="${id}" name="${options.name}" type="${options.type ?? 'text'}" value="${options.value ?? ''}"${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''}${options.required ? html` required` : ''}${options.autofocus ? html` autofocus` : ''}${options.error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}>
  ${options.error ? html`<p class="field-error" id="${id}-error">${options.error}</p>` : options.hint ? html`<p class="field-hint" id="${id}-hint">${options.hint}</p>` : ''}
</div>`;
}

/** The hidden CSRF field every console form carries. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** A one-button form posting to `action` (with CSRF); `confirm` asks first in the browser. */
export function actionButton(options: { action: string; label: string; csrfToken: string; style?: 'primary' | 'secondary' | 'danger'; confirm?: string; extra?: SafeHtml }): SafeHtml {
  return html`<form method="post" action="${options.action}" class="inline"${options.confirm ? html` data-confirm="${options.confirm}"` : ''}>${csrfField(options.csrfToken)}${options.extra ?? ''}<button type="submit" class="button ${options.style ?? 'secondary'}">${options.label}</button></form>`;
}
