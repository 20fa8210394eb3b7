import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
  loadConfig,
} from '../../src/platform/config.js';

const BASE = { DATABASE_URL: 'sqlite:/tmp/unused.sqlite', PORT: '0', LOG_LEVEL: 'silent' };

describe('WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT (issue 36)', () => {
  it('defaults to 16, takes 1 to 64, refuses anything else', () => {
    expect(DEFAULT_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT).toBe(16);
    expect(loadConfig(BASE).webhooks.maxInFlightPerEndpoint).toBe(16);
    expect(
      loadConfig({ ...BASE, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1' }).webhooks.maxInFlightPerEndpoint,
    ).toBe(1);
    expect(
      loadConfig({ ...BASE, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '64' }).webhooks.maxInFlightPerEndpoint,
    ).toBe(64);
    for (const bad of ['0', '65', 'x', '2.5'])
      expect(() => loadConfig({ ...BASE, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: bad })).toThrow(ConfigError);
  });
});
