import { type Executor } from '../../platform/db/database.js';
/* Rows of API keys, always inside one company: a key of another company is simply not found. */

export function findKeyOfCompany(db: Executor, companyId: string, keyId: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

export function listKeysOfCompany(db: Executor, companyId: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}
