import type { Account } from '../accounts/accounts.js';
import type { Invitation, SignUpPolicy } from '../accounts/sign-up.js';
import { actionButton, csrfField } from './form-fields.js';
import { html } from './html.js';
import { layout } from './layout.js';

export interface InvitationsData {
  readonly account: Account;
  readonly csrfToken: string;
  readonly policy: SignUpPolicy;
  readonly pending: readonly Invitation[];
  /** The link just made: shown once, since only its hash is kept. */
  readonly newLink?: string;
  readonly notice?: string;
}

const POLICY_TEXT: Record<SignUpPolicy, string> = {
  'first-account': 'Sign-up is closed (DETECTD_SIGNUP is unset: only the first account could sign up). Set DETECTD_SIGNUP=invite for these links to work.',
  open: 'Sign-up is open to anyone (DETECTD_SIGNUP=open): nobody needs a link.',
  invite: 'Sign-up is by invitation (DETECTD_SIGNUP=invite): each link below creates one account.',
  closed: 'Sign-up is closed (DETECTD_SIGNUP=closed): links do not work; create accounts with the CLI.',
};

const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** The administrator's invitations: the sign-up policy in force, a button for a new link, and the links not yet used. */
export function invitationsPage(data: InvitationsData): string {
  return layout(
    { title: 'Invitations', account: data.account, csrfToken: data.csrfToken, notice: data.notice },
    html`<div class="page-head"><h1>Invitations</h1></div>
<section class="card" aria-labelledby="invite-title">
  <h2 id="invite-title">Invite someone</h2>
  <p class="muted" id="sign-up-policy">${POLICY_TEXT[data.policy]}</p>
  ${data.newLink
    ? html`<div class="new-link"><p>Send this link to the person you invite. It works once, for 7 days, and is shown only now.</p>
    <div class="copy-row"><code class="break" id="invitation-link">${data.newLink}</code><button type="button" class="button small secondary" data-copy-from="invitation-link" aria-label="Copy invitation link">Copy link</button></div></div>`
    : ''}
  <form method="post" action="/console/invitations">${csrfField(data.csrfToken)}<button type="submit" class="button primary" id="create-invitation">Create invitation link</button></form>
</section>
<section class="card" aria-labelledby="pending-title">
  <h2 id="pending-title">Unused invitations</h2>
  ${data.pending.length
    ? html`<table class="list"><thead><tr><th>Created</th><th>Expires</th><th></th></tr></thead><tbody>${data.pending.map(
        (invitation) =>
          html`<tr><td>${minute(invitation.createdAt)}</td><td>${minute(invitation.expiresAt)}</td><td>${actionButton({ action: `/console/invitations/${invitation.id}/withdraw`, label: 'Withdraw', csrfToken: data.csrfToken, style: 'danger' })}</td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">None.</p>`}
</section>`,
  );
}
