import type { Account } from '../accounts/accounts.js';
import { html } from './html.js';
import { layout } from './layout.js';

/** A console error as a page: what went wrong in words, never a stack trace; `backTo` is the console page the visitor came from. */
export function errorPage(options: { title: string; message: string; csrfToken: string; account?: Account; requestId?: string; backTo?: string }): string {
  return layout(
    { title: options.title, csrfToken: options.csrfToken, account: options.account },
    html`<section class="card narrow">
  <h1>${options.title}</h1>
  <p>${options.message}</p>
  ${options.requestId ? html`<p class="muted small">Request id: <code>${options.requestId}</code></p>` : ''}
  <p><a class="button secondary" href="${options.backTo ?? '/console'}">${options.backTo ? 'Back' : 'Back to the console'}</a></p>
</section>`,
  );
}
