import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { requirePermission } from '../../http/plugins/console-session.js';
import { baseUrlOf, type TypeBoxApp } from '../../http/route-context.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import type { Services } from '../../http/services.js';
import { PERMISSION_MANAGE_COMPANY } from '../auth/scopes.js';
import { removeSsoConfig, setSsoConfig, ssoSettings } from './config.js';
import { SsoProblem } from './provider.js';
import { SsoConfigBodySchema, SsoSettingsSchema } from './schemas.js';

/*
 * The company's single sign-on configuration in the admin API (permission 93), behind the console's
 * session and CSRF checks (the guard comes from the wiring). The sign-in itself: sign-in.routes.ts.
 */

type App = TypeBoxApp;

function keysOf(services: Services) {
  return { key: services.webhookKey, allowedHosts: services.config.ssoAllowedHosts };
}

/** Runs a save; a refused issuer's reason (what the provider answered, or not) goes to the log only. */
async function saveLogged<T>(request: FastifyRequest, save: () => Promise<T>): Promise<T> {
  try {
    return await save();
  } catch (error) {
    if (error instanceof SsoProblem && error.logDetail)
      request.log.info({ error: error.errorName, reason: error.logDetail }, 'single sign-on issuer refused');
    throw error;
  }
}

function getConfigRoute(app: App, services: Services) {
  app.get(
    '/company/sso',
    {
      schema: {
        summary: "The company's single sign-on",
        operationId: 'getCompanySso',
        description:
          'The configuration (never the client secret) or null, and the redirect URI to register at the provider. Permission 93.',
        tags: ['Single sign-on'],
        response: { 200: SsoSettingsSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      return ssoSettings(services.ctx.database.db, person.companyId, baseUrlOf(services, request));
    },
  );
}

function putConfigRoute(app: App, services: Services) {
  app.put(
    '/company/sso',
    {
      schema: {
        summary: "Set the company's single sign-on",
        operationId: 'setCompanySso',
        description:
          "Saves the whole configuration after reading the issuer's discovery document (through the outbound " +
          'address guard: public addresses only, unless SSO_ALLOWED_HOSTS lists one). The client secret is ' +
          'stored encrypted and never shown again. The group mapping may grant only permissions the person ' +
          "holds; the person's permissions become the configuration's authority: it links by email, and sets " +
          'permissions by group for, only people all of whose permissions are among them, never a super admin. ' +
          "An email domain of another company's single sign-on → 409 sso_domain_taken; one used by people of " +
          'another company, or by a super admin when the person is none → 409 sso_domain_in_use; a public mail ' +
          "provider's domain (gmail.com, outlook.com, …) → 422 validation_failed naming allowedDomains; a domain " +
          'the company does not serve yet where none of its active people has an address, unless the person is a ' +
          'super admin → 422 sso_domain_unproven. A new issuer ' +
          'drops every link to the old one and ends the sessions it began; switching "require" on ends the ' +
          'password sessions of the people it refuses a password. Permission 93.',
        tags: ['Single sign-on'],
        body: SsoConfigBodySchema,
        response: {
          200: SsoSettingsSchema,
          ...sessionErrors(
            [
              'forbidden',
              'validation_failed',
              'sso_domain_taken',
              'sso_domain_in_use',
              'sso_domain_unproven',
            ],
            true,
          ),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      const body = request.body;
      await saveLogged(request, () =>
        setSsoConfig(
          services.ctx,
          keysOf(services),
          person.companyId,
          {
            issuer: body.issuer,
            clientId: body.clientId,
            clientSecret: body.clientSecret ?? null,
            allowedDomains: body.allowedDomains,
            groupsClaim: body.groupsClaim ?? null,
            groupPermissions: body.groupPermissions ?? {},
            createPeople: body.createPeople ?? false,
            requireSso: body.requireSso ?? false,
          },
          { type: 'user', id: person.id },
          person,
        ),
      );
      return ssoSettings(services.ctx.database.db, person.companyId, baseUrlOf(services, request));
    },
  );
}

function deleteConfigRoute(app: App, services: Services) {
  app.delete(
    '/company/sso',
    {
      schema: {
        summary: "Remove the company's single sign-on",
        operationId: 'removeCompanySso',
        description:
          'Removes the configuration, its domains and the links of people to the provider; sign-ins under way ' +
          'are refused and the sessions single sign-on began end. Removing twice is harmless. Permission 93.',
        tags: ['Single sign-on'],
        response: { 204: { type: 'null', description: 'Removed' }, ...sessionErrors(['forbidden'], true) },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      await removeSsoConfig(services.ctx, person.companyId, { type: 'user', id: person.id });
      return reply.code(204).send();
    },
  );
}

/** Single sign-on's configuration routes (docs/admin-api-contract.md, "Single sign-on"). */
export const ssoAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  getConfigRoute(app, app.services);
  putConfigRoute(app, app.services);
  deleteConfigRoute(app, app.services);
};
