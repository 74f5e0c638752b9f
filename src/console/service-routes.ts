import { type Request, type RequestHandler, type Response, Router } from 'express';
import { AccountError } from '../accounts/account-error.js';
import { messagesByField, refusalStatus } from './form-fields.js';
import type { Service } from '../core/service.js';
import { DetectdError } from '../core/errors.js';
import { cardNotice, type NoticeSection, type RefusedForm, serviceOverviewPage } from './service-overview-page.js';
import { newServicePage, serviceListPage } from './service-list-page.js';
import { isUsageWindow } from '../usage/usage-store.js';
import { catalogueModel } from '../models/model-catalogue.js';
import { modelNotLoaded } from '../services-without-model.js';
import { baseUrlOf } from '../transports/base-url.js';
import { shownPathsOfTask } from '../transports/deepstack/deepstack-route-table.js';
import { type ConsoleDependencies, csrfTokenOf, formField, requireSignIn, signedInAccount } from './console-context.js';
import type { ServiceCard } from './service-card.js';
import { withArticle } from '../indefinite-article.js';

/** Notices shown after an action redirects back; the query names one, so no text from the request is echoed. */
const NOTICES = {
  created: 'Service created. Its API key is below.',
  rotated: 'New API key issued.',
  'key-revoked': 'API key revoked.',
  disabled: 'Service disabled.',
  enabled: 'Service enabled.',
  deleted: 'Service deleted.',
  'keyless-on': 'Calls without a key from the listed address ranges are now accepted.',
  'keyless-off': 'Calls without a key are refused again.',
  limits: 'Limits saved.',
  settings: 'Name and model saved.',
} as const;

/** The limits form's field names for the limits' names. */
const LIMIT_FIELDS = { rateLimitPerMinute: 'rate_limit_per_minute', monthlyQuota: 'monthly_quota' };

/** A limit field: empty is no limit; anything else must be a whole number (Services.setLimits checks the range). */
function limitField(request: Request, name: string): number | null {
  const text = formField(request, name).trim().replace(/[_,\s]/g, '');
  return text === '' ? null : /^\d+$/.test(text) ? Number(text) : Number.NaN;
}

/** Notices of a form saved in a card of its own: shown in that card, where the page lands (its #anchor). */
const NOTICE_SECTIONS: Partial<Record<keyof typeof NOTICES, NoticeSection>> = { 'keyless-on': 'keyless', 'keyless-off': 'keyless', limits: 'limits', settings: 'settings' };

/** The console's own forms, each posted to `/console/services/<id>/<action>`, and its notices (`?done=`): no card's form may take one of these paths. */
const OWN_ACTIONS = new Set(['keyless', 'api-key', 'rotate', 'keys', 'disable', 'enable', 'limits', 'settings', 'delete', ...Object.keys(NOTICES)]);

/** The cards' forms, each path checked once at start-up: lowercase words joined by '-', none of the console's own. */
export function cardFormPaths(cards: readonly ServiceCard[]): Set<string> {
  const paths = new Set(cards.flatMap((card) => (card.form ? [card.form.path] : [])));
  for (const path of paths) {
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(path) || OWN_ACTIONS.has(path)) throw new Error(`a console card's form posts to "${path}": a path is lowercase words joined by "-", none of the console's own (${[...OWN_ACTIONS].join(', ')})`);
  }
  return paths;
}

/** The card of a service of `type` whose form posts to `path`, if any. */
const cardWithForm = (cards: readonly ServiceCard[], type: string, path: unknown) => cards.find((card) => card.serviceType === type && card.form?.path === path);

function doneOf(request: Request): keyof typeof NOTICES | undefined {
  const done = request.query.done;
  return typeof done === 'string' && Object.hasOwn(NOTICES, done) ? (done as keyof typeof NOTICES) : undefined;
}

function noticeOf(request: Request): string | undefined {
  const done = doneOf(request);
  return done && NOTICES[done];
}

const serviceOf = (response: Response) => response.locals.service as Service;

/** Services of the signed-in account: list, create, overview, key actions, usage. */
export function consoleServiceRoutes(dependencies: ConsoleDependencies): Router {
  const { services, keys, usage, models, tasks, deepStackRoutes, cards } = dependencies;
  const cardPaths = cardFormPaths(cards);
  const router = Router();
  router.use('/services', requireSignIn);

  // Every route with an :id loads the service through its owner: another account's service is a 404, like a missing one.
  const ownedService: RequestHandler = async (request, response, next) => {
    const service = await services.find(signedInAccount(response)!.id, String(request.params.id));
    if (!service) throw new DetectdError('not_found', 'There is no such service in your account.');
    response.locals.service = service;
    next();
  };
  const overview = (service: Service, done?: keyof typeof NOTICES) => `/console/services/${service.id}${done ? `?done=${done}` : ''}`;

  /** The models a service of `type` may name (those serving its task's lead step), its default first. */
  const modelsOfType = (type: string): string[] => tasks.modelsFor(type, models.models);
  const defaultOfType = (type: string): string => {
    const task = tasks.find(type);
    return (task && models.defaultOf(task.lead)?.name) ?? models.defaultModel.name;
  };

  router.get('/services', async (request, response) => {
    const account = signedInAccount(response)!;
    response.send(
      serviceListPage({
        account,
        csrfToken: csrfTokenOf(response),
        services: await services.list(account.id),
        taskTypes: tasks.types,
        defaultModelOf: defaultOfType,
        withoutModel: (service) => modelNotLoaded(service, tasks, models),
        notice: noticeOf(request),
      }),
    );
  });

  const typesWithModels = () => tasks.types.map((type) => ({ type, models: modelsOfType(type), defaultModel: defaultOfType(type) }));

  router.get('/services/new', (_request, response) => {
    response.send(newServicePage({ account: signedInAccount(response)!, csrfToken: csrfTokenOf(response), types: typesWithModels() }));
  });

  router.post('/services', async (request, response) => {
    const account = signedInAccount(response)!;
    const values = { name: formField(request, 'name'), type: formField(request, 'type'), model: formField(request, 'model') };
    try {
      const { service } = await services.create(account.id, { name: values.name, type: values.type || undefined, model: values.model || null });
      response.redirect(303, overview(service, 'created'));
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      response.status(refusalStatus(error)).send(newServicePage({ account, csrfToken: csrfTokenOf(response), types: typesWithModels(), form: { values, errors: messagesByField(error) } }));
    }
  });

  /** What the authors of the model answering `service` suggest as its confidence threshold, if the model catalogue knows. */
  const suggestedThreshold = (service: Service) => {
    const model = models.find(service.model ?? defaultOfType(service.type));
    const threshold = model && catalogueModel(model.name)?.suggestedThreshold;
    return threshold === undefined ? undefined : { model: model!.name, threshold };
  };

  const renderOverview = async (request: Request, response: Response, refused?: RefusedForm) => {
    const service = serviceOf(response);
    const task = tasks.find(service.type);
    const window = isUsageWindow(request.query.window) ? request.query.window : 'day';
    // A card's form just saved: its notice, in the card.
    const saved = cardWithForm(cards, service.type, request.query.done)?.form;
    const placed = cards
      .filter((card) => card.serviceType === service.type)
      .map(async (card) => {
        const page = {
          csrfToken: csrfTokenOf(response),
          action: `/console/services/${service.id}/${card.form?.path ?? ''}`,
          notice: saved && saved === card.form ? cardNotice(saved.saved) : ('' as const),
          refused: card.form && refused?.form === card.form.path ? refused : undefined,
        };
        return { place: card.place ?? 'memory', html: await card.section(service, page) };
      });
    response.setHeader('Cache-Control', 'no-store');
    response.send(
      serviceOverviewPage({
        account: signedInAccount(response)!,
        csrfToken: csrfTokenOf(response),
        service,
        task,
        withoutModel: modelNotLoaded(service, tasks, models),
        baseUrl: baseUrlOf(request, dependencies.publicUrl),
        defaultModel: defaultOfType(service.type),
        suggestedThreshold: suggestedThreshold(service),
        models: modelsOfType(service.type),
        deepStackPaths: task ? shownPathsOfTask(deepStackRoutes, task) : [],
        cards: await Promise.all(placed),
        keys: await keys.active(service),
        usage: await usage.summary(service.id, window),
        callsThisMonth: await dependencies.serviceLimits.callsThisMonth(service.id),
        window,
        graceSeconds: dependencies.keyRotationGraceSeconds,
        streamTokenSeconds: dependencies.streamTokenSeconds,
        notice: saved?.saved ?? noticeOf(request),
        noticeSection: saved?.path ?? NOTICE_SECTIONS[doneOf(request) ?? 'created'],
        refused,
      }),
    );
  };

  /** After the account domain refused a change from one of the overview's forms: the page again, the form as typed, each error beside its field. */
  const showRefused = (request: Request, response: Response, error: unknown, refused: Omit<RefusedForm, 'errors'>, formNames: Readonly<Record<string, string>> = {}, unnamed?: string) => {
    if (!(error instanceof AccountError)) throw error;
    response.status(refusalStatus(error));
    return renderOverview(request, response, { ...refused, errors: messagesByField(error, formNames, unnamed) });
  };

  router.get('/services/:id', ownedService, (request, response) => renderOverview(request, response));

  router.post('/services/:id/keyless', ownedService, async (request, response) => {
    const service = serviceOf(response);
    const on = formField(request, 'keyless') === 'on';
    const ranges = formField(request, 'ranges');
    try {
      await services.setKeylessAddressRanges(service, on ? ranges : null);
      response.redirect(303, `${overview(service, on ? 'keyless-on' : 'keyless-off')}#keyless`);
    } catch (error) {
      await showRefused(request, response, error, { form: 'keyless', values: { ranges } }, {}, 'ranges');
    }
  });

  // The key leaves the server only here, on a same-origin POST carrying the CSRF token, never cached.
  router.post('/services/:id/api-key', ownedService, async (_request, response) => {
    const apiKey = await keys.reveal(serviceOf(response));
    if (!apiKey) throw new DetectdError('not_found', 'This service has no API key that can be shown.');
    response.setHeader('Cache-Control', 'no-store');
    response.json({ api_key: apiKey });
  });

  router.post('/services/:id/rotate', ownedService, async (request, response) => {
    const service = serviceOf(response);
    await keys.rotate(service, formField(request, 'old_key') === 'grace' ? dependencies.keyRotationGraceSeconds : 0);
    response.redirect(303, overview(service, 'rotated'));
  });

  router.post('/services/:id/keys/:keyId/revoke', ownedService, async (request, response) => {
    const service = serviceOf(response);
    if (!(await keys.revoke(service, String(request.params.keyId)))) throw new DetectdError('not_found', 'This service has no such working key.');
    response.redirect(303, overview(service, 'key-revoked'));
  });

  for (const [action, disabled] of [['disable', true], ['enable', false]] as const) {
    router.post(`/services/:id/${action}`, ownedService, async (_request, response) => {
      const service = serviceOf(response);
      await services.setDisabled(service, disabled);
      response.redirect(303, overview(service, disabled ? 'disabled' : 'enabled'));
    });
  }

  router.post('/services/:id/limits', ownedService, async (request, response) => {
    const service = serviceOf(response);
    try {
      await services.setLimits(service, { rateLimitPerMinute: limitField(request, 'rate_limit_per_minute'), monthlyQuota: limitField(request, 'monthly_quota') });
    } catch (error) {
      const values = { rate_limit_per_minute: formField(request, 'rate_limit_per_minute'), monthly_quota: formField(request, 'monthly_quota') };
      return showRefused(request, response, error, { form: 'limits', values }, LIMIT_FIELDS);
    }
    response.redirect(303, `${overview(service, 'limits')}#limits`);
  });

  router.post('/services/:id/settings', ownedService, async (request, response) => {
    const values = { name: formField(request, 'name'), model: formField(request, 'model') };
    try {
      const service = await services.update(serviceOf(response), { name: values.name, model: values.model || null });
      response.redirect(303, `${overview(service, 'settings')}#settings`);
    } catch (error) {
      await showRefused(request, response, error, { form: 'settings', values });
    }
  });

  router.post('/services/:id/delete', ownedService, async (_request, response) => {
    await services.delete(serviceOf(response));
    response.redirect(303, '/console/services?done=deleted');
  });

  // The cards' forms (ServiceCard.form), each on the services of its card's type; another's is a 404.
  for (const path of cardPaths) {
    router.post(`/services/:id/${path}`, ownedService, async (request, response) => {
      const service = serviceOf(response);
      const form = cardWithForm(cards, service.type, path)?.form;
      if (!form) throw new DetectdError('not_found', `There is no such setting for ${withArticle(service.type)} service.`);
      const values = Object.fromEntries(form.fields.map((name) => [name, formField(request, name)]));
      const errors = await form.save(service, values);
      if (!errors) return response.redirect(303, `/console/services/${service.id}?done=${path}#${path}`);
      response.status(400);
      return renderOverview(request, response, { form: path, values, errors });
    });
  }

  return router;
}
