/**
 * The desktop app's door for `toolsmith mcp` (host-approvals.ts): the app serves no HTTP of its
 * own, so this loopback server answers one operation, `POST /rpc/mcpServer.askApproval`, which
 * shows a served tool's approval in the app's window and waits for the answer. The headless
 * host's gate applies (own Host, no other Origin, no secret in the URL, the API token); anything
 * else is 404. Announced in the data folder (running-host.ts) while it runs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTP_STATUS, fail } from '../../../shared/errors';
import type { Core } from '../../core/app';
import { hasSecretInQuery, isOwnHost, isOwnOrigin, loadOrCreateToken, sameSecret } from '../transports/http-auth';
import { readBody } from '../transports/http';
import { followApprovalsFile } from '../transports/data-file-watch';
import { announceRunningHost } from '../transports/running-host';
import { send } from '../static-files';

export const APPROVAL_PATH = '/rpc/mcpServer.askApproval';

export interface ApprovalLink {
  readonly url: string;
  close(): Promise<void>;
}

export async function startApprovalLink(core: Core): Promise<ApprovalLink> {
  const { token } = await loadOrCreateToken(core.dataDir);
  let port = 0;
  const json = (res: http.ServerResponse, status: number, body: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((e: unknown) => {
      console.error('approval request failed:', e);
      if (!res.headersSent) json(res, 500, fail('INTERNAL', 'internal error'));
      else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    if (!isOwnHost(req.headers.host, port) || !isOwnOrigin(origin, port)) return json(res, 403, fail('FORBIDDEN', 'unknown Host header or another origin'));
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (hasSecretInQuery(url)) return json(res, 401, fail('UNAUTHORIZED', 'never put the token in the URL'));
    const given = /^Bearer\s+(\S+)$/i.exec(typeof req.headers.authorization === 'string' ? req.headers.authorization : '')?.[1];
    if (!given || !sameSecret(given, token)) return json(res, 401, fail('UNAUTHORIZED', 'the API token from the data folder is required'));
    if (url.pathname !== APPROVAL_PATH || req.method !== 'POST') return json(res, 404, fail('NOT_FOUND', `this app answers only POST ${APPROVAL_PATH} here`));
    const body = await readBody(req);
    if (!body.ok) return json(res, body.status, body.error);
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const result = await core.router.callJson('mcpServer.askApproval', body.text, { transport: 'http', signal: gone.signal });
    json(res, result.ok ? 200 : HTTP_STATUS[result.error.code], result);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/`;
  const unannounce = await announceRunningHost(core.dataDir, url);
  // `toolsmith mcp` records "Always allow" answered here in approvals.json: read it again.
  const unfollow = followApprovalsFile(core);
  return {
    url,
    async close() {
      await unannounce();
      unfollow();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
