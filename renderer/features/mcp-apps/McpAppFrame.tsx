/**
 * One MCP App in a card: its page in a sandboxed frame (scripts and forms only: no same-origin,
 * no popups, no top navigation), loaded once from the frame origin the core gave, and the
 * extension's bridge (AppBridge without a client: every request is a handler here that goes
 * to the core as `mcpApps.*`, naming the view). The guarded transport bounds what the page
 * may send before the bridge sees it. A link or a message the page wants is confirmed in the
 * card, outside the frame.
 */
import { useEffect, useRef, useState } from 'react';
import { AppBridge, type McpUiHostCapabilities } from '@modelcontextprotocol/ext-apps/app-bridge';
import { callResultOf, type AppCallResult, type AppOpen } from '../../../shared/model/mcp-apps';
import { useApi } from '../../api/hooks';
import { mcpAppStrings as s } from '../../i18n/mcp-app-strings';
import { clampAppHeight, GuardedTransport } from './guarded-transport';
import type { AppCall } from './McpAppSlot';

const HOST_INFO = { name: 'Toolsmith', version: '1' };
/** How long a link or a message waits for the person before the app is told no. */
const CONFIRM_MS = 60_000;

type ConfirmAsk = { kind: 'link'; url: string } | { kind: 'message'; text: string };
type Confirm = ConfirmAsk & { settle: (ok: boolean) => void };
type CallToolAnswer = Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>;

export default function McpAppFrame({ app, call, conversationId, onStopped, onHide }: { app: AppOpen; call: AppCall; conversationId?: string; onStopped: (message: string) => void; onHide: () => void }) {
  const { client } = useApi();
  const frame = useRef<HTMLIFrameElement>(null);
  const bridgeRef = useRef<AppBridge | null>(null);
  const initialized = useRef(false);
  const resultSent = useRef(false);
  const [height, setHeight] = useState(160);
  const [confirm, setConfirm] = useState<Confirm | null>(null);

  useEffect(() => {
    const iframe = frame.current;
    const win = iframe?.contentWindow;
    if (!iframe || !win) return;
    let stopped = false;
    const stop = (message: string) => {
      if (stopped) return;
      stopped = true;
      onStopped(message);
    };
    const caps: McpUiHostCapabilities = {
      serverTools: {},
      logging: {},
      openLinks: {},
      ...(conversationId ? { message: { text: {} } } : {}),
      sandbox: { permissions: {}, csp: { connectDomains: app.domains.connectDomains, resourceDomains: app.domains.resourceDomains, frameDomains: app.domains.frameDomains, baseUriDomains: app.domains.baseUriDomains } },
    };
    const bridge = new AppBridge(null, HOST_INFO, caps, {
      hostContext: {
        toolInfo: { tool: app.tool as never },
        theme: document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light',
        displayMode: 'inline',
        availableDisplayModes: ['inline'],
        containerDimensions: { width: iframe.clientWidth || 600, maxHeight: 720 },
        locale: navigator.language,
        timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        platform: 'desktop',
      },
    });
    bridgeRef.current = bridge;
    const ask = (c: ConfirmAsk) =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => done(false), CONFIRM_MS);
        const done = (ok: boolean) => {
          clearTimeout(timer);
          setConfirm(null);
          resolve(ok);
        };
        setConfirm({ ...c, settle: done });
      });

    bridge.oncalltool = async (params) => {
      const r = await client.call('mcpApps.callTool', { viewId: app.viewId, name: params.name, ...(params.arguments ? { arguments: params.arguments } : {}) });
      // The core builds MCP content parts (text); the SDK's type names each kind.
      const answer: AppCallResult = r.ok ? r.value : callResultOf(r.error.message, true);
      return answer as CallToolAnswer;
    };
    bridge.onopenlink = async ({ url }) => {
      if (!/^https?:\/\//i.test(url)) return { isError: true };
      return (await ask({ kind: 'link', url })) ? {} : { isError: true };
    };
    bridge.onmessage = async ({ content }) => {
      const text = content
        .map((c) => (c.type === 'text' ? c.text : ''))
        .join('\n')
        .trim();
      if (!conversationId || !text) return { isError: true };
      if (!(await ask({ kind: 'message', text }))) return { isError: true };
      const r = await client.call('chat.send', { conversationId, text });
      return r.ok ? {} : { isError: true };
    };
    bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
    bridge.addEventListener('sizechange', ({ height: h }) => {
      const clamped = clampAppHeight(h);
      if (clamped !== undefined) setHeight(clamped);
    });
    bridge.addEventListener('loggingmessage', ({ level, data }) => void client.call('mcpApps.log', { viewId: app.viewId, level, data }));
    bridge.addEventListener('requestteardown', () => onHide());
    bridge.addEventListener('initialized', () => {
      initialized.current = true;
      void bridge.sendToolInput({ arguments: (call.args ?? {}) as Record<string, unknown> });
      sendResult();
    });

    const transport = new GuardedTransport({ target: win, source: win, onStopped: stop });
    void bridge.connect(transport).catch((e: unknown) => stop(String((e as Error)?.message ?? e)));
    // The frame's page loads once: a second load means it navigated away from it.
    let loads = 0;
    const onLoad = () => {
      if (++loads > 1) stop(s.navigated);
    };
    iframe.addEventListener('load', onLoad);
    return () => {
      iframe.removeEventListener('load', onLoad);
      bridgeRef.current = null;
      // The page is told it goes (at most a second), then its view is forgotten by the core.
      void Promise.race([bridge.teardownResource({}), new Promise((r) => setTimeout(r, 1000))])
        .catch(() => undefined)
        .finally(() => {
          void bridge.close().catch(() => undefined);
          void client.call('mcpApps.close', { viewId: app.viewId });
        });
    };
    // The frame and its bridge live as long as this view: the call's later result is sent by the effect below.
  }, [app.viewId]);

  // The call's result reaches the page once, when both the page is ready and the call has ended.
  function sendResult() {
    const bridge = bridgeRef.current;
    if (!bridge || !initialized.current || resultSent.current || !call.ended) return;
    resultSent.current = true;
    void bridge.sendToolResult((call.error !== undefined ? callResultOf(call.error, true) : callResultOf(call.value)) as CallToolAnswer);
  }
  useEffect(sendResult, [call.ended, call.value, call.error]);

  return (
    <section className={app.prefersBorder === false ? 'mcp-app' : 'mcp-app bordered'} aria-label={s.frameLabel(app.server)} data-testid="mcp-app">
      <header className="mcp-app-head">
        <span className="muted small">{s.frameLabel(app.server)}</span>
        <button type="button" className="link" onClick={onHide}>
          {s.hide}
        </button>
      </header>
      {/* Above the frame, in view: what the page asks waits for the person here. */}
      {confirm && <ConfirmBox confirm={confirm} server={app.server} />}
      <iframe
        ref={frame}
        src={app.frameUrl}
        title={s.frameTitle(app.server, app.tool.title ?? app.tool.name)}
        sandbox="allow-scripts allow-forms"
        referrerPolicy="no-referrer"
        style={{ height }}
        data-testid="mcp-app-frame"
      />
    </section>
  );
}

function ConfirmBox({ confirm, server }: { confirm: Confirm; server: string }) {
  // The focus moves to the question (out of the frame), so Tab reaches its buttons at once.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.focus();
    box.current?.scrollIntoView?.({ block: 'nearest' });
  }, [confirm]);
  if (confirm.kind === 'link')
    return (
      <div ref={box} tabIndex={-1} className="mcp-app-confirm" role="alertdialog" aria-label={s.link.title(server)} data-testid="mcp-app-link">
        <p>{s.link.title(server)}</p>
        <p>
          <code>{confirm.url}</code>
        </p>
        <div className="row">
          {/* A real link the person clicks: the browser (or the shell's window-open handler) opens it. */}
          <a className="button primary" href={confirm.url} target="_blank" rel="noopener noreferrer" onClick={() => confirm.settle(true)}>
            {s.link.open}
          </a>
          <button type="button" onClick={() => confirm.settle(false)}>
            {s.link.cancel}
          </button>
        </div>
      </div>
    );
  return (
    <div ref={box} tabIndex={-1} className="mcp-app-confirm" role="alertdialog" aria-label={s.message.title(server)} data-testid="mcp-app-message">
      <p>{s.message.title(server)}</p>
      <blockquote>{confirm.text}</blockquote>
      <div className="row">
        <button type="button" className="primary" onClick={() => confirm.settle(true)}>
          {s.message.post}
        </button>
        <button type="button" onClick={() => confirm.settle(false)}>
          {s.message.cancel}
        </button>
      </div>
    </div>
  );
}
