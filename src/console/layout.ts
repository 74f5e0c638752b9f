import type { Account } from '../accounts/accounts.js';
import { csrfField } from './form-fields.js';
import { html, type SafeHtml } from './html.js';

export interface PageFrame {
  readonly title: string;
  /** The signed-in account, for the header; undefined on the sign-in pages. */
  readonly account?: Account;
  /** CSRF token for the header's sign-out form and the page's scripts. */
  readonly csrfToken: string;
  readonly notice?: string;
}

/** The page shell shared by every console page: header, optional notice, content. */
export function layout(frame: PageFrame, content: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${frame.csrfToken}">
<title>${frame.title} · detectd console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<header class="topbar">
  <a class="brand" href="/console"><span class="brand-mark" aria-hidden="true"></span>detectd <span class="brand-sub">console</span></a>
  ${frame.account
    ? html`<nav class="topnav">
    <a href="/console/services">Services</a>
    ${frame.account.role === 'admin' ? html`<a href="/console/invitations">Invitations</a><a href="/console/accounts">Accounts</a><a href="/console/status">Status</a>` : ''}
    <a href="/docs">API docs</a>
    <a href="/console/account" title="Signed in as ${frame.account.email}">Your account</a>
    <span class="who" title="Signed in">${frame.account.email}</span>
    <form method="post" action="/console/sign-out" class="inline">${csrfField(frame.csrfToken)}<button class="link-button" type="submit">Sign out</button></form>
  </nav>`
    : html`<nav class="topnav"><a href="/docs">API docs</a></nav>`}
</header>
<main class="content">
${frame.notice ? html`<p class="notice" role="status">${frame.notice}</p>` : ''}
${content}
</main>
</body>
</html>`.text;
}
