import { Type } from '@sinclair/typebox';
import { ERROR_CATALOGUE, type ErrorName } from '../../errors.js';
import { ProblemSchema } from './v1.js';

/** Response schemas for the error names an operation documents, grouped by status. */
export function errorResponses(names: ErrorName[]) {
  const byStatus = new Map<number, ErrorName[]>();
  for (const name of [...names, 'internal_error' as const]) {
    const status = ERROR_CATALOGUE[name].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), name]);
  }
  const responses: Record<number, typeof ProblemSchema> = {};
  for (const [status, list] of byStatus) {
    responses[status] = Type.Object(ProblemSchema.properties, {
      description: `Problem details; error: ${list.join(', ')}`,
    }) as unknown as typeof ProblemSchema;
  }
  return responses;
}
