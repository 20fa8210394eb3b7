/* global localStorage, URLSearchParams */
/*
 * The kiosk's calls (issue 35): the public API only, with the device's own credential (never a
 * company API key). The credential stays in this browser's storage; a token is fetched with it and
 * kept in memory until shortly before it expires.
 */
const API = '/api/public/v1';
const CREDENTIAL = 'punchclock-kiosk-device';

export class ApiProblem extends Error {
  constructor(status, body) {
    super(body?.detail ?? body?.error_description ?? body?.title ?? `HTTP ${status}`);
    this.status = status;
    this.body = body ?? {};
  }
}

export function credential() {
  try {
    return JSON.parse(localStorage.getItem(CREDENTIAL) ?? 'null');
  } catch {
    return null;
  }
}

export function forgetCredential() {
  localStorage.removeItem(CREDENTIAL);
  token = null;
}

let token = null;

async function readJson(response) {
  const text = await response.text();
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch {
    return {};
  }
}

export async function enrol(code) {
  const response = await fetch(`${API}/devices/enrol`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const body = await readJson(response);
  if (response.status !== 201) throw new ApiProblem(response.status, body);
  localStorage.setItem(CREDENTIAL, JSON.stringify(body));
  return body;
}

async function accessToken(now) {
  if (token && token.expiresAt - 60_000 > now) return token.value;
  const device = credential();
  if (!device) throw new ApiProblem(401, { error: 'not_enrolled', detail: 'this tablet is not enrolled' });
  const response = await fetch(`${API}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: device.clientId,
      client_secret: device.clientSecret,
    }).toString(),
  });
  const body = await readJson(response);
  if (response.status !== 200) throw new ApiProblem(response.status, body);
  token = { value: body.access_token, expiresAt: now + body.expires_in * 1000 };
  return token.value;
}

/** A call with the device's token (fetched again once on a 401); `extra` headers go along. */
export async function call(method, path, json, extra = {}) {
  for (let attempt = 0; ; attempt++) {
    const headers = { authorization: `Bearer ${await accessToken(Date.now())}`, ...extra };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${API}${path}`, {
      method,
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
    const body = await readJson(response);
    if (response.status === 401 && attempt === 0 && body.error === 'invalid_token') {
      token = null;
      continue;
    }
    if (response.status >= 400) throw new ApiProblem(response.status, body);
    return body;
  }
}
