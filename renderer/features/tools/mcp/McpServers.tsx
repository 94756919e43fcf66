/**
 * The MCP servers brought in as bundles: each with its status (connected, starting, failed and
 * why, stopped), the tools it could not bring in and why (or why it has none), whether its tools
 * without hints run without asking (off by default), its log (stderr, its log messages with their
 * level and logger, and lifecycle), Edit (the Add form, filled in), Restart and Remove; and "Add
 * MCP server". Statuses are pushed (mcpServers.changed), not polled; a log shown is read when it
 * opens and again every LOG_REFRESH_MS while it stays open (its new lines are not pushed).
 *
 *   <McpServers />
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import type { McpAppTrust, McpServerView } from '../../../../shared/model/mcp-client';
import { useOp, useOpMutation } from '../../../api/hooks';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { FieldError } from '../../../components/Field';
import { QueryError } from '../../../components/QueryError';
import { mcpClientStrings as s } from '../../../i18n/mcp-client-strings';
import { useUi } from '../../../stores/ui';
import { BusyButton } from '../BusyButton';
import { McpServerForm } from './McpServerForm';
import { logLineText } from './mcp-log';
import './mcp.css';

/** How often a log that is shown is read again, for the lines the server wrote since. */
const LOG_REFRESH_MS = 1_000;

export function McpServers() {
  const id = useId();
  const servers = useOp('mcpServers.list', {});
  const [adding, setAdding] = useState(false);
  const selectBundle = useUi((u) => u.selectBundle);
  return (
    <section className="mcp-servers" aria-labelledby={`${id}-title`} data-testid="mcp-servers">
      <div className="mcp-head">
        <h2 id={`${id}-title`}>{s.title}</h2>
        <button type="button" aria-expanded={adding} aria-controls={`${id}-add`} data-testid="mcp-add-open" onClick={() => setAdding((a) => !a)}>
          {adding ? s.close : s.add}
        </button>
      </div>
      <p className="muted">{s.intro}</p>
      {adding && (
        <div id={`${id}-add`}>
          <McpServerForm onDone={(bundleId) => bundleId && selectBundle(bundleId)} />
        </div>
      )}
      {servers.error && <QueryError error={servers.error} onRetry={() => void servers.refetch()} />}
      {servers.data && servers.data.length === 0 && <p className="muted">{s.none}</p>}
      <ul className="mcp-list">
        {servers.data?.map((v) => (
          <ServerRow key={v.bundleId} server={v} />
        ))}
      </ul>
    </section>
  );
}

export function McpStateBadge({ server }: { server: McpServerView }) {
  const st = server.status.state;
  return (
    <span className={st === 'failed' ? 'badge danger' : st === 'connected' ? 'badge ok' : 'badge'} data-testid={`mcp-state-${server.bundleId}`} title={server.status.reason}>
      {s.states[st]}
    </span>
  );
}

function ServerRow({ server: v }: { server: McpServerView }) {
  const id = useId();
  const qc = useQueryClient();
  const [showLog, setShowLog] = useState(false);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  /** The form closed (saved or cancelled): the focus goes back to Edit. */
  const closeEdit = (savedName?: string) => {
    setEditing(false);
    setSaved(savedName ? s.saved(savedName) : null);
    requestAnimationFrame(() => editButton.current?.focus());
  };
  const openEdit = () => {
    setSaved(null);
    setEditing(true);
  };
  const log = useOp('mcpServers.log', { bundleId: v.bundleId }, { enabled: showLog, staleTime: 0, refetchInterval: showLog ? LOG_REFRESH_MS : false });
  const restart = useOpMutation('mcpServers.restart');
  const remove = useOpMutation('mcpServers.remove');
  const trust = useOpMutation('mcpServers.setTrust');
  const appTrust = useOpMutation('mcpApps.setTrust');
  const where = v.connection.transport === 'stdio' ? [v.connection.command, ...v.connection.args].join(' ') : v.connection.url;
  const error = restart.error ?? remove.error ?? trust.error ?? appTrust.error;
  return (
    <li className="mcp-row" data-testid={`mcp-server-${v.name}`} aria-labelledby={`${id}-name`}>
      <div className="mcp-row-head">
        <strong id={`${id}-name`}>{v.name}</strong> <McpStateBadge server={v} />
        {v.status.restarts > 0 && <span className="muted"> {s.restarts(v.status.restarts)}</span>}
        <code className="mcp-where">{where}</code>
      </div>
      {v.status.reason && (
        <p className={v.status.state === 'failed' ? 'field-error' : 'muted'} data-testid="mcp-reason">
          {signInUrl(v.status.reason) ? (
            <a href={signInUrl(v.status.reason)} target="_blank" rel="noopener noreferrer" data-testid="mcp-sign-in">
              {s.signIn}
            </a>
          ) : (
            v.status.reason
          )}
        </p>
      )}
      {v.status.skipped.length > 0 && (
        <details>
          <summary>
            {s.skipped} ({v.status.skipped.length})
          </summary>
          <ul data-testid="mcp-skipped">
            {/* A name may come twice (listed twice, or refused for two reasons): each entry is its own row. */}
            {v.status.skipped.map((t, i) => (
              <li key={`${i}-${t.name}`}>
                <code>{t.name}</code>: {t.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {v.status.noTools && (
        <p className="muted" data-testid="mcp-no-tools">
          {s.noTools}: {v.status.noTools}
        </p>
      )}
      {v.status.missing.length > 0 && (
        <p className="muted">
          {s.missing}: {v.status.missing.join(', ')}
        </p>
      )}
      <div className="field mcp-trust">
        <label className="inline-check" htmlFor={`${id}-trust`}>
          <input
            id={`${id}-trust`}
            type="checkbox"
            data-testid="mcp-trust"
            checked={trust.isPending && trust.variables ? trust.variables.trustUnannotatedTools : v.trustUnannotatedTools}
            disabled={trust.isPending}
            aria-describedby={`${id}-trust-help`}
            onChange={(e) => trust.mutate({ bundleId: v.bundleId, trustUnannotatedTools: e.target.checked })}
          />
          {s.trust}
        </label>
        <p id={`${id}-trust-help`} className="help">
          {s.trustHelp}
        </p>
      </div>
      <div className="field mcp-trust">
        <label htmlFor={`${id}-apps`}>{s.apps.label}</label>{' '}
        <select
          id={`${id}-apps`}
          data-testid="mcp-apps-trust"
          value={appTrust.isPending && appTrust.variables ? appTrust.variables.apps : v.apps}
          disabled={appTrust.isPending}
          aria-describedby={`${id}-apps-help`}
          onChange={(e) => appTrust.mutate({ bundleId: v.bundleId, apps: e.target.value as McpAppTrust }, { onSettled: () => void qc.invalidateQueries({ queryKey: ['mcpServers.list'] }) })}
        >
          <option value="ask">{s.apps.ask}</option>
          <option value="always">{s.apps.always}</option>
          <option value="never">{s.apps.never}</option>
        </select>
        <p id={`${id}-apps-help`} className="help">
          {s.apps.help}
        </p>
      </div>
      <div className="mcp-actions">
        <button ref={editButton} type="button" aria-expanded={editing} aria-controls={`${id}-edit`} data-testid="mcp-edit" onClick={() => (editing ? closeEdit() : openEdit())}>
          {s.edit}
        </button>
        <button type="button" aria-expanded={showLog} aria-controls={`${id}-log`} data-testid="mcp-log-toggle" onClick={() => setShowLog((x) => !x)}>
          {showLog ? s.hideLog : s.log}
        </button>
        <BusyButton unavailable={restart.isPending} data-testid="mcp-restart" onClick={() => restart.mutate({ bundleId: v.bundleId })}>
          {s.restart}
        </BusyButton>
        <ConfirmButton pending={remove.isPending} data-testid="mcp-remove" question={s.confirmRemove(v.name)} confirmLabel={s.remove} onConfirm={() => remove.mutate({ bundleId: v.bundleId })}>
          {s.remove}
        </ConfirmButton>
      </div>
      <div aria-live="polite">
        {saved && (
          <p className="ok" data-testid="mcp-edit-saved">
            {saved}
          </p>
        )}
      </div>
      {editing && (
        <div id={`${id}-edit`}>
          <McpServerForm server={v} onDone={(_bundleId, name) => closeEdit(name ?? v.name)} onCancel={() => closeEdit()} />
        </div>
      )}
      {error && (
        <FieldError role="alert">
          {error.message}
        </FieldError>
      )}
      {showLog && (
        <pre id={`${id}-log`} className="mcp-log" data-testid="mcp-log" tabIndex={0} aria-label={`${s.log}: ${v.name}`}>
          {log.data?.length ? log.data.map(logLineText).join('\n') : s.logEmpty}
        </pre>
      )}
    </li>
  );
}

/** The sign-in page of a server waiting for an OAuth sign-in (http(s) only). */
function signInUrl(reason: string): string | undefined {
  const m = /^waiting for you to sign in: (https?:\/\/\S+)$/.exec(reason);
  return m?.[1];
}
