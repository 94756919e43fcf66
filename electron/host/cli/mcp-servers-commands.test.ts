/**
 * `toolsmith mcp-servers list|add|remove|import`, run in this process on a temp data folder,
 * with the real test MCP server (a child process over stdio, or over HTTP on 127.0.0.1): what
 * each prints as text and as JSON, its exit code, and what it leaves in the data folder.
 * (The command as a child process: ../cli.test.ts.)
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerView } from '../../../shared/model/mcp-client';
import { createCore } from '../../core/app';
import { startHttpTestServer, type HttpTestServer } from '../../core/mcp-client/testing/http-test-server';
import { oauthTestServer } from '../../core/mcp-client/testing/oauth-server';
import { TEST_SERVER } from '../../core/mcp-client/testing/harness';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { useCapturedOutput } from '../testing/captured-output';
import { runCliProcess } from './run-process';

const tempDir = useTempDirs();
const SLOW = 120_000;
const io = useCapturedOutput();
const servers: HttpTestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

function run(argv: string[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    runCliProcess(argv, { exit: resolve }).catch(reject);
  });
}

type Shown = McpServerView & { enabled: boolean; tools: number };

/** The servers' files in the data folder, by name. */
async function serverFiles(dir: string): Promise<Record<string, { bundleId: string; server: { name: string; connection: Record<string, unknown> } }>> {
  const folder = path.join(dir, 'mcp-servers');
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  const files = await Promise.all(names.filter((n) => n.endsWith('.json')).map(async (n) => JSON.parse(await fs.readFile(path.join(folder, n), 'utf8'))));
  return Object.fromEntries(files.map((f) => [f.server.name, f]));
}

const stdio = ['--command', process.execPath, '--arg', TEST_SERVER];

describe('toolsmith mcp-servers', () => {
  it('adds a server over stdio (started, its tools stored), lists it, refuses its name twice, and removes it by name', { timeout: SLOW }, async () => {
    const dir = await tempDir();
    const common = ['--data-dir', dir, '--resources', RESOURCES_DIR];

    expect(await run(['mcp-servers', 'add', 'files', ...stdio, '--arg', 'normal', '--env', 'MCP_TEST_VALUE=from-cli', '--json', ...common]), io.err).toBe(0);
    const added = JSON.parse(io.out) as Shown;
    expect(added).toMatchObject({ name: 'files', enabled: true, tools: 11, connection: { transport: 'stdio', command: process.execPath, args: [TEST_SERVER, 'normal'] }, status: { state: 'connected', skipped: [] } });
    // The literal value is hidden in what is printed, and kept in the server's private file.
    expect(added.connection).toMatchObject({ env: { MCP_TEST_VALUE: '••••••' } });
    const files = await serverFiles(dir);
    expect(files.files!.server.connection).toMatchObject({ env: { MCP_TEST_VALUE: 'from-cli' } });
    expect((await fs.stat(path.join(dir, 'mcp-servers', `${added.bundleId}.json`))).mode & 0o777).toBe(0o600);

    // A server with tools it cannot bring in: each is named with why.
    io.out = '';
    expect(await run(['mcp-servers', 'add', 'Odd One', ...stdio, '--arg', 'invalid', ...common]), io.err).toBe(0);
    expect(io.out).toMatch(/^Added MCP server 'Odd One' \(bundle 'Odd-One', 11 tools\): connected\.$/m);
    expect(io.out).toMatch(/^ {2}not brought in: bad_schema: inputSchema is not a valid JSON Schema/m);
    expect(io.out).toMatch(/^ {2}not brought in: bad_ref: .*\$ref that cannot be resolved/m);
    expect(io.err).toContain("Starting 'Odd One' and listing its tools…");

    io.out = '';
    expect(await run(['mcp-servers', 'list', ...common])).toBe(0);
    expect(io.out).toMatch(/^NAME\s+TRANSPORT\s+BUNDLE\s+TOOLS\s+ID\s+RUNS$/m);
    expect(io.out).toMatch(new RegExp(`^files\\s+stdio\\s+on\\s+11\\s+${added.bundleId}\\s+\\S*node \\S*test-server\\.mjs normal$`, 'm'));
    expect(io.out).toMatch(/^Odd One\s+stdio\s+on\s+11\s/m);
    io.out = '';
    expect(await run(['mcp-servers', 'list', '--json', ...common])).toBe(0);
    expect((JSON.parse(io.out) as Shown[]).map((v) => [v.name, v.tools, v.enabled])).toEqual([
      ['files', 11, true],
      ['Odd One', 11, true],
    ]);

    // The same name again (in any case) is refused, and nothing is added.
    io.out = '';
    io.err = '';
    expect(await run(['mcp-servers', 'add', 'FILES', ...stdio, ...common])).toBe(1);
    expect(io.err).toContain(`toolsmith: an MCP server named 'files' exists already (${added.bundleId}): remove it first`);
    expect(Object.keys(await serverFiles(dir)).sort()).toEqual(['Odd One', 'files']);

    // Removed by name (or id): its file, bundle and tools go.
    io.out = '';
    expect(await run(['mcp-servers', 'remove', 'files', ...common]), io.err).toBe(0);
    expect(io.out).toContain("Removed MCP server 'files': its bundle and its 11 tools are deleted");
    expect(Object.keys(await serverFiles(dir))).toEqual(['Odd One']);
    const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
    try {
      expect(core.registry.store.bundleById(added.bundleId)?.softDeletedAt).toBeDefined();
      expect(core.registry.store.toolsOf(added.bundleId)).toEqual([]);
    } finally {
      await core.close();
    }
    io.err = '';
    expect(await run(['mcp-servers', 'remove', 'files', ...common])).toBe(1);
    expect(io.err).toContain("toolsmith: no MCP server named 'files'. MCP servers: Odd One — see `toolsmith mcp-servers list`");
    io.out = '';
    expect(await run(['mcp-servers', 'remove', 'odd-one', '--json', ...common])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ removed: true, name: 'Odd One' });
    io.out = '';
    expect(await run(['mcp-servers', 'list', ...common])).toBe(0);
    expect(io.out).toMatch(/^No MCP servers\./);
  });

  it('adds a server over HTTP with a ${secret:NAME} header kept as a reference; one that does not start is added all the same, with why', { timeout: SLOW }, async () => {
    const server = await startHttpTestServer({ authorize: (req) => req.headers.authorization === 'Bearer s3cret' });
    servers.push(server);
    const dir = await tempDir();
    const common = ['--data-dir', dir, '--resources', RESOURCES_DIR];
    const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
    try {
      await core.secrets.set('REMOTE_TOKEN', 's3cret', ['127.0.0.1']);
    } finally {
      await core.close();
    }
    expect(await run(['mcp-servers', 'add', 'remote', '--url', server.url, '--header', 'Authorization: Bearer ${secret:REMOTE_TOKEN}', '--json', ...common]), io.err).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ name: 'remote', tools: 11, connection: { transport: 'http', url: server.url, headers: { Authorization: 'Bearer ${secret:REMOTE_TOKEN}' } }, status: { state: 'connected' } });
    const text = await fs.readFile(path.join(dir, 'mcp-servers', `${(JSON.parse(io.out) as Shown).bundleId}.json`), 'utf8');
    expect(text).toContain('Bearer ${secret:REMOTE_TOKEN}');
    expect(text).not.toContain('s3cret');

    io.out = '';
    io.err = '';
    expect(await run(['mcp-servers', 'add', 'gone', '--command', path.join(dir, 'no-such-program'), ...common])).toBe(0);
    expect(io.out).toMatch(/^Added MCP server 'gone' \(bundle 'gone', 0 tools\): failed\.$/m);
    expect(io.out).toMatch(/^ {2}it failed to start: the command '.*no-such-program' was not found/m);
    expect(io.err).toContain('The server is added all the same: change it in the app (Tools → MCP servers → Edit), or remove it with `toolsmith mcp-servers remove ');

    // Added switched off: not started.
    io.out = '';
    expect(await run(['mcp-servers', 'add', 'later', ...stdio, '--disabled', ...common])).toBe(0);
    expect(io.out).toContain("Added MCP server 'later' (bundle 'later', 0 tools): switched off.");
  });

  it('prints where to sign in when a server asks for an OAuth sign-in, and goes on once signed in', { timeout: SLOW }, async () => {
    const oauth = oauthTestServer();
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const dir = await tempDir();
    const running = run(['mcp-servers', 'add', 'signed', '--url', server.url, '--data-dir', dir, '--resources', RESOURCES_DIR]);
    // The person opens the page the command names; the authorization server approves at once and sends the browser back.
    let url: string | undefined;
    for (let i = 0; i < 1500 && !url; i++) {
      url = /'signed' asks you to sign in: open (\S+) in your browser/.exec(io.err)?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 20));
    }
    expect(url, io.err).toBeDefined();
    const r = await fetch(url!, { redirect: 'manual' });
    await fetch(r.headers.get('location')!);
    expect(await running, io.err).toBe(0);
    expect(io.out).toContain("Added MCP server 'signed' (bundle 'signed', 11 tools): connected.");
    expect(oauth.tokensIssued).toBe(1);
  });

  it('refuses a command line that cannot make a server with exit 2, naming the option, before opening the data folder', async () => {
    const dir = await tempDir();
    const common = ['--data-dir', path.join(dir, 'data'), '--resources', RESOURCES_DIR];
    const refused: [string[], string][] = [
      [['x'], 'say how to reach the server: --command PROGRAM'],
      [['x', '--command', 'npx', '--url', 'https://example.com/mcp'], 'not both'],
      [['x', '--command', 'npx', '--header', 'A: b'], '--header goes with --url, not --command'],
      [['x', '--url', 'https://example.com/mcp', '--arg', 'y', '--env', 'A=b'], '--arg, --env go with --command, not --url'],
      [['x', '--command', 'npx', '--env', 'NOVALUE'], "--env takes NAME=VALUE: got 'NOVALUE'"],
      [['x', '--url', 'https://example.com/mcp', '--header', 'no colon'], "--header takes 'Name: value': got 'no colon'"],
      [['x', '--url', 'ftp://example.com/mcp'], '--url: must be an http:// or https:// URL'],
      [['x', '--command', '  '], '--command: a command is required'],
      [['x', '--url', 'https://example.com/mcp', '--oauth-redirect-port', '80'], '--oauth-client-secret and --oauth-redirect-port go with --oauth-client-id'],
      [['x', '--url', 'https://example.com/mcp', '--oauth-client-id', 'app', '--oauth-redirect-port', '80'], "--oauth-redirect-port must be a whole number from 1024 to 65535: got '80'"],
      [['x', '--url', 'https://example.com/mcp', '--oauth-client-id', 'app', '--oauth-client-secret', 'plain-value'], '--oauth-client-secret: give the client secret as ${secret:NAME}'],
    ];
    for (const [args, message] of refused) {
      io.err = '';
      expect([await run(['mcp-servers', 'add', ...args, ...common]), io.err], args.join(' ')).toEqual([2, expect.stringContaining(message)]);
    }
    expect(await fs.readdir(dir)).toEqual([]);
    expect(io.out).toBe('');
  });

  it('imports an mcpServers JSON: each server added and started, the ones it cannot use refused with why (exit 1); again, the names it has are left as they are', { timeout: SLOW }, async () => {
    const server = await startHttpTestServer();
    servers.push(server);
    const dir = await tempDir();
    const common = ['--data-dir', dir, '--resources', RESOURCES_DIR];
    const file = path.join(await tempDir(), 'claude_desktop_config.json');
    await fs.writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          local: { command: process.execPath, args: [TEST_SERVER] },
          remote: { url: server.url },
          old: { command: process.execPath, args: [TEST_SERVER], disabled: true },
          legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        },
      }),
    );
    expect(await run(['mcp-servers', 'import', file, ...common])).toBe(1);
    expect(io.out).toMatch(/^Imported 3 of 4 MCP servers\.$/m);
    expect(io.out).toMatch(/^ {2}\+ 'local' \(bundle 'local', 11 tools\): connected$/m);
    expect(io.out).toMatch(/^ {2}\+ 'remote' \(bundle 'remote', 11 tools\): connected$/m);
    expect(io.out).toMatch(/^ {2}\+ 'old' \(bundle 'old', 0 tools\): switched off$/m);
    expect(io.out).toMatch(/^ {2}! 'legacy': uses the old SSE transport/m);
    expect(io.err).toContain('toolsmith: 1 of 4 servers could not be imported');
    expect(Object.keys(await serverFiles(dir)).sort()).toEqual(['local', 'old', 'remote']);

    // Again, as JSON: nothing is added twice.
    io.out = '';
    expect(await run(['mcp-servers', 'import', file, '--json', ...common])).toBe(1);
    const report = JSON.parse(io.out) as { added: Shown[]; existing: { name: string }[]; refused: { name: string; message: string }[] };
    expect(report.added).toEqual([]);
    expect(report.existing.map((x) => x.name).sort()).toEqual(['local', 'old', 'remote']);
    expect(report.refused).toEqual([{ name: 'legacy', message: expect.stringContaining('old SSE transport') }]);
    expect(Object.keys(await serverFiles(dir))).toHaveLength(3);

    // VS Code's mcp.json (comments, trailing commas), all there already: nothing new, exit 0.
    const vscode = path.join(await tempDir(), 'mcp.json');
    await fs.writeFile(vscode, `{\n  // the workspace's servers\n  "servers": {\n    "local": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(TEST_SERVER)}] },\n  },\n}\n`);
    io.out = '';
    expect(await run(['mcp-servers', 'import', vscode, ...common]), io.err).toBe(0);
    expect(io.out).toMatch(/^Nothing new: every server in it exists already and was left as it is\.$/m);

    io.err = '';
    expect(await run(['mcp-servers', 'import', path.join(dir, 'missing.json'), ...common])).toBe(1);
    expect(io.err).toMatch(/toolsmith: cannot read .*missing\.json: ENOENT/);
    await fs.writeFile(path.join(dir, 'not.json'), '{"nothing": 1}');
    io.err = '';
    expect(await run(['mcp-servers', 'import', path.join(dir, 'not.json'), ...common])).toBe(1);
    expect(io.err).toContain('cannot be read: no "mcpServers" or "servers" key');
  });
});
