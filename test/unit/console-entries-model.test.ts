import { describe, expect, it } from 'vitest';
import { isPunchedSource, SOURCES } from '../../console/src/features/time-tracking/entries/model.js';
import {
  ENTRY_SOURCES,
  isPunchedSource as serverIsPunchedSource,
} from '../../src/modules/time-tracking/results.js';

/* Kiosk review #12: the console names every source the server writes and treats punched ones alike. */
describe("the console's entry sources", () => {
  it('has a label for every source the server writes (kiosk and web_clock included)', () => {
    for (const source of Object.values(ENTRY_SOURCES)) expect(SOURCES[source], source).toBeTruthy();
    expect(SOURCES.kiosk).toBe('Kiosk');
    expect(SOURCES.web_clock).toBe('Web clock');
  });

  it('counts as punched exactly what the server does', () => {
    for (const source of Object.values(ENTRY_SOURCES))
      expect(isPunchedSource(source), source).toBe(serverIsPunchedSource(source));
    expect(isPunchedSource('kiosk')).toBe(true);
    expect(isPunchedSource(undefined)).toBe(false);
  });
});
