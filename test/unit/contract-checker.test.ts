import { describe, expect, it } from 'vitest';
import { ContractChecker } from '../support/contract.js';

const document = {
  openapi: '3.1.0',
  paths: {
    '/api/public/v1/things/{id}': {
      get: {
        responses: {
          '200': {
            description: 'a thing',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'when'],
                  properties: {
                    id: { type: 'string', format: 'uuid' },
                    when: { type: 'string', format: 'date' },
                  },
                },
              },
            },
          },
          '404': {
            description: 'none',
            content: {
              'application/problem+json': {
                schema: {
                  type: 'object',
                  required: ['error'],
                  properties: { error: { enum: ['not_found'] } },
                },
              },
            },
          },
        },
      },
    },
  },
};

const id = '0190a6f0-0000-7000-8000-000000000001';

describe('ContractChecker', () => {
  const checker = new ContractChecker(document);
  const json = 'application/json; charset=utf-8';

  it('accepts a declared status with the declared media type and shape', () => {
    expect(
      checker.check(
        'GET',
        `/api/public/v1/things/${id}?x=1`,
        200,
        json,
        JSON.stringify({ id, when: '2026-01-02' }),
      ),
    ).toBeNull();
    expect(
      checker.check(
        'GET',
        `/api/public/v1/things/${id}`,
        404,
        'application/problem+json',
        '{"error":"not_found"}',
      ),
    ).toBeNull();
  });

  it('fails an undeclared status', () => {
    expect(checker.check('GET', `/api/public/v1/things/${id}`, 409, json, '{}')).toMatch(
      /status not declared/,
    );
  });

  it('fails a body that does not match the schema', () => {
    expect(
      checker.check(
        'GET',
        `/api/public/v1/things/${id}`,
        200,
        json,
        JSON.stringify({ id: 'nope', when: '2026-01-02' }),
      ),
    ).toMatch(/does not match.*format/);
    expect(checker.check('GET', `/api/public/v1/things/${id}`, 200, json, JSON.stringify({ id }))).toMatch(
      /when/,
    );
    expect(
      checker.check(
        'GET',
        `/api/public/v1/things/${id}`,
        404,
        'application/problem+json',
        '{"error":"gone"}',
      ),
    ).toMatch(/allowed values/);
    expect(checker.check('GET', `/api/public/v1/things/${id}`, 200, json, 'not json')).toMatch(/not JSON/);
  });

  it('fails an error sent as plain JSON where problem+json is declared', () => {
    expect(checker.check('GET', `/api/public/v1/things/${id}`, 404, json, '{"error":"not_found"}')).toMatch(
      /media type application\/json/,
    );
  });

  it('leaves paths and methods outside the description alone', () => {
    expect(checker.check('GET', '/healthz', 200, json, '{}')).toBeNull();
    expect(checker.check('DELETE', `/api/public/v1/things/${id}`, 500, json, '{}')).toBeNull();
    expect(checker.check('GET', `/api/public/v1/things/${id}/more`, 500, json, '{}')).toBeNull();
  });
});
