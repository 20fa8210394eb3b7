/** Where v1 of the public API lives: its one plugin is registered under this prefix. */
export const API_PREFIX = '/api/public/v1';
export const TOKEN_PATH = `${API_PREFIX}/oauth/token`;
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
export const DOCS_PATH = `${API_PREFIX}/docs`;
/** Where v1 of the admin API (the console's) lives; its own OpenAPI document is under it. */
export const ADMIN_PREFIX = '/api/admin/v1';
export const ADMIN_OPENAPI_PATH = `${ADMIN_PREFIX}/openapi.json`;
