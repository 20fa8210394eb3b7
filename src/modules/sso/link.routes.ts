import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePerson } from '../../http/plugins/console-session.js';
import { baseUrlOf, secureCookies, type TypeBoxApp } from '../../http/route-context.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { chargeAttempt } from '../../http/plugins/rate-limit/headers.js';
import type { Services } from '../../http/services.js';
import { bindingCookie } from './binding.js';
import { linkStatus, LOGIN_MINUTES, startLink } from './flow.js';
import { SsoLinkBodySchema, SsoLinkStartedSchema, SsoLinkStatusSchema } from './schemas.js';

/*
 * "Link my account" (issue 34's review, item 1): a signed-in person links their account to their
 * company's identity provider. The way for people the provider may not link by email (super admins,
 * people with rights the configuration's author lacked). Behind the session guard and its CSRF check.
 */

type App = TypeBoxApp;

function linkStatusRoute(app: App, services: Services) {
  app.get(
    '/sso/link',
    {
      schema: {
        summary: 'Your link to the identity provider',
        operationId: 'getSsoLink',
        description:
          "Whether the person's company has single sign-on and whether they are linked to an account of it.",
        tags: ['Single sign-on'],
        response: { 200: SsoLinkStatusSchema, ...sessionErrors([]) },
      },
    },
    async (request) => linkStatus(services.ctx.database.db, requirePerson(request)),
  );
}

function startLinkRoute(app: App, services: Services) {
  app.post(
    '/sso/link',
    {
      schema: {
        summary: 'Link your account to the identity provider',
        operationId: 'startSsoLink',
        description:
          "Starts a sign-in at the company's provider that, when the provider's account has the person's own " +
          'verified email, links it to the signed-in person (then their sign-ins go through the provider). ' +
          'Answers the URL to send the browser to, with the binding cookie; the callback checks the browser ' +
          'is still signed in as them. The way for super admins and people with rights beyond the ' +
          "configuration's author to use single sign-on. No single sign-on → 404 sso_not_configured. " +
          'Counted with the starts.',
        tags: ['Single sign-on'],
        body: SsoLinkBodySchema,
        response: {
          200: SsoLinkStartedSchema,
          ...sessionErrors(
            [
              'sso_not_configured',
              'validation_failed',
              'rate_limited',
              'sso_provider_unavailable',
              'sso_configuration_unreadable',
            ],
            true,
          ),
        },
      },
    },
    async (request, reply) => {
      const person = requirePerson(request);
      await chargeAttempt(
        services.ssoStartLimiter,
        request.ip,
        services.ctx.now(),
        reply,
        'single sign-on attempts',
      );
      const keys = { key: services.webhookKey, allowedHosts: services.config.ssoAllowedHosts };
      const started = await startLink(services.ctx, keys, {
        person,
        returnTo: request.body.returnTo,
        baseUrl: baseUrlOf(services, request),
      });
      reply.header(
        'set-cookie',
        bindingCookie(secureCookies(services, request), started.binding, LOGIN_MINUTES * 60),
      );
      return { location: started.location };
    },
  );
}

/** The link routes, registered in the admin API's guarded scope. */
export const ssoLinkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  linkStatusRoute(app, app.services);
  startLinkRoute(app, app.services);
};
