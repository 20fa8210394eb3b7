import fp from 'fastify-plugin';

/** Forgets the counters of keys idle for a whole window, once a window, until the app closes. */
export const rateLimitSweepPlugin = fp(
  async (app) => {
    const { resourceLimiter, tokenLimiter, unknownClientLimiter, ctx } = app.services;
    const { signInAccountLimiter, signInAddressLimiter, ssoStartLimiter } = app.services;
    const { selfPinPersonLimiter, selfPinAddressLimiter } = app.services;
    const sweep = setInterval(() => {
      const at = ctx.now();
      resourceLimiter.sweep(at);
      tokenLimiter.sweep(at);
      unknownClientLimiter.sweep(at);
      signInAccountLimiter.sweep(at);
      signInAddressLimiter.sweep(at);
      ssoStartLimiter.sweep(at);
      selfPinPersonLimiter.sweep(at);
      selfPinAddressLimiter.sweep(at);
    }, resourceLimiter.windowMs);
    sweep.unref();
    app.addHook('onClose', async () => clearInterval(sweep));
  },
  { name: 'rate-limit-sweep' },
);
