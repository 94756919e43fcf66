import { describe, expect, it } from 'vitest';
import type { OpenApiOperation } from '../../../../shared/model/transfer';
import { prepareImport, proposedHosts } from './openapi-prepare';

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

describe('the hosts the OpenAPI import adds', () => {
  const proposal = ['api.example.com', '169.254.169.254', '127.0.0.1:6379', '{box}:8080', 'localhost:3000'];

  it('splits them by the importers’ rule once the variables are filled: private-network ones apart, with what they are', () => {
    const out = prepareImport([op], proposal, new Map(), { 'your-domain': 'acme', box: '0x0a000005' });
    expect(out.hosts).toEqual(['api.example.com']);
    expect(out.privateHosts.map((h) => h.host)).toEqual(['169.254.169.254', '127.0.0.1:6379', '0x0a000005:8080', 'localhost:3000']);
    expect(out.privateHosts[0]!.why).toMatch(/link-local/);
    // A public value in the variable is a public host.
    expect(prepareImport([op], ['{box}:8080'], new Map(), { 'your-domain': 'acme', box: 'files.example.org' }).hosts).toEqual(['files.example.org:8080']);
  });

  it('shows them split as the variables are typed, an unfilled one as it is', () => {
    expect(proposedHosts(proposal, { box: '10.1.2.3' })).toEqual({
      public: ['api.example.com'],
      private: expect.arrayContaining([{ host: '10.1.2.3:8080', why: expect.stringMatching(/private-network/) }]),
    });
    expect(proposedHosts(['{box}:8080'], {}).public).toEqual(['{box}:8080']);
  });
});
