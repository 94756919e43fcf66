/**
 * One MCP App in a card: its page in a sandboxed frame (scripts and forms only: no same-origin,
 * no popups, no top navigation), loaded once from the frame origin the core gave, and the
 * extension's bridge (AppBridge without a client: every request is a handler here that goes
 * to the core as `mcpApps.*`, naming the view). The guarded transport bounds what the page
 * may send before the bridge sees it. A link or a message the page wants is confirmed in the
 * card, outside the frame, one at a time.
 */
import { useEffect, useEffectEvent, useLayoutEffect, useRef, useState } from 'react';
import { AppBridge, type McpUiHostCapabilities } from '@modelcontextprotocol/ext-apps/app-bridge';
import { appMessageText, callResultOf, type AppCallResult, type AppOpen } from '../../../shared/model/mcp-apps';
import { useApi } from '../../api/hooks';
import { mcpAppStrings as s } from '../../i18n/mcp-app-strings';
import { clampAppHeight, GuardedTransport } from './guarded-transport';
import type { AppCall } from './McpAppSlot';

const HOST_INFO = { name: 'Toolsmith', version: '1' };
/** How long a link or a message waits for the person before the app is told no. */
const CONFIRM_MS = 60_000;
/** A question's buttons answer only once it has been on screen this long (a page cannot swap it under a click). */
const CONFIRM_ARM_MS = 600;
/** Log messages of one app passed on to its server's log, a second. */
const LOGS_PER_SECOND = 20;

type ConfirmAsk = { kind: 'link'; url: string } | { kind: 'message'; text: string };
type Confirm = ConfirmAsk & { id: number; settle: (ok: boolean) => void };
type CallToolAnswer = Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>;

/**
 * Views whose close waits a moment: a frame mounted again at once (React's development
 * double mount) keeps its view instead of finding it closed.
 */
const pendingClose = new Map<string, ReturnType<typeof setTimeout>>();

export default function McpAppFrame({ app, call, conversationId, onStopped, onHide }: { app: AppOpen; call: AppCall; conversationId?: string; onStopped: (message: string) => void; onHide: () => void }) {
  const { client } = useApi();
  const frame = useRef<HTMLIFrameElement>(null);
  const bridgeRef = useRef<AppBridge | null>(null);
  const initialized = useRef(false);
  const resultSent = useRef(false);
  // The latest call and handlers, read by the bridge's listeners (set up once per view): kept
  // after each commit, before the effects below read them.
  const latest = useRef({ call, onStopped, onHide, conversationId });
  useLayoutEffect(() => {
    latest.current = { call, onStopped, onHide, conversationId };
  });
  const [height, setHeight] = useState(160);
  const [confirm, setConfirm] = useState<Confirm | null>(null);

  // The call's result reaches the page once, when both the page is ready and the call has ended.
  const sendResult = useEffectEvent(() => {
    const bridge = bridgeRef.current;
    const c = latest.current.call;
    if (!bridge || !initialized.current || resultSent.current || !c.ended) return;
    resultSent.current = true;
    void bridge.sendToolResult((c.error !== undefined ? callResultOf(c.error, true) : callResultOf(c.value)) as CallToolAnswer);
  });

  // A layout effect: its cleanup runs while the frame is still in the page, so the page hears it goes.
  useLayoutEffect(() => {
    const iframe = frame.current;
    const win = iframe?.contentWindow;
    if (!iframe || !win) return;
    const waiting = pendingClose.get(app.viewId);
    if (waiting) {
      clearTimeout(waiting);
      pendingClose.delete(app.viewId);
    }
    let stopped = false;
    const stop = (message: string) => {
      if (stopped) return;
      stopped = true;
      latest.current.onStopped(message);
    };
    const inChat = latest.current.conversationId !== undefined;
    const caps: McpUiHostCapabilities = {
      serverTools: {},
      logging: {},
      openLinks: {},
      ...(inChat ? { message: { text: {} } } : {}),
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

    // One question at a time: a page that asks while one waits is told no at once.
    let asking = false;
    let nextId = 0;
    const ask = (c: ConfirmAsk) =>
      new Promise<boolean>((resolve) => {
        if (asking || stopped) return resolve(false);
        asking = true;
        const id = ++nextId;
        const done = (ok: boolean) => {
          clearTimeout(timer);
          asking = false;
          setConfirm((cur) => (cur?.id === id ? null : cur));
          resolve(ok);
        };
        const timer = setTimeout(() => done(false), CONFIRM_MS);
        setConfirm({ ...c, id, settle: done });
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
      const conversation = latest.current.conversationId;
      if (!conversation || !text) return { isError: true };
      if (!(await ask({ kind: 'message', text }))) return { isError: true };
      // Posted as the app's words, fenced: no line of it runs as a directive.
      const r = await client.call('chat.send', { conversationId: conversation, text: appMessageText(app.server, text) });
      return r.ok ? {} : { isError: true };
    };
    bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
    bridge.addEventListener('sizechange', ({ height: h }) => {
      const clamped = clampAppHeight(h);
      if (clamped !== undefined) setHeight(clamped);
    });
    let logWindow = 0;
    let logs = 0;
    bridge.addEventListener('loggingmessage', ({ level, data }) => {
      const now = Date.now();
      if (now - logWindow >= 1000) {
        logWindow = now;
        logs = 0;
      }
      if (++logs > LOGS_PER_SECOND) return;
      void client.call('mcpApps.log', { viewId: app.viewId, level, data });
    });
    bridge.addEventListener('requestteardown', () => latest.current.onHide());
    bridge.addEventListener('initialized', () => {
      initialized.current = true;
      void bridge.sendToolInput({ arguments: (latest.current.call.args ?? {}) as Record<string, unknown> });
      sendResult();
    });
    // The core closed this app (its server switched off, apps turned off, too many open).
    const offClosed = client.on('mcpApps.closed', (p) => {
      if (p.viewId === app.viewId) stop(s.closed(p.reason));
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
      stopped = true;
      offClosed();
      iframe.removeEventListener('load', onLoad);
      bridgeRef.current = null;
      initialized.current = false;
      resultSent.current = false;
      // The page is told it goes (at most a second), then its view is forgotten by the core.
      void Promise.race([bridge.teardownResource({}), new Promise((r) => setTimeout(r, 1000))])
        .catch(() => undefined)
        .finally(() => void bridge.close().catch(() => undefined));
      pendingClose.set(
        app.viewId,
        setTimeout(() => {
          pendingClose.delete(app.viewId);
          void client.call('mcpApps.close', { viewId: app.viewId });
        }, 0),
      );
    };
  }, [app, client]);

  useEffect(() => sendResult(), [call.ended, call.value, call.error]);

  return (
    <section className={app.prefersBorder === false ? 'mcp-app' : 'mcp-app bordered'} aria-label={s.frameLabel(app.server)} data-testid="mcp-app">
      <header className="mcp-app-head">
        <span className="muted small">{s.frameLabel(app.server)}</span>
        <button type="button" className="link" onClick={onHide}>
          {s.hide}
        </button>
      </header>
      {/* Above the frame, in view: what the page asks waits for the person here. */}
      {confirm && <ConfirmBox key={confirm.id} confirm={confirm} server={app.server} />}
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
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    box.current?.focus();
    box.current?.scrollIntoView?.({ block: 'nearest' });
    const t = setTimeout(() => setArmed(true), CONFIRM_ARM_MS);
    return () => clearTimeout(t);
  }, []);
  const answer = (ok: boolean) => {
    if (armed || !ok) confirm.settle(ok);
  };
  if (confirm.kind === 'link')
    return (
      <div ref={box} tabIndex={-1} className="mcp-app-confirm" role="alertdialog" aria-label={s.link.title(server)} data-testid="mcp-app-link">
        <p>{s.link.title(server)}</p>
        <p>
          <code>{confirm.url}</code>
        </p>
        <div className="row">
          {/* A real link the person clicks: the browser (or the shell's window-open handler) opens it. */}
          <a
            className="button primary"
            href={confirm.url}
            target="_blank"
            rel="noopener noreferrer"
            aria-disabled={!armed}
            onClick={(e) => {
              if (!armed) e.preventDefault();
              answer(true);
            }}
          >
            {s.link.open}
          </a>
          <button type="button" onClick={() => answer(false)}>
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
        <button type="button" className="primary" aria-disabled={!armed} onClick={() => answer(true)}>
          {s.message.post}
        </button>
        <button type="button" onClick={() => answer(false)}>
          {s.message.cancel}
        </button>
      </div>
    </div>
  );
}
