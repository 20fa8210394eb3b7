/* global document, window, navigator, localStorage, crypto */
import { ApiProblem, call, credential, enrol, forgetCredential } from './api.js';
import { dismissRefused, enqueue, moveToRefused, queued, refused, removeQueued } from './queue.js';

/*
 * The kiosk (issue 35): enrol once with a code, then an idle screen where employees scan a badge or
 * choose their name and type a PIN, punch with big buttons, and read the result in words. Every punch
 * goes to the queue in IndexedDB first and is sent through the batch endpoint: at once when online,
 * again on the `online` event and every 20 seconds; what is refused is shown, never dropped.
 */

const RESULT_MS = 5000;
const SYNC_EVERY_MS = 20_000;
const NAMES = 'punchclock-kiosk-names';
const STATES = 'punchclock-kiosk-states';
const main = document.getElementById('main');
let idleTimer = null;
let syncing = false;

const WORDS = {
  clock_in: ['Clock in', 'Clocked in'],
  break_start: ['Start break', 'Break started'],
  break_end: ['End break', 'Break ended'],
  clock_out: ['Clock out', 'Clocked out'],
};

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) el.append(child);
  return el;
}

function show(title, ...content) {
  clearTimeout(idleTimer);
  main.replaceChildren(h('h1', { id: 'title' }, title), ...content.filter((part) => part !== null));
  document.title = `${title} · Punchclock kiosk`;
}

function hhmm(date) {
  return date.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
}

/** The local wall clock with its offset, as the API wants it: 2026-11-27T08:02:13+01:00. */
function localInstant(date) {
  const pad = (n) => String(Math.abs(n)).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`
  );
}

function firstName(who) {
  return who.offline ? who.name : who.name.split(' ')[0] || who.name;
}

function problemText(error) {
  if (error instanceof ApiProblem) return error.message;
  return 'No connection to the server.';
}

function remember(key, value) {
  localStorage.setItem(key, JSON.stringify(value));
}

function recall(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key) ?? 'null') ?? fallback;
  } catch {
    return fallback;
  }
}

/** The tablet's credential refused (revoked): 401 invalid_client when a new token is asked for. */
function isRevoked(problem) {
  return problem instanceof ApiProblem && problem.status === 401 && problem.body.error === 'invalid_client';
}

/** A revoked tablet forgets its credential and says so, on the enrolment screen (its queue stays shown). */
function revoked() {
  forgetCredential();
  return enrolScreen('This tablet was revoked. Enrol it again with a new code.');
}

/* ---- the queue and the sync ---- */

async function refreshStatus() {
  const waiting = (await queued()).length;
  document.getElementById('queue').textContent =
    waiting > 0 ? `waiting to send (${waiting})` : 'All punches sent';
  document.getElementById('network').textContent = navigator.onLine ? '' : 'Offline: punches are kept here';
  return waiting;
}

/** Sends the queue through the batch endpoint; returns what happened to `watch` (a key), if anything. */
async function sync(watch = null) {
  if (syncing) return null;
  syncing = true;
  let outcome = null;
  try {
    const punches = (await queued()).slice(0, 100);
    if (punches.length === 0) return null;
    const events = punches.map((p) => ({
      employee: p.employee,
      type: p.type,
      occurredAt: p.occurredAt,
      idempotencyKey: p.idempotencyKey,
    }));
    const answer = await call(
      'POST',
      '/time-clock/events/batch',
      { events },
      {
        'x-device-clock': new Date().toISOString(),
        'x-kiosk-queue': String(punches.length),
      },
    );
    for (const result of answer.results) {
      const punch = punches[result.index];
      if (result.status === 200 || result.status === 201) {
        await removeQueued(punch.idempotencyKey);
        if (punch.idempotencyKey === watch) outcome = { stored: true };
      } else if (result.status === 409 && result.body.error === 'idempotency_in_flight') {
        continue;
      } else {
        const reason = result.body.detail ?? result.body.title ?? `refused (${result.status})`;
        await moveToRefused(punch, reason);
        if (punch.idempotencyKey === watch) outcome = { refused: reason };
      }
    }
    // The server hears at once how many are left (the console shows it).
    await heartbeat();
  } catch {
    // Offline, or the server is away: everything stays queued for the next try.
  } finally {
    syncing = false;
    await refreshStatus();
  }
  return outcome;
}

async function heartbeat() {
  try {
    const waiting = (await queued()).length;
    const names = await call('GET', '/kiosk/employees', undefined, { 'x-kiosk-queue': String(waiting) });
    remember(NAMES, names.items);
  } catch (problem) {
    // A revoked tablet hears it; offline, the names seen last stay.
    if (problem instanceof ApiProblem && problem.body.error === 'invalid_client') throw problem;
  }
}

/* ---- screens ---- */

function enrolScreen(message = null) {
  const input = h('input', {
    id: 'code',
    name: 'code',
    autocomplete: 'off',
    autocapitalize: 'characters',
    'aria-describedby': 'code-hint',
  });
  const error = h('p', { id: 'enrol-error', class: 'error', role: 'alert' }, message ?? '');
  const form = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = '';
        try {
          await enrol(input.value);
          await startIdle();
        } catch (problem) {
          error.textContent = problemText(problem);
          input.focus();
        }
      },
    },
    h('label', { for: 'code' }, 'Enrolment code'),
    h(
      'p',
      { id: 'code-hint', class: 'hint' },
      'Someone who manages employees makes a code in the console (Kiosk devices) or with "punchclock device enrol". It works once, for 15 minutes.',
    ),
    h('div', { class: 'row' }, input, h('button', { class: 'primary', type: 'submit' }, 'Enrol this tablet')),
    error,
  );
  show('Set up this kiosk', form);
  input.focus();
}

async function refusedPanel() {
  const list = await refused();
  if (list.length === 0) return null;
  return h(
    'section',
    { class: 'refused-list', 'aria-labelledby': 'refused-title' },
    h('h2', { id: 'refused-title' }, `Not recorded (${list.length})`),
    h(
      'ul',
      {},
      list.map((p) =>
        h(
          'li',
          {},
          `${WORDS[p.type][0]} at ${hhmm(new Date(p.takenAt))}, ${p.name}: ${p.reason} `,
          h(
            'button',
            {
              type: 'button',
              onclick: async () => {
                await dismissRefused(p.idempotencyKey);
                await idleScreen();
              },
            },
            'Seen',
          ),
        ),
      ),
    ),
  );
}

async function idleScreen() {
  const badge = h('input', {
    id: 'badge',
    name: 'badge',
    autocomplete: 'off',
    'aria-describedby': 'badge-hint',
  });
  const error = h('p', { id: 'badge-error', class: 'error', role: 'alert' });
  const names = recall(NAMES, []);
  const form = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        const value = badge.value.trim();
        if (value === '') return;
        await identified({ badge: value }, error, badge);
      },
    },
    h('label', { for: 'badge' }, 'Scan your badge'),
    h(
      'p',
      { id: 'badge-hint', class: 'hint' },
      'Hold your badge to the reader, or type its number and press Enter.',
    ),
    h('div', { class: 'row' }, badge, h('button', { class: 'primary', type: 'submit' }, 'Go')),
    error,
  );
  const nameList =
    names.length === 0
      ? null
      : h(
          'section',
          { 'aria-labelledby': 'names-title' },
          h('h2', { id: 'names-title' }, 'Or choose your name'),
          h(
            'ul',
            { class: 'names' },
            names.map((n) =>
              h('li', {}, h('button', { type: 'button', onclick: () => pinScreen(n) }, n.displayName)),
            ),
          ),
        );
  show('Clock in or out', form, await refusedPanel(), nameList);
  badge.focus();
}

function pinScreen(person) {
  const pin = h('input', {
    id: 'pin',
    name: 'pin',
    type: 'password',
    inputmode: 'numeric',
    autocomplete: 'off',
    maxlength: '8',
    'aria-describedby': 'pin-hint',
  });
  const error = h('p', { id: 'pin-error', class: 'error', role: 'alert' });
  const digit = (d) =>
    h(
      'button',
      {
        type: 'button',
        'aria-label': `digit ${d}`,
        onclick: () => {
          pin.value += d;
          pin.focus();
        },
      },
      d,
    );
  const form = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        if (!navigator.onLine) {
          error.textContent = 'A PIN needs the network. Please use your badge.';
          return;
        }
        await identified({ employeeId: person.id, pin: pin.value }, error, pin, () => (pin.value = ''));
      },
      onkeydown: (event) => event.key === 'Escape' && void idleScreen(),
    },
    h('label', { for: 'pin' }, `PIN for ${person.displayName}`),
    h('p', { id: 'pin-hint', class: 'hint' }, '4 to 8 digits, then Enter.'),
    h('div', { class: 'row' }, pin, h('button', { class: 'primary', type: 'submit' }, 'OK')),
    h(
      'div',
      { class: 'pad' },
      ['1', '2', '3', '4', '5', '6', '7', '8', '9'].map(digit),
      h(
        'button',
        {
          type: 'button',
          'aria-label': 'delete the last digit',
          onclick: () => {
            pin.value = pin.value.slice(0, -1);
            pin.focus();
          },
        },
        '⌫',
      ),
      digit('0'),
    ),
    error,
    h('button', { type: 'button', onclick: () => idleScreen() }, 'Cancel'),
  );
  show(person.displayName, form);
  pin.focus();
}

/** Identified online, or (offline, by badge only) taken as typed: the server checks it when it syncs. */
async function identified(body, error, field, clear = () => {}) {
  error.textContent = '';
  try {
    const who = await call('POST', '/kiosk/identify', body, {
      'x-kiosk-queue': String((await queued()).length),
    });
    actionScreen({ employee: { id: who.employee.id }, name: who.displayName, state: who.state });
  } catch (problem) {
    if (isRevoked(problem)) return revoked();
    if (problem instanceof ApiProblem) {
      clear();
      error.textContent =
        problem.body.error === 'employee_not_found'
          ? 'Not recognised here. Try again or ask your manager.'
          : problem.body.error === 'invalid_pin'
            ? 'Wrong PIN. Try again.'
            : problemText(problem);
      field.focus();
      return;
    }
    if (body.badge === undefined) {
      error.textContent = 'A PIN needs the network. Please use your badge.';
      return;
    }
    const known = recall(STATES, {})[`badge:${body.badge}`];
    actionScreen({
      employee: { externalId: body.badge },
      name: `badge ${body.badge}`,
      state: known ?? null,
      offline: true,
    });
  }
}

function actionScreen(who) {
  const state = who.state;
  const types =
    state === null
      ? ['clock_in', 'break_start', 'break_end', 'clock_out']
      : !state.clockedIn
        ? ['clock_in']
        : state.onBreak
          ? ['break_end', 'clock_out']
          : ['break_start', 'clock_out'];
  const since = state?.since ? ` since ${hhmm(new Date(state.since))}` : '';
  const status =
    state === null
      ? 'Offline: choose what you are doing.'
      : state.onBreak
        ? `On a break${since}.`
        : state.clockedIn
          ? `Clocked in${since}.`
          : 'Not clocked in.';
  const buttons = types.map((type) =>
    h(
      'button',
      {
        type: 'button',
        class: type === 'clock_out' ? 'bad' : type === 'clock_in' ? 'ok' : 'primary',
        onclick: () => punch(who, type),
      },
      WORDS[type][0],
    ),
  );
  show(
    who.offline ? `Offline: ${who.name}` : `Hello, ${firstName(who)}`,
    h('p', { class: 'hint' }, status),
    h('div', { class: 'actions' }, buttons),
    h('button', { type: 'button', onclick: () => idleScreen() }, 'Cancel'),
  );
  buttons[0].focus();
  idleTimer = setTimeout(() => void idleScreen(), 20_000);
}

async function punch(who, type) {
  const now = new Date();
  const entry = {
    idempotencyKey: crypto.randomUUID(),
    employee: who.employee,
    type,
    occurredAt: localInstant(now),
    takenAt: now.getTime(),
    name: who.name,
  };
  await enqueue(entry);
  const stateKey = who.employee.externalId ? `badge:${who.employee.externalId}` : `id:${who.employee.id}`;
  const states = recall(STATES, {});
  states[stateKey] = {
    clockedIn: type !== 'clock_out',
    onBreak: type === 'break_start',
    since: now.toISOString(),
  };
  remember(STATES, states);
  const outcome = await sync(entry.idempotencyKey);
  const words = `${WORDS[type][1]} at ${hhmm(now)}, ${firstName(who)}`;
  if (outcome?.refused) result(`Not recorded: ${outcome.refused}`, 'refused');
  else if (outcome?.stored) result(words, 'done');
  else result(`${words}. Saved on this tablet, waiting to send (${await refreshStatus()}).`, 'waiting');
}

function result(text, kind) {
  show(
    kind === 'refused' ? 'Not recorded' : 'Done',
    h('p', { class: `result ${kind}`, role: 'status', id: 'result' }, text),
    h('button', { type: 'button', onclick: () => idleScreen() }, 'OK'),
  );
  main.querySelector('button').focus();
  idleTimer = setTimeout(() => void idleScreen(), RESULT_MS);
}

/* ---- start ---- */

function tick() {
  const clock = document.getElementById('clock');
  const now = new Date();
  clock.textContent = hhmm(now);
  clock.setAttribute('datetime', now.toISOString());
}

async function startIdle() {
  const device = credential();
  document.getElementById('device-name').textContent = device?.name ?? '';
  await heartbeat();
  await sync();
  await idleScreen();
}

async function start() {
  tick();
  setInterval(tick, 1000);
  if ('serviceWorker' in navigator)
    navigator.serviceWorker.register('/kiosk/sw.js', { scope: '/kiosk/' }).catch(() => {});
  window.addEventListener('online', () => void sync());
  window.addEventListener('offline', () => void refreshStatus());
  setInterval(() => void sync(), SYNC_EVERY_MS);
  setInterval(
    () =>
      void heartbeat().catch((problem) => {
        if (isRevoked(problem) && credential()) revoked();
      }),
    60_000,
  );
  await refreshStatus();
  if (!credential()) return enrolScreen();
  try {
    await startIdle();
  } catch (problem) {
    if (isRevoked(problem)) return revoked();
    await idleScreen();
  }
}

void start();
