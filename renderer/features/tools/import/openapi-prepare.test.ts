import { describe, expect, it } from 'vitest';
import type { OpenApiOperation } from '../../../../shared/model/transfer';
import { prepareImport } from './openapi-prepare';

const op: OpenApiOperation = {
  key: 'GET /issues',
  method: 'GET',
  path: '/issues',
  summary: 'List issues',
  slug: 'list-issues',
  inputs: { document: 2, arguments: 2 },
  warnings: [],
  tool: {
    argSchema: { type: 'object', properties: { project: { type: 'string' }, expand: { type: 'string' } }, required: ['project'] },
    http: { method: 'GET', urlTemplate: 'https://{your-domain}.atlassian.net/rest/api/3/issues', query: { project: '${project}', expand: '${expand?}' }, headers: {} },
  },
};

describe('prepareImport', () => {
  it('drops the optional arguments cleared and fills the server variables in URLs and hosts', () => {
    const out = prepareImport([op], ['{your-domain}.atlassian.net'], new Map([[op.key, new Set(['expand'])]]), { 'your-domain': 'acme' });
    expect(out.hosts).toEqual(['acme.atlassian.net']);
    expect(out.operations[0]!.tool).toMatchObject({
      argSchema: { properties: { project: { type: 'string' } } },
      http: { urlTemplate: 'https://acme.atlassian.net/rest/api/3/issues', query: { project: '${project}' } },
    });
    expect(Object.keys((out.operations[0]!.tool.argSchema as { properties: object }).properties)).toEqual(['project']);
  });

  it('an unfilled variable is an error naming it', () => {
    expect(() => prepareImport([op], [], new Map(), { 'your-domain': ' ' })).toThrow(/\{your-domain\}/);
  });
});
