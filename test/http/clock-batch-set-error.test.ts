import { describe, expect, it, vi } from 'vitest';
import type * as BatchContext from '../../src/modules/time-tracking/batch-context.js';
import { testDialects } from '../support/databases.js';
import { call, HOUR, iso, type Reply, T0, timeTrackingSuite } from '../support/time-tracking.js';

/*
 * Issue 32, item 2 (review of s32, F2): an error of the set form that is neither an answer of the rules
 * nor the database's refusal (a defect) still answers as one by one, through the one transaction, and
 * is counted under its own reason (punchclock_batch_forms_total{reason="set_error"}), not hidden as a
 * database refusal.
 */
const failing = vi.hoisted(() => ({ on: false }));
vi.mock('../../src/modules/time-tracking/batch-context.js', async (importOriginal) => {
  const original = await importOriginal<typeof BatchContext>();
  return {
    ...original,
    loadBatchContext: async (...args: Parameters<typeof original.loadBatchContext>) => {
      if (failing.on) throw new Error('a defect of the set form');
      return original.loadBatchContext(...args);
    },
  };
});

const BATCH = '/api/public/v1/time-clock/events/batch';

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'an error of the set form on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { start: T0 + HOUR });

    async function reasons(): Promise<Record<string, number>> {
      const metric = await suite.server.services.metrics.batchForms.get();
      return Object.fromEntries(
        metric.values.map((v) => [`${String(v.labels.form)}|${String(v.labels.reason)}`, v.value]),
      );
    }

    it('is counted as set_error (not db_refused); the batch answers as the same punches one by one', async () => {
      const events = [
        { employee: { externalId: 'EXT-0' }, type: 'clock_in', occurredAt: iso(T0 - 8 * HOUR) },
        { employee: { externalId: 'EXT-0' }, type: 'clock_in', occurredAt: iso(T0 - 7 * HOUR) },
        { employee: { externalId: 'EXT-1' }, type: 'clock_out', occurredAt: iso(T0 - 7 * HOUR) },
      ];
      const single = await suite.berlin({ employeeCount: 2 });
      const batched = await suite.berlin({ employeeCount: 2 });
      const one: Reply[] = [];
      for (const event of events) one.push(await single.clock(event));
      const before = await reasons();
      failing.on = true;
      let reply: Reply;
      try {
        reply = await call(suite.server, batched.token, 'POST', BATCH, { events });
      } finally {
        failing.on = false;
      }
      expect(reply.status).toBe(200);
      const got = (reply.body as unknown as { results: { status: number }[] }).results;
      expect(got.map((r) => r.status)).toEqual(one.map((r) => r.status));
      const after = await reasons();
      expect(after['together|set_error'] ?? 0).toBe((before['together|set_error'] ?? 0) + 1);
      expect(after['together|db_refused'] ?? 0).toBe(before['together|db_refused'] ?? 0);
      expect(after['set|none'] ?? 0).toBe(before['set|none'] ?? 0);
    });
  },
);
