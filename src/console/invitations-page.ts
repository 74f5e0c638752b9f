import type { Account } from '../accounts/accounts.js';
import type { Invitation, SignUpPolicy } from '../accounts/sign-up.js';
import { actionButton, csrfField } from './form-fields.js';
import { html } from './html.js';
import { layout } from './layout.js';

export interface InvitationsData {
  readonly account: Account;
  readonly csrfToken: string;
  readonly policy: SignUpPolicy;
  /** False when a link would not work (sign-up closed): the button is off and the policy text says why. */
  readonly invitationsWork: boolean;
  readonly pending: readonly Invitation[];
  /** The link just made: shown once, since only its hash is kept. */
  readonly newLink?: string;
  readonly notice?: string;
  /** Why the last attempt to make a link was refused. */
  readonly error?: string;
}

const POLICY_TEXT: Record<SignUpPolicy, string> = {
  open: 'Sign-up is open to anyone (DETECTD_SIGNUP=open): a link works, but nobody needs one.',
  invite: 'Sign-up is by invitation (the default): each link creates one account.',
  closed: 'Sign-up is closed (DETECTD_SIGNUP=closed), so invitation links are off: create accounts with detectd account create, or set DETECTD_SIGNUP=invite.',
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
  ${data.error ? html`<p class="form-error" role="alert">${data.error}</p>` : ''}
  <form method="post" action="/console/invitations">${csrfField(data.csrfToken)}<button type="submit" class="button primary" id="create-invitation"${data.invitationsWork ? '' : html` disabled aria-describedby="sign-up-policy"`}>Create invitation link</button></form>
</section>
<section class="card" aria-labelledby="pending-title">
  <h2 id="pending-title">Unused invitations</h2>
  ${data.pending.length
    ? html`<table class="list stack"><thead><tr><th>Created</th><th>Expires</th><th><span class="visually-hidden">Action</span></th></tr></thead><tbody>${data.pending.map(
        (invitation) =>
          html`<tr><td class="nowrap"><span class="stack-label">Created </span>${minute(invitation.createdAt)}</td><td class="nowrap"><span class="stack-label">Expires </span>${minute(invitation.expiresAt)}</td><td>${actionButton({ action: `/console/invitations/${invitation.id}/withdraw`, label: 'Withdraw', csrfToken: data.csrfToken, style: 'danger' })}</td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">None.</p>`}
</section>`,
  );
}
