import { describe, expect, it } from 'vitest';
import { countWarnings, isNote, sortWarnings } from './openapi-notes';

describe('the OpenAPI importer warnings, notes apart from problems', () => {
  it('takes what needs nothing from the person as a note', () => {
    for (const w of [
      'a GET request cannot have a body: the request body was left out',
      'size budget (16 KiB, 800 schema nodes): descriptions inside the arguments were shortened; descriptions and examples removed',
      'argument schemas simplified to their type to keep within the size budget: components',
      'a schema is nested too deeply: its deepest parts were replaced by {} (any value)',
      "'OAuth2Security' is OAuth2 without a client-credentials flow: set up as a bearer token you paste as the secret",
      "the header parameter 'OpenAI-Beta' is an array or object: it is sent as one string (e.g. comma-separated values)",
    ])
      expect(isNote(w), w).toBe(true);
  });

  it('keeps what the person must act on as a problem', () => {
    for (const w of [
      'basic auth: fill in auth.username',
      "security left out: 'x' (type mutualTLS); set up auth by hand",
      "the schema of argument 'input' could not be used (input is too complex): it accepts any value",
      'the document names no absolute http(s) server: the URL starts with https://example.invalid; put the API\'s host there (and add it to Allowed hosts)',
      'the multipart body has no properties: add its fields by hand',
      'OAuth2 client credentials: fill in auth.clientId, and save the client secret under the proposed name',
    ])
      expect(isNote(w), w).toBe(false);
  });

  it('sorts and counts', () => {
    const ops = [{ warnings: ['a GET request cannot have a body: the request body was left out', 'basic auth: fill in auth.username'] }, { warnings: ['basic auth: fill in auth.username'] }];
    expect(sortWarnings(ops[0]!.warnings)).toEqual({ problems: ['basic auth: fill in auth.username'], notes: ['a GET request cannot have a body: the request body was left out'] });
    expect(countWarnings(ops)).toEqual({ problems: 2, notes: 1 });
  });
});
