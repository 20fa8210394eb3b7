// Statements of the floor (bench/floor-server.mjs) that other measurements run as the floor does.

/** The per-request principal lookup: a primary-key select with the company joined (`?`: the key id). */
export const PRINCIPAL_BY_KEY_ID = `select k.company_id, k.revoked_at, k.expires_at, k.scopes, c.api_access, c.time_zone, c.time_tracking
       from api_keys k join companies c on c.id = k.company_id where k.id = ?`;
