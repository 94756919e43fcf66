/**
 * `toolsmith mcp` runs in a process of its own, with no window: a served tool that requires
 * approval is asked in the window of the app running on the same data folder (the desktop app
 * or the headless host, found through running-host.ts), over the contract
 * (`mcpServer.askApproval`, with the API token from the data folder: this is the user's own
 * process). Only when no app can be reached is the call refused for want of a window.
 *
 * It works through the queue's public side: this process counts as a window, each request that
 * waits in its queue is sent on to the app, and the app's answer settles it here; a request that
 * ends here first (the client cancelled, the time ran out) is withdrawn from the app.
 */
import http from 'node:http';
import path from 'node:path';
import type { Core } from '../../core/app';
import { API_TOKEN_FILE, readTokenFile } from '../../core/lib/token-file';
import { needsApprovalNoWindow } from '../../core/mcp-server/call';
import { McpApprovalOutcomeSchema, type McpApprovalAsk, type McpApprovalOutcome, type McpApprovalRequest } from '../../../shared/model/mcp-serve';
import { findRunningHost } from './running-host';

/** The largest answer read from the app (an outcome is a few hundred bytes). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Sends this process's approvals to the running app until the answer is called. */
export function askApprovalsInRunningHost(core: Pick<Core, 'dataDir' | 'mcpServer' | 'events'>): () => void {
  const queue = core.mcpServer.queue;
  const detach = queue.attachWindow();
  const asking = new Map<string, AbortController>();

  const forward = async (req: McpApprovalRequest, signal: AbortSignal) => {
    const outcome = await askRunningHost(core.dataDir, askOf(req), signal);
    if (signal.aborted) return;
    if ('decision' in outcome) queue.respond(req.id, outcome.decision);
    else queue.refuse(req.id, outcome.refused);
  };

  const sync = () => {
    const waiting = queue.list();
    const ids = new Set(waiting.map((r) => r.id));
    for (const [id, ac] of asking) {
      if (ids.has(id)) continue;
      asking.delete(id);
      ac.abort();
    }
    for (const req of waiting) {
      if (asking.has(req.id)) continue;
      const ac = new AbortController();
      asking.set(req.id, ac);
      void forward(req, ac.signal);
    }
  };

  const off = core.events.on('mcpServer.approvalsChanged', sync);
  return () => {
    off();
    for (const ac of asking.values()) ac.abort();
    asking.clear();
    detach();
  };
}

function askOf(req: McpApprovalRequest): McpApprovalAsk {
  const { id: _id, requestedAt: _at, ...ask } = req;
  return ask;
}

/**
 * The app's answer to one approval, or, when no app can be reached, a refusal saying no window
 * is open. Never throws; a cancelled signal withdraws the request from the app.
 */
export async function askRunningHost(dataDir: string, ask: McpApprovalAsk, signal?: AbortSignal): Promise<McpApprovalOutcome> {
  const noWindow: McpApprovalOutcome = { refused: needsApprovalNoWindow(ask.toolName) };
  const host = await findRunningHost(dataDir);
  if (!host) return noWindow;
  const token = await readTokenFile(path.join(dataDir, API_TOKEN_FILE)).catch(() => undefined);
  if (!token) return noWindow;
  try {
    const text = await post(new URL('rpc/mcpServer.askApproval', host.url), token, JSON.stringify(ask), signal);
    const body = JSON.parse(text) as { ok?: boolean; value?: unknown; error?: { message?: string } };
    if (body.ok !== true) throw new Error(body.error?.message ?? 'the app refused the request');
    return McpApprovalOutcomeSchema.parse(body.value);
  } catch (e) {
    if (signal?.aborted) return { refused: `the call to '${ask.toolName}' was cancelled while it waited for approval` };
    console.error(`Toolsmith: could not ask the app at ${host.url} to approve '${ask.toolName}': ${(e as Error).message}`);
    return noWindow;
  }
}

/** One POST to the app on 127.0.0.1, with no time limit of its own: an approval waits for a person. */
function post(url: URL, token: string, body: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { Host: url.host, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        ...(signal ? { signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error('the answer is too large'));
          else chunks.push(c);
        });
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
