import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../accounts/accounts.js';
import type { SignUpAccess } from '../accounts/sign-up.js';
import { csrfField, field, firstInvalid, formError } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';

export interface SignInForm {
  readonly csrfToken: string;
  readonly email?: string;
  /** Error about the whole attempt (wrong credentials, too many attempts). */
  readonly error?: string;
  /** Errors by field (`email`, `password`): a field left empty. */
  readonly errors?: Readonly<Record<string, string>>;
  readonly notice?: string;
  /** The account is locked out after too many failed sign-ins: say how an operator lifts it. */
  readonly lockedOut?: boolean;
  /** Whether the sign-up page would accept a visitor without an invitation (else its link is not offered). */
  readonly signUpOpen: boolean;
}

export function signInPage(form: SignInForm): string {
  return layout(
    { title: 'Sign in', csrfToken: form.csrfToken, notice: form.notice },
    html`<section class="auth-card">
  <h1>Sign in</h1>
  <p class="muted">Manage your services and their API keys.</p>
  ${formError(form.error)}
  ${form.lockedOut
    ? html`<p class="muted small" id="unlock-hint">The server's operator can lift this at once: <code>detectd account unlock ${form.email ?? 'EMAIL'}</code> (or set a new password with <code>detectd account reset-password ${form.email ?? 'EMAIL'}</code>).</p>`
    : ''}
  <form method="post" action="/console/sign-in" novalidate>
    ${csrfField(form.csrfToken)}
    ${field({ label: 'Email', name: 'email', type: 'email', value: form.email, error: form.errors?.email, autocomplete: 'username', required: true, autofocus: !form.email })}
    ${field({ label: 'Password', name: 'password', type: 'password', error: form.errors?.password, autocomplete: 'current-password', required: true, maxlength: MAX_PASSWORD_LENGTH, autofocus: Boolean(form.email) })}
    <button type="submit" class="button primary wide">Sign in</button>
  </form>
  ${form.signUpOpen ? html`<p class="switch">New here? <a href="/console/sign-up">Create a service account</a></p>` : ''}
</section>`,
  );
}

export interface SignUpForm {
  readonly csrfToken: string;
  /** The invitation token from the link, carried through the form. */
  readonly invitation?: string;
  readonly email?: string;
  /** Errors by field (`email`, `password`) after a refusal. */
  readonly errors?: Readonly<Record<string, string>>;
}

/** A field for a new password: its rule as the hint, the browser told to suggest a strong one. */
export function newPasswordField(options: { name: string; label: string; error?: string; autofocus?: boolean }): SafeHtml {
  return field({ ...options, type: 'password', hint: `At least ${MIN_PASSWORD_LENGTH} characters.`, autocomplete: 'new-password', required: true, minlength: MIN_PASSWORD_LENGTH, maxlength: MAX_PASSWORD_LENGTH });
}

export function signUpPage(form: SignUpForm): string {
  const focus = firstInvalid(form.errors, ['email', 'password']) ?? 'email';
  return layout(
    { title: 'Create account', csrfToken: form.csrfToken },
    html`<section class="auth-card">
  <h1>Create a service account</h1>
  <p class="muted">A service account owns services; each service has its own API key.</p>
  <form method="post" action="/console/sign-up" novalidate>
    ${csrfField(form.csrfToken)}
    ${form.invitation ? html`<input type="hidden" name="invitation" value="${form.invitation}">` : ''}
    ${formError(form.errors?.[''])}
    ${field({ label: 'Email', name: 'email', type: 'email', value: form.email, error: form.errors?.email, autocomplete: 'username', required: true, maxlength: 254, autofocus: focus === 'email' })}
    ${newPasswordField({ name: 'password', label: 'Password', error: form.errors?.password, autofocus: focus === 'password' })}
    <button type="submit" class="button primary wide">Create account</button>
  </form>
  <p class="switch">Already have an account? <a href="/console/sign-in">Sign in</a></p>
</section>`,
  );
}

const CLOSED_REASONS: Record<Exclude<SignUpAccess, { allowed: true }>['reason'], string> = {
  closed: 'This server does not take new sign-ups. Ask its administrator for an account.',
  'needs-invitation': 'Sign-up on this server is by invitation. Ask its administrator for an invitation link.',
  'invalid-invitation': 'This invitation link has been used, has expired or was withdrawn. Ask the administrator for a new one.',
};

/** What a visitor sees instead of the sign-up form when the server's policy does not admit them. */
export function signUpClosedPage(options: { csrfToken: string; access: Exclude<SignUpAccess, { allowed: true }> }): string {
  return layout(
    { title: 'Sign-up closed', csrfToken: options.csrfToken },
    html`<section class="auth-card">
  <h1>Sign-up closed</h1>
  <p id="sign-up-closed">${CLOSED_REASONS[options.access.reason]}</p>
  <p class="switch">Already have an account? <a href="/console/sign-in">Sign in</a></p>
</section>`,
  );
}
