import { describe, expect, it } from 'vitest';
import { ImportError, parseMcpServersJson, stripJsonComments } from './import-json';

describe('the mcpServers JSON of other apps', () => {
  it('reads Claude Desktop / Cursor entries: stdio, HTTP, disabled', () => {
    const r = parseMcpServersJson(
      JSON.stringify({
        mcpServers: {
          files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { DEBUG: '1' } },
          remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${secret:TOKEN}' } },
          windsurf: { serverUrl: 'https://example.org/mcp' },
          off: { command: 'x', disabled: true },
        },
      }),
    );
    expect(r.refused).toEqual([]);
    expect(r.servers.map((s) => [s.name, s.input.connection.transport, s.enabled])).toEqual([
      ['files', 'stdio', true],
      ['remote', 'http', true],
      ['windsurf', 'http', true],
      ['off', 'stdio', false],
    ]);
    expect(r.servers[0]!.input.connection).toEqual({ transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { DEBUG: '1' } });
    expect(r.servers[1]!.input.connection).toEqual({ transport: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${secret:TOKEN}' } });
  });

  it("reads VS Code's servers block with comments and trailing commas; strings are left alone", () => {
    const text = `{
      // VS Code's .vscode/mcp.json
      "servers": {
        "a": { "type": "stdio", "command": "node", "args": ["x.js", "// not a comment", "a,}"], },
        /* block */ "b": { "type": "http", "url": "http://127.0.0.1:3000/mcp" },
      },
    }`;
    const r = parseMcpServersJson(text);
    expect(r.refused).toEqual([]);
    expect(r.servers[0]!.input.connection).toMatchObject({ args: ['x.js', '// not a comment', 'a,}'] });
    expect(r.servers[1]!.input.connection).toMatchObject({ transport: 'http', url: 'http://127.0.0.1:3000/mcp' });
    expect(stripJsonComments('{"a": "x // y", /* z */ "b": [1,2,],}')).toBe('{"a": "x // y",  "b": [1,2]}');
  });

  it('refuses entries it cannot use, each with a reason, and keeps the others', () => {
    const r = parseMcpServersJson(
      JSON.stringify({
        mcpServers: {
          sse: { type: 'sse', url: 'https://example.com/sse' },
          prompt: { command: 'x', env: { KEY: '${input:api-key}' } },
          nothing: { args: [] },
          ftp: { url: 'ftp://example.com' },
          weird: { type: 'websocket', url: 'ws://x' },
          fine: { command: 'ok' },
        },
      }),
    );
    expect(r.servers.map((s) => s.name)).toEqual(['fine']);
    expect(Object.fromEntries(r.refused.map((x) => [x.name, x.message]))).toEqual({
      sse: expect.stringMatching(/old SSE transport/),
      prompt: expect.stringMatching(/\$\{input:…\}/),
      nothing: expect.stringMatching(/needs "command".*or "url"/),
      ftp: expect.stringMatching(/url: must be an http/),
      weird: "unknown type 'websocket': expected stdio or http",
    });
  });

  it('says what is wrong with a document that is not one', () => {
    expect(() => parseMcpServersJson('not json')).toThrow(ImportError);
    expect(() => parseMcpServersJson('[]')).toThrow(/expected a JSON object/);
    expect(() => parseMcpServersJson('{"mcpServers": {}}')).toThrow(/no servers found/);
    expect(() => parseMcpServersJson('{"mcpServers": []}')).toThrow(/must be an object of servers/);
    // A bare object of servers is read too.
    expect(parseMcpServersJson('{"a": {"command": "x"}}').servers).toHaveLength(1);
  });
});
