import { describe, expect, it } from 'vitest';
import { argumentsOf, dropArguments, fillVariables } from './openapi-proposal';

const tool = {
  displayName: 'Create task',
  argSchema: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, notes: { type: 'string' }, fields: { type: 'string' }, trace: { type: 'string' }, file: {} }, required: ['id', 'name'] },
  http: {
    method: 'POST',
    urlTemplate: 'https://api.example.com/tasks/${id}',
    query: { opt_fields: '${fields?}' },
    queryEncoding: { opt_fields: { style: 'form', explode: false } },
    headers: { 'X-Trace': '${trace?}' },
    body: { kind: 'json', template: { data: { name: '${name}', notes: '${notes?}', tags: ['${notes?}', 'x'] } } },
  },
};

describe('dropArguments', () => {
  it('removes optional arguments from argSchema and from every query value, header and JSON property that holds them', () => {
    const out = dropArguments(tool, ['notes', 'fields', 'trace', 'name']);
    expect(argumentsOf(out).map((a) => a.name)).toEqual(['id', 'name', 'file']);
    expect(out.http).toMatchObject({ query: {}, queryEncoding: {}, headers: {}, body: { kind: 'json', template: { data: { name: '${name}', tags: ['x'] } } } });
    // Required arguments are kept; the input is not changed.
    expect(tool.http.query).toEqual({ opt_fields: '${fields?}' });
  });

  it('removes form fields with their encoding, and multipart files', () => {
    const form = { ...tool, http: { ...tool.http, body: { kind: 'form', fields: { name: '${name}', fields: '${fields?}' }, encoding: { fields: { style: 'deepObject', explode: true } } } } };
    expect(dropArguments(form, ['fields']).http).toMatchObject({ body: { kind: 'form', fields: { name: '${name}' }, encoding: {} } });
    const multi = { ...tool, http: { ...tool.http, body: { kind: 'multipart', fields: { name: '${name}', file: '${file?}' }, files: ['file'] } } };
    expect(dropArguments(multi, ['file']).http).toMatchObject({ body: { kind: 'multipart', fields: { name: '${name}' }, files: [] } });
  });
});

describe('fillVariables', () => {
  it('fills {name} outside placeholders and leaves ${...} alone', () => {
    expect(fillVariables('https://{site}.example.com/${id}/$${x}', { site: 'acme' })).toBe('https://acme.example.com/${id}/$${x}');
  });
});
