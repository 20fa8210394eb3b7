/** Where v1 of the public API lives: its one plugin is registered under this prefix. */
export const API_PREFIX = '/api/public/v1';
export const TOKEN_PATH = `${API_PREFIX}/oauth/token`;
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
export const DOCS_PATH = `${API_PREFIX}/docs`;
