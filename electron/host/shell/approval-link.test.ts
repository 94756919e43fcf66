/**
 * The desktop app's approval door for `toolsmith mcp`, and how the command finds it: a real
 * loopback server over a core on a temp data folder, asked as the command asks it.
 */
import { thisProcess } from '../../core/lib/process-identity';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpApprovalAsk } from '../../../shared/model/mcp-serve';
import { createCore, type Core } from '../../core/app';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { APPROVAL_PATH, startApprovalLink, type ApprovalLink } from './approval-link';
import { askRunningHost } from '../transports/host-approvals';
import { RUNNING_HOST_FILE, findRunningHost } from '../transports/running-host';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function start(): Promise<{ core: Core; link: ApprovalLink; token: string }> {
  const dataDir = await tempDir();
  const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
  closers.push(() => core.close());
  const link = await startApprovalLink(core);
  closers.push(() => link.close());
  const token = (await fs.readFile(path.join(dataDir, 'api-token'), 'utf8')).trim();
  return { core, link, token };
}

const ask: McpApprovalAsk = { toolId: 't1', toolName: 'kit/guarded', displayName: 'Guarded', args: { text: 'a' }, client: 'Claude 1.0' };

function post(port: number, p: string, headers: Record<string, string>, body = JSON.stringify(ask)): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: p, headers: { Host: `127.0.0.1:${port}`, 'Content-Type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the approval link of the desktop app', () => {
  it('is found through the data folder, shows the approval in the window and answers with the decision', async () => {
    const { core, link } = await start();
    expect(await findRunningHost(core.dataDir)).toMatchObject({ pid: process.pid, url: link.url, identity: { pid: process.pid } });
    expect((await fs.stat(path.join(core.dataDir, RUNNING_HOST_FILE))).mode & 0o777).toBe(0o600);
    const detach = core.mcpServer.queue.attachWindow();
    try {
      const answer = askRunningHost(core.dataDir, ask);
      let id = '';
      await vi.waitFor(() => {
        const waiting = core.mcpServer.queue.list();
        expect(waiting.map((r) => [r.toolName, r.client])).toEqual([['kit/guarded', 'Claude 1.0']]);
        id = waiting[0]!.id;
      });
      core.mcpServer.queue.respond(id, 'allow-session');
      expect(await answer).toEqual({ decision: 'allow-session' });

      // The command's client went away (cancelled): the request leaves the window.
      const cancel = new AbortController();
      const withdrawn = askRunningHost(core.dataDir, ask, cancel.signal);
      await vi.waitFor(() => expect(core.mcpServer.queue.list()).toHaveLength(1));
      cancel.abort();
      expect(await withdrawn).toMatchObject({ refused: expect.stringContaining('cancelled') });
      await vi.waitFor(() => expect(core.mcpServer.queue.list()).toEqual([]));
    } finally {
      detach();
    }
  });

  it('says no window is open when the app has none, and when no app runs (gone, or its process dead)', async () => {
    const { core, link } = await start();
    expect(await askRunningHost(core.dataDir, ask)).toMatchObject({ refused: expect.stringContaining('no Toolsmith window is open') });
    await link.close();
    expect(await findRunningHost(core.dataDir)).toBeNull();
    expect(await askRunningHost(core.dataDir, ask)).toMatchObject({ refused: expect.stringContaining('no Toolsmith window is open') });
    // A file left by an app that was killed.
    await fs.writeFile(path.join(core.dataDir, RUNNING_HOST_FILE), JSON.stringify({ pid: process.pid, url: link.url }));
    expect(await findRunningHost(core.dataDir, () => false)).toBeNull();
    // A pid reused by another process (it started at another time): never sent the token.
    const write = (record: object) => fs.writeFile(path.join(core.dataDir, RUNNING_HOST_FILE), JSON.stringify({ pid: process.pid, url: link.url, ...record }));
    await write({ identity: { ...thisProcess(), start: 'another start' } });
    expect(await findRunningHost(core.dataDir)).toBeNull();
    // Written before a reboot (another boot id), or by an app that did not say who it is.
    await write({ identity: { ...thisProcess(), host: 'this machine, an earlier boot' } });
    expect(await findRunningHost(core.dataDir)).toBeNull();
    await write({});
    expect(await findRunningHost(core.dataDir)).toBeNull();
    await write({ identity: thisProcess() });
    expect(await findRunningHost(core.dataDir)).toMatchObject({ pid: process.pid });
  });

  it('answers only the approval operation, only with the API token, only to its own Host and origin', async () => {
    const { core, link, token } = await start();
    const port = Number(new URL(link.url).port);
    const bearer = { Authorization: `Bearer ${token}` };
    const mcpToken = await core.call('mcpServer.token', {});
    expect(mcpToken.ok).toBe(true);
    expect(await post(port, APPROVAL_PATH, {})).toBe(401);
    expect(await post(port, APPROVAL_PATH, { Authorization: `Bearer ${mcpToken.ok ? mcpToken.value.token : ''}` })).toBe(401);
    expect(await post(port, `${APPROVAL_PATH}?token=${token}`, bearer)).toBe(401);
    expect(await post(port, APPROVAL_PATH, { ...bearer, Host: 'evil.test' })).toBe(403);
    expect(await post(port, APPROVAL_PATH, { ...bearer, Origin: 'http://evil.test' })).toBe(403);
    expect(await post(port, '/rpc/settings.set', bearer, '{"theme":"dark"}')).toBe(404);
    expect(await post(port, '/rpc/mcpServer.respond', bearer, '{"id":"x","decision":"allow-once"}')).toBe(404);
    expect(core.settings.get().theme).not.toBe('dark');
    // No window: a refusal, answered at once.
    expect(await post(port, APPROVAL_PATH, bearer)).toBe(200);
  });
});
