import { type Response, Router } from 'express';
import { DetectdError } from '../core/errors.js';
import { baseUrlOf } from '../transports/base-url.js';
import { type ConsoleDependencies, csrfTokenOf, requireAdmin, requireSignIn, signedInAccount } from './console-context.js';
import { invitationsPage } from './invitations-page.js';

/** The administrator's invitation links: they work unless sign-up is closed (`DETECTD_SIGNUP=closed`). */
export function consoleInvitationRoutes(dependencies: ConsoleDependencies): Router {
  const { signUps } = dependencies;
  const router = Router();
  router.use('/invitations', requireSignIn, requireAdmin);

  const page = async (response: Response, extra: { newLink?: string; notice?: string; error?: string } = {}) => {
    response.setHeader('Cache-Control', 'no-store');
    response.send(
      invitationsPage({ account: signedInAccount(response)!, csrfToken: csrfTokenOf(response), policy: signUps.policy, invitationsWork: signUps.invitationsWork, pending: await signUps.pending(), ...extra }),
    );
  };

  router.get('/invitations', async (request, response) => {
    await page(response, { notice: 'withdrawn' in request.query ? 'Invitation withdrawn.' : undefined });
  });

  // The link is shown in the answer to the POST itself: the token is never stored, so it cannot be shown again later.
  router.post('/invitations', async (request, response) => {
    if (!signUps.invitationsWork) {
      response.status(409);
      return page(response, { error: 'No link was made: it could not be used while sign-up is closed.' });
    }
    const { token } = await signUps.invite(signedInAccount(response)!);
    const link = `${baseUrlOf(request, dependencies.publicUrl)}/console/sign-up?invitation=${token}`;
    await page(response, { newLink: link, notice: 'Invitation link created.' });
  });

  router.post('/invitations/:id/withdraw', async (request, response) => {
    if (!(await signUps.withdraw(String(request.params.id)))) throw new DetectdError('not_found', 'There is no such unused invitation.');
    response.redirect(303, '/console/invitations?withdrawn');
  });

  return router;
}
