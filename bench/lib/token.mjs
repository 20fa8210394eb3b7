// An access token from a running API, as a client gets one (client credentials in the form body).
import { URLSearchParams } from 'node:url';

export async function fetchToken(baseUrl, clientId, secret) {
  const response = await fetch(`${baseUrl}/api/public/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }).toString(),
  });
  if (response.status !== 200)
    throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return (await response.json()).access_token;
}
