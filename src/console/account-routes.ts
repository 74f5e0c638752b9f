import { type Response, Router } from 'express';
import { AccountError, codesOf } from '../accounts/account-error.js';
import { SESSION_SECONDS } from '../accounts/console-sessions.js';
import { DetectdError } from '../core/errors.js';
import { accountsPage, ownAccountPage } from './account-pages.js';
import { setConsoleCookie } from './cookies.js';
import { type ConsoleDependencies, csrfTokenOf, formField, requireAdmin, requireSignIn, SESSION_COOKIE, signedInAccount } from './console-context.js';
import { type FormState, messagesByField, refusalStatus } from './form-fields.js';

/** The password form's field names for the account domain's. */
const PASSWORD_FIELDS = { currentPassword: 'current_password', newPassword: 'new_password' };

/** Your account (change password), and the administrator's list of accounts (disable, enable). */
export function consoleAccountRoutes(dependencies: ConsoleDependencies): Router {
  const { accounts, sessions, throttle } = dependencies;
  const router = Router();
  router.use(['/account', '/accounts'], requireSignIn);
  router.use('/accounts', requireAdmin);

  const ownPage = async (response: Response, extra: { notice?: string; refused?: FormState } = {}) => {
    const account = (await accounts.findById(signedInAccount(response)!.id))!;
    response.send(ownAccountPage({ account, csrfToken: csrfTokenOf(response), ...extra }));
  };

  router.get('/account', (request, response) => ownPage(response, { notice: request.query.done === 'password' ? 'Password changed. Other browsers are signed out.' : undefined }));

  // Guesses at the current password count like failed sign-ins: a borrowed session cannot try passwords freely.
  router.post('/account/password', async (request, response) => {
    const account = signedInAccount(response)!;
    const address = request.ip ?? 'unknown';
    const retryAfter = await throttle.retryAfterSeconds(account.email, address);
    if (retryAfter > 0) {
      response.setHeader('Retry-After', String(retryAfter));
      response.status(429);
      return ownPage(response, { refused: { values: {}, errors: { '': `Too many wrong passwords. Try again in ${Math.ceil(retryAfter / 60)} min.` } } });
    }
    try {
      await accounts.changePassword(account, formField(request, 'current_password'), formField(request, 'new_password'));
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      if (codesOf(error).includes('wrong_password')) await throttle.recordFailure(account.email, address);
      response.status(refusalStatus(error));
      return ownPage(response, { refused: { values: {}, errors: messagesByField(error, PASSWORD_FIELDS) } });
    }
    await throttle.clear(account.email, address);
    setConsoleCookie(request, response, SESSION_COOKIE, await sessions.start(account.id), SESSION_SECONDS);
    response.redirect(303, '/console/account?done=password');
  });

  const accountsList = async (response: Response, extra: { notice?: string; error?: string } = {}) => {
    response.setHeader('Cache-Control', 'no-store');
    response.send(accountsPage({ account: signedInAccount(response)!, csrfToken: csrfTokenOf(response), accounts: await accounts.list(), ...extra }));
  };

  router.get('/accounts', (request, response) => {
    const done = request.query.done;
    return accountsList(response, { notice: done === 'disabled' ? 'Account disabled.' : done === 'enabled' ? 'Account enabled.' : undefined });
  });

  for (const [action, disabled] of [['disable', true], ['enable', false]] as const) {
    router.post(`/accounts/:id/${action}`, async (request, response) => {
      const target = await accounts.findById(String(request.params.id));
      if (!target) throw new DetectdError('not_found', 'There is no such account.');
      if (target.id === signedInAccount(response)!.id) {
        response.status(409);
        return accountsList(response, { error: 'You cannot disable or enable your own account here: it would lock the administrator out.' });
      }
      await accounts.setDisabled(target.email, disabled);
      response.redirect(303, `/console/accounts?done=${disabled ? 'disabled' : 'enabled'}#account-${target.id}`);
    });
  }

  return router;
}
