export {
  type CallOptions,
  createPunchclockClient,
  idempotencyKeyMiddleware,
  type PunchclockClient,
  type PunchclockClientOptions,
  type TimeEntryIterationQuery,
  type WriteOptions,
} from './client.js';
export { PunchclockError, type PunchclockErrorInit } from './errors.js';
export type { components, operations, paths } from './schema.js';
export type { FetchLike } from './transport.js';
export type * from './types.js';
