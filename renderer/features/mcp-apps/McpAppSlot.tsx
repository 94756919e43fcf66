/**
 * Where a tool's card (chat, Inspect, the tester) shows the tool's MCP App, when its tool has
 * one: the person's consent for a server not trusted yet, then the app's frame above the value.
 * At most MAX_LIVE_APPS run at once in a window; past that a card offers "Show the app".
 */
import { lazy, Suspense, useEffect, useEffectEvent, useState, useSyncExternalStore } from 'react';
import type { AppOpen, AppOpenResult } from '../../../shared/model/mcp-apps';
import { useApi, useOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { mcpAppStrings as s } from '../../i18n/mcp-app-strings';
import { formatBytes } from '../outputs/format';
import './mcp-apps.css';

const McpAppFrame = lazy(() => import('./McpAppFrame'));

export const MAX_LIVE_APPS = 4;

/** The apps running in this window (a tiny store: a card subscribes to know whether it may start one). */
const live = new Set<symbol>();
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());
function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export interface AppCall {
  bundleId: string;
  slug: string;
  version: string;
  args: unknown;
  /** The call's value once it ended; undefined while it runs. */
  value?: unknown;
  ended: boolean;
  /** The call failed, was denied or cancelled: the app is told, with this text. */
  error?: string;
}

type Phase = { kind: 'idle' } | { kind: 'opening' } | { kind: 'ask'; ask: Extract<AppOpenResult, { status: 'ask' }> } | { kind: 'open'; app: AppOpen } | { kind: 'hidden' } | { kind: 'failed'; message: string };

export function McpAppSlot({ call, conversationId }: { call: AppCall; conversationId?: string }) {
  const tool = useOp('tools.get', { bundleId: call.bundleId, slug: call.slug, version: call.version }, { staleTime: 60_000 });
  const ui = tool.data?.mcp?.ui;
  if (!tool.data || !ui) return null;
  return <AppSlot toolId={tool.data.id} call={call} {...(conversationId ? { conversationId } : {})} />;
}

function AppSlot({ toolId, call, conversationId }: { toolId: string; call: AppCall; conversationId?: string }) {
  const { client } = useApi();
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const liveCount = useSyncExternalStore(subscribe, () => live.size);
  const [token] = useState(() => Symbol('app'));
  // Counted from the moment it starts opening, so cards mounted together see each other.
  const reserve = () => {
    live.add(token);
    notify();
  };
  const release = () => {
    if (live.delete(token)) notify();
  };

  const open = (consent?: 'once' | 'always') => {
    reserve();
    setPhase({ kind: 'opening' });
    void client.call('mcpApps.open', { toolId, ...(consent ? { consent } : {}) }).then((r) => {
      if (r.ok && r.value.status === 'open') return setPhase({ kind: 'open', app: r.value });
      release();
      if (!r.ok) return setPhase({ kind: 'failed', message: s.failed(r.error.message) });
      if (r.value.status === 'ask') return setPhase({ kind: 'ask', ask: r.value });
      setPhase({ kind: 'hidden' });
    });
  };

  // An app starts on its own while few run; the rest wait for the person. Only on mount: a card
  // that waited is started by its button. Its place is given back when the card goes.
  const startIfRoom = useEffectEvent(() => {
    if (live.size < MAX_LIVE_APPS) open();
  });
  useEffect(() => {
    startIfRoom();
    return () => {
      if (live.delete(token)) notify();
    };
  }, [token]);

  if (phase.kind === 'hidden') return null;
  if (phase.kind === 'idle')
    return (
      <div className="mcp-app-slot" data-testid="mcp-app-slot">
        {liveCount >= MAX_LIVE_APPS && <p className="muted small">{s.tooMany}</p>}
        <button type="button" onClick={() => open()}>
          {s.showAgain}
        </button>
      </div>
    );
  if (phase.kind === 'opening')
    return (
      <p className="muted small mcp-app-slot" role="status">
        {s.opening}
      </p>
    );
  if (phase.kind === 'failed')
    return (
      <div className="mcp-app-slot">
        <FieldError role="alert" data-testid="mcp-app-error">
          {phase.message}
        </FieldError>
        <button type="button" data-testid="mcp-app-again" onClick={() => open()}>
          {s.showAgain}
        </button>
      </div>
    );
  if (phase.kind === 'ask') {
    const { ask } = phase;
    const domains = [...new Set([...ask.domains.connectDomains, ...ask.domains.resourceDomains, ...ask.domains.frameDomains])];
    return (
      <div className="mcp-app-ask" role="group" aria-label={s.ask.title(ask.server)} data-testid="mcp-app-ask">
        <p>
          <strong>{s.ask.title(ask.server)}</strong> {s.ask.body} {s.ask.reaches(domains)} {s.ask.size(formatBytes(ask.pageBytes))}
        </p>
        {ask.refused.length > 0 && <p className="muted small">{s.ask.refused(ask.refused)}</p>}
        <div className="row">
          <button type="button" className="primary" onClick={() => open('once')}>
            {s.ask.show}
          </button>
          <button type="button" onClick={() => open('always')}>
            {s.ask.always(ask.server)}
          </button>
          <button type="button" onClick={() => setPhase({ kind: 'hidden' })}>
            {s.ask.notNow}
          </button>
        </div>
      </div>
    );
  }
  return (
    <Suspense
      fallback={
        <p className="muted small" role="status">
          {s.opening}
        </p>
      }
    >
      <McpAppFrame
        app={phase.app}
        call={call}
        {...(conversationId ? { conversationId } : {})}
        onStopped={(message) => {
          release();
          setPhase({ kind: 'failed', message });
        }}
        onHide={() => {
          release();
          setPhase({ kind: 'idle' });
        }}
      />
    </Suspense>
  );
}
