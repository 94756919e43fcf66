/** Settings → MCP server: whether the registry is served, which bundles, progressive discovery, and config snippets to copy. */
import { useState } from 'react';
import { MCP_TOOL_SEARCH_MAX_TOOLS, type McpServerSettings } from '../../../shared/model/mcp-serve';
import type { ToolSearchMode } from '../../../shared/model/tool-search';
import { useOp, useOpMutation, usePagedOp } from '../../api/hooks';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { Switch } from '../../components/Switch';
import { mcpServerStrings as s } from '../../i18n/mcp-server-strings';
import { CONFIG_FILES, snippet, type SnippetClient, type SnippetTransport } from './mcp-snippets';
import './mcp-server.css';

const CLIENTS: SnippetClient[] = ['claude', 'cursor', 'vscode'];
const TRANSPORTS: SnippetTransport[] = ['stdio', 'http'];
const DISCOVERY_MODES: readonly ToolSearchMode[] = ['auto', 'always', 'off'];

export function McpServerSection() {
  const settings = useOp('settings.get', {});
  const info = useOp('mcpServer.info', {});
  const bundles = usePagedOp('bundles.list', { pageSize: 100, includeDisabled: true });
  const save = useOpMutation('settings.set');
  const [draft, setDraft] = useState<McpServerSettings | null>(null);
  const saved = settings.data?.mcpServer;

  // The form starts from what is saved, once it is read.
  if (saved && draft === null) setDraft(saved);

  if (settings.error) return <QueryError error={settings.error} onRetry={() => void settings.refetch()} />;
  if (!saved || !draft) return null;
  const dirty = JSON.stringify(saved) !== JSON.stringify(draft);
  const allBundles = bundles.data?.pages.flatMap((p) => p.items).filter((b) => !b.softDeletedAt) ?? [];
  const toggle = (id: string, on: boolean) => setDraft({ ...draft, bundleIds: on ? [...draft.bundleIds, id] : draft.bundleIds.filter((b) => b !== id) });
  const discovery = (patch: Partial<McpServerSettings['toolSearch']>) => setDraft({ ...draft, toolSearch: { ...draft.toolSearch, ...patch } });
  const maxTools = draft.toolSearch.maxTools;

  return (
    <section className="settings-section mcp-server" aria-labelledby="mcp-server-title" data-testid="settings-mcp-server">
      <h2 id="mcp-server-title">{s.title}</h2>
      <p className="help">{s.help}</p>
      <div className="mcp-server-enabled">
        <Switch checked={draft.enabled} onChange={(enabled) => setDraft({ ...draft, enabled })} label={s.enabled} testId="mcp-server-enabled" />
        <span>{s.enabled}</span>
      </div>
      <fieldset className="mcp-server-bundles" disabled={!draft.enabled}>
        <legend>{s.bundles}</legend>
        <p className="help">{s.bundlesHelp}</p>
        {bundles.error && <QueryError error={bundles.error} onRetry={() => void bundles.refetch()} />}
        {bundles.data && allBundles.length === 0 && <p className="muted">{s.noBundles}</p>}
        {allBundles.map((b) => (
          <label key={b.id} className="mcp-server-bundle">
            <input type="checkbox" data-testid="mcp-server-bundle" data-bundle-slug={b.slug} checked={draft.bundleIds.includes(b.id)} onChange={(e) => toggle(b.id, e.target.checked)} />
            <span>{b.displayName}</span> <code className="muted">{b.slug}</code>
            {!b.isEnabled && <span className="muted"> {s.disabledBundle}</span>}
          </label>
        ))}
      </fieldset>
      <fieldset className="mcp-server-discovery" disabled={!draft.enabled}>
        <legend>{s.discovery}</legend>
        <p className="help">{s.discoveryHelp}</p>
        <label>
          <span>{s.discoveryMode}</span>
          <select data-testid="mcp-server-discovery-mode" value={draft.toolSearch.mode} onChange={(e) => discovery({ mode: e.target.value as ToolSearchMode })}>
            {DISCOVERY_MODES.map((m) => (
              <option key={m} value={m}>
                {s.discoveryModes[m]}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>{s.discoveryMaxTools}</span>
          <input
            type="number"
            data-testid="mcp-server-discovery-max-tools"
            min={1}
            max={MCP_TOOL_SEARCH_MAX_TOOLS}
            step={1}
            // Cleared while typing: saved as not a number, which the core refuses with why.
            value={Number.isNaN(maxTools) ? '' : maxTools}
            disabled={draft.toolSearch.mode !== 'auto'}
            onChange={(e) => discovery({ maxTools: e.target.value === '' ? NaN : Number(e.target.value) })}
          />
        </label>
      </fieldset>
      <div className="field">
        <label className="inline-check">
          <input type="checkbox" data-testid="mcp-server-ask-client" checked={draft.askClient} disabled={!draft.enabled} aria-describedby="mcp-server-ask-client-help" onChange={(e) => setDraft({ ...draft, askClient: e.target.checked })} />
          {s.askClient}
        </label>
        <p id="mcp-server-ask-client-help" className="help">
          {s.askClientHelp}
        </p>
      </div>
      <div className="form-actions">
        <button
          type="button"
          className="primary"
          disabled={!dirty || save.isPending}
          data-testid="mcp-server-save"
          onClick={() => save.mutate({ mcpServer: draft }, { onSuccess: (next) => setDraft(next.mcpServer) })}
        >
          {save.isPending ? s.saving : s.save}
        </button>
        <button type="button" disabled={!dirty} onClick={() => setDraft(saved)}>
          {s.reset}
        </button>
        {save.isSuccess && !dirty && (
          <span className="status-ok" role="status">
            {s.saved}
          </span>
        )}
      </div>
      {save.error && (
        <FieldError role="alert">
          {save.error.message}
        </FieldError>
      )}
      {info.data && <Snippets info={info.data} />}
    </section>
  );
}

function Snippets({ info }: { info: NonNullable<ReturnType<typeof useOp<'mcpServer.info'>>['data']> }) {
  const [client, setClient] = useState<SnippetClient>('claude');
  const [transport, setTransport] = useState<SnippetTransport>('stdio');
  const [copied, setCopied] = useState<'ok' | 'failed' | null>(null);
  // The MCP token opens /mcp and nothing else, so the snippet carries it (never the API token).
  const http = transport === 'http' && !!info.httpUrl;
  const token = useOp('mcpServer.token', {}, { enabled: http });
  const rotate = useOpMutation('mcpServer.rotateToken');
  const text = snippet(info, client, transport, token.data?.token);

  const copy = async () => {
    if (!text) return;
    try {
      await navigator.clipboard.writeText(text);
      setCopied('ok');
    } catch {
      setCopied('failed');
    }
  };

  return (
    <div className="mcp-snippets">
      <h3>{s.snippetsTitle}</h3>
      <p className="help">{s.snippetsHelp}</p>
      <div className="mcp-snippet-choices">
        <div role="radiogroup" aria-label={s.clientLabel}>
          {CLIENTS.map((c) => (
            <label key={c}>
              <input type="radio" name="mcp-client" checked={client === c} onChange={() => (setClient(c), setCopied(null))} data-testid={`mcp-snippet-client-${c}`} /> {s.clients[c]}
            </label>
          ))}
        </div>
        <div role="radiogroup" aria-label={s.transportLabel}>
          {TRANSPORTS.map((t) => (
            <label key={t}>
              <input type="radio" name="mcp-transport" checked={transport === t} onChange={() => (setTransport(t), setCopied(null))} data-testid={`mcp-snippet-transport-${t}`} /> {s.transports[t]}
            </label>
          ))}
        </div>
      </div>
      <p className="muted">{s.configFile(CONFIG_FILES[client])}</p>
      {text ? (
        <>
          <pre className="mcp-snippet" data-testid="mcp-snippet">
            <code>{text}</code>
          </pre>
          <div className="form-actions">
            <button type="button" onClick={() => void copy()} data-testid="mcp-snippet-copy">
              {s.copy}
            </button>
            {copied === 'ok' && (
              <span className="status-ok" role="status">
                {s.copied}
              </span>
            )}
            {copied === 'failed' && (
              <FieldError as="span" role="alert">
                {s.copyFailed}
              </FieldError>
            )}
          </div>
          {http && (
            <div className="mcp-token">
              {token.data && <p className="help">{s.tokenHelp(token.data.file)}</p>}
              {token.error && <QueryError error={token.error} onRetry={() => void token.refetch()} />}
              <ConfirmButton
                disabled={rotate.isPending}
                data-testid="mcp-token-rotate"
                question={s.rotateConfirm}
                confirmLabel={s.rotate}
                onConfirm={() =>
                  rotate.mutate(
                    {},
                    {
                      onSuccess: () => {
                        setCopied(null);
                        void token.refetch();
                      },
                    },
                  )
                }
              >
                {s.rotate}
              </ConfirmButton>
              {rotate.isSuccess && (
                <span className="status-ok" role="status">
                  {s.rotated}
                </span>
              )}
              {rotate.error && (
                <FieldError role="alert">
                  {rotate.error.message}
                </FieldError>
              )}
            </div>
          )}
        </>
      ) : (
        <p className="muted" data-testid="mcp-snippet-no-http">
          {s.noHttp}
        </p>
      )}
    </div>
  );
}
