import type { Account, AccountSummary } from '../accounts/accounts.js';
import { newPasswordField } from './auth-pages.js';
import { actionButton, csrfField, field, firstInvalid, formError, type FormState } from './form-fields.js';
import { html } from './html.js';
import { layout } from './layout.js';

const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
const ROLE_NAMES = { admin: 'Administrator', member: 'Member' } as const;

/** The signed-in person's own account: who they are, and the form that changes their password. */
export function ownAccountPage(data: { account: AccountSummary; csrfToken: string; notice?: string; refused?: FormState }): string {
  const errors = data.refused?.errors ?? {};
  const focus = firstInvalid(errors, ['current_password', 'new_password']);
  return layout(
    { title: 'Your account', account: data.account, csrfToken: data.csrfToken, notice: data.notice },
    html`<div class="page-head"><h1>Your account</h1></div>
<section class="card narrow" aria-labelledby="who-title">
  <h2 id="who-title">Signed in as</h2>
  <dl class="entries">
    <div class="entry"><dt>Email</dt><dd class="break" id="account-email">${data.account.email}</dd></div>
    <div class="entry"><dt>Role</dt><dd id="account-role">${ROLE_NAMES[data.account.role]}</dd></div>
    <div class="entry"><dt>Created</dt><dd>${minute(data.account.createdAt)}</dd></div>
  </dl>
</section>
<section class="card narrow" aria-labelledby="password-title" id="password">
  <h2 id="password-title">Change password</h2>
  <p class="muted">Every other browser signed in to this account is signed out.</p>
  ${formError(errors[''])}
  <form method="post" action="/console/account/password" novalidate>
    ${csrfField(data.csrfToken)}
    ${field({ label: 'Current password', name: 'current_password', type: 'password', error: errors.current_password, autocomplete: 'current-password', required: true, autofocus: focus === 'current_password' })}
    ${newPasswordField({ name: 'new_password', label: 'New password', error: errors.new_password, autofocus: focus === 'new_password' })}
    <button type="submit" class="button primary" id="change-password">Change password</button>
  </form>
</section>`,
  );
}

/** The administrator's list of every account: role, created, state, services; disable or enable any but their own. */
export function accountsPage(data: { account: Account; csrfToken: string; accounts: readonly AccountSummary[]; notice?: string; error?: string }): string {
  const rows = data.accounts.map(
    (entry) => html`<tr id="account-${entry.id}">
  <td class="email">${entry.email}</td>
  <td>${ROLE_NAMES[entry.role]}</td>
  <td class="nowrap"><span class="stack-label">Created </span>${minute(entry.createdAt)}</td>
  <td class="num hide-narrow">${entry.services}</td>
  <td>${entry.disabled ? html`<span class="badge off">Disabled</span>` : html`<span class="badge on">Active</span>`}</td>
  <td class="nowrap">${
    entry.id === data.account.id
      ? html`<span class="muted small">You</span>`
      : entry.disabled
        ? actionButton({ action: `/console/accounts/${entry.id}/enable`, label: 'Enable', csrfToken: data.csrfToken })
        : actionButton({
            action: `/console/accounts/${entry.id}/disable`,
            label: 'Disable',
            csrfToken: data.csrfToken,
            style: 'danger',
            confirm: `Disable ${entry.email}? Its API keys and console sign-in are refused at once; its services, keys and usage are kept.`,
          })
  }</td>
</tr>`,
  );
  return layout(
    { title: 'Accounts', account: data.account, csrfToken: data.csrfToken, notice: data.notice },
    html`<div class="page-head"><h1>Accounts</h1></div>
${formError(data.error)}
<section class="card flush"><div class="table-scroll"><table class="list stack" id="accounts">
  <thead><tr><th>Email</th><th>Role</th><th>Created</th><th class="num hide-narrow">Services</th><th>Status</th><th><span class="visually-hidden">Action</span></th></tr></thead>
  <tbody>${rows}</tbody>
</table></div></section>
<p class="muted small">A disabled account cannot sign in, its API keys are answered 403 and its sessions end at once; enabling it gives everything back. New accounts come from <a href="/console/invitations">invitations</a> or <code>detectd account create</code>.</p>`,
  );
}
