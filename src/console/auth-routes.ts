import { Router } from 'express';
import { AccountError } from '../accounts/account-error.js';
import { SESSION_SECONDS } from '../accounts/console-sessions.js';
import { signInPage, signUpClosedPage, signUpPage } from './auth-pages.js';
import { messagesByField, refusalStatus } from './form-fields.js';
import { clearConsoleCookie, readCookie, setConsoleCookie } from './cookies.js';
import { type ConsoleDependencies, csrfTokenOf, formField, SESSION_COOKIE, signedInAccount } from './console-context.js';

const HOME = '/console/services';

/** Sign-up, sign-in and sign-out. */
export function consoleAuthRoutes(dependencies: ConsoleDependencies): Router {
  const { accounts, sessions, throttle, signUps } = dependencies;
  const signUpOpen = async () => (await signUps.access(undefined)).allowed;
  const router = Router();

  // A server with no account yet opens on the sign-up of its first account (the administrator); others on sign-in.
  router.get('/', async (_request, response) => {
    if (signedInAccount(response)) return response.redirect(303, HOME);
    response.redirect(303, (await accounts.any()) || !(await signUpOpen()) ? '/console/sign-in' : '/console/sign-up');
  });

  router.get('/sign-up', async (request, response) => {
    if (signedInAccount(response)) return response.redirect(303, HOME);
    const invitation = typeof request.query.invitation === 'string' ? request.query.invitation : undefined;
    const access = await signUps.access(invitation);
    if (!access.allowed) return response.status(403).send(signUpClosedPage({ csrfToken: csrfTokenOf(response), access }));
    response.send(signUpPage({ csrfToken: csrfTokenOf(response), invitation }));
  });

  router.post('/sign-up', async (request, response) => {
    const email = formField(request, 'email');
    const invitation = formField(request, 'invitation') || undefined;
    try {
      const account = await signUps.signUp(email, formField(request, 'password'), invitation);
      if (!account) {
        const access = await signUps.access(invitation);
        return response.status(403).send(signUpClosedPage({ csrfToken: csrfTokenOf(response), access: access.allowed ? { allowed: false, reason: 'invalid-invitation' } : access }));
      }
      setConsoleCookie(request, response, SESSION_COOKIE, await sessions.start(account.id), SESSION_SECONDS);
      response.redirect(303, HOME);
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      const errors = error.code === 'email_taken' ? { email: 'This email is already registered. Sign in instead?' } : messagesByField(error);
      response.status(refusalStatus(error)).send(signUpPage({ csrfToken: csrfTokenOf(response), invitation, email, errors }));
    }
  });

  router.get('/sign-in', async (request, response) => {
    if (signedInAccount(response)) return response.redirect(303, HOME);
    response.send(signInPage({ csrfToken: csrfTokenOf(response), signUpOpen: await signUpOpen(), notice: 'signed-out' in request.query ? 'You are signed out.' : undefined }));
  });

  router.post('/sign-in', async (request, response) => {
    const email = formField(request, 'email');
    const password = formField(request, 'password');
    // An empty field is a slip, not a guess: said beside the field, and not counted against the account.
    const blank: Record<string, string> = {};
    if (email.trim() === '') blank.email = 'enter your email';
    if (password === '') blank.password = 'enter your password';
    if (Object.keys(blank).length > 0) return response.status(400).send(signInPage({ csrfToken: csrfTokenOf(response), signUpOpen: await signUpOpen(), email, errors: blank }));
    const address = request.ip ?? 'unknown';
    const retryAfter = await throttle.retryAfterSeconds(email, address);
    if (retryAfter > 0) {
      const minutes = Math.ceil(retryAfter / 60);
      response.setHeader('Retry-After', String(retryAfter));
      return response.status(429).send(
        signInPage({ csrfToken: csrfTokenOf(response), signUpOpen: await signUpOpen(), email, error: `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, lockedOut: true }),
      );
    }
    let account;
    try {
      account = await accounts.checkCredentials(email, password);
    } catch (error) {
      if (!(error instanceof AccountError && error.code === 'account_disabled')) throw error;
      return response.status(403).send(signInPage({ csrfToken: csrfTokenOf(response), signUpOpen: await signUpOpen(), email, error: 'This account is disabled. Ask the operator of this server to enable it.' }));
    }
    if (!account) {
      await throttle.recordFailure(email, address);
      return response.status(401).send(signInPage({ csrfToken: csrfTokenOf(response), signUpOpen: await signUpOpen(), email, error: 'Wrong email or password.' }));
    }
    await throttle.clear(email, address);
    setConsoleCookie(request, response, SESSION_COOKIE, await sessions.start(account.id), SESSION_SECONDS);
    response.redirect(303, HOME);
  });

  router.post('/sign-out', async (request, response) => {
    const token = readCookie(request, SESSION_COOKIE);
    if (token) await sessions.end(token);
    clearConsoleCookie(request, response, SESSION_COOKIE);
    response.redirect(303, '/console/sign-in?signed-out');
  });

  return router;
}
