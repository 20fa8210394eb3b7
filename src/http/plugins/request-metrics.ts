import fp from 'fastify-plugin';

/** Counts every answered request and its duration by route template (never the raw path). */
export const requestMetricsPlugin = fp(
  async (app) => {
    const { metrics } = app.services;
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const status = reply.statusCode;
      metrics.requests.inc({ route, method: request.method, status: String(status) });
      metrics.requestDuration.observe(
        { route, method: request.method, status_class: `${Math.floor(status / 100)}xx` },
        reply.elapsedTime / 1000,
      );
    });
  },
  { name: 'request-metrics' },
);
