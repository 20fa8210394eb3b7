import fp from 'fastify-plugin';
import { API_PREFIX, DOCS_PATH } from '../paths.js';

/**
 * Spec, Versioning: while v1 is deprecated (configured), every response under its prefix (the
 * description, the reference page and unknown paths included) says so, with its sunset date and a
 * Link to the deprecation notice, or to the reference page when none is configured.
 */
export const deprecationPlugin = fp(
  async (app) => {
    const { config } = app.services;
    const deprecation = config.deprecation;
    if (!deprecation) return;
    app.addHook('onRequest', async (request, reply) => {
      if (!request.url.startsWith(API_PREFIX)) return;
      reply.header('deprecation', 'true');
      reply.header('sunset', deprecation.sunset);
      const link = deprecation.link ?? `${app.services.urls.publicBaseUrl}${DOCS_PATH}`;
      reply.header('link', `<${link}>; rel="deprecation"`);
    });
  },
  { name: 'deprecation' },
);
