/**
 * "Add MCP server": a program started over stdio, a Streamable HTTP URL, or a pasted (or
 * chosen) `mcpServers` JSON whose servers each become a bundle. The core starts each server
 * and lists its tools before answering; a server that fails still gets its bundle, shown
 * failed with why in the list below.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ChangeEvent, type FormEvent } from 'react';
import { callOrThrow } from '../../../api/client';
import { useApi } from '../../../api/hooks';
import { mcpClientStrings as s } from '../../../i18n/mcp-client-strings';
import { BusyButton } from '../BusyButton';
import { EMPTY_FORM, formToInput, type McpFormState } from './mcp-form';

type Mode = McpFormState['mode'] | 'json';

export function AddMcpServer({ onDone }: { onDone?: (bundleId?: string) => void }) {
  const { client } = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [mode, setMode] = useState<Mode>('json');
  const [form, setForm] = useState<McpFormState>(EMPTY_FORM);
  const [json, setJson] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [refused, setRefused] = useState<{ name: string; message: string }[]>([]);

  const set = (k: keyof McpFormState) => (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setForm((f) => ({ ...f, [k]: e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setError(null);
    setMessage(null);
    setRefused([]);
    setBusy(true);
    try {
      if (mode === 'json') {
        if (!json.trim()) throw new Error(`${s.json}: required`);
        const r = await callOrThrow(client, 'mcpServers.import', { text: json });
        setMessage(s.imported(r.added.length));
        setRefused(r.refused);
        onDone?.(r.added[0]?.bundleId);
      } else {
        const parsed = formToInput({ ...form, mode });
        if ('error' in parsed) throw new Error(parsed.error);
        const v = await callOrThrow(client, 'mcpServers.add', { server: parsed.input });
        setMessage(s.added(v.name, 0));
        setForm(EMPTY_FORM);
        onDone?.(v.bundleId);
      }
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
      void qc.invalidateQueries();
    }
  };

  const readFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (file) setJson(await file.text());
  };

  const field = (k: keyof McpFormState, label: string, help?: string, multiline = false, placeholder?: string) => (
    <div className="field">
      <label htmlFor={`${id}-${k}`}>{label}</label>
      {multiline ? (
        <textarea id={`${id}-${k}`} data-testid={`mcp-form-${k}`} rows={3} value={form[k]} onChange={set(k)} aria-describedby={help ? `${id}-${k}-help` : undefined} placeholder={placeholder} />
      ) : (
        <input id={`${id}-${k}`} data-testid={`mcp-form-${k}`} value={form[k]} onChange={set(k)} aria-describedby={help ? `${id}-${k}-help` : undefined} placeholder={placeholder} />
      )}
      {help && (
        <p id={`${id}-${k}-help`} className="muted help">
          {help}
        </p>
      )}
    </div>
  );

  return (
    <form className="mcp-add" onSubmit={(e) => void submit(e)} data-testid="mcp-add-form" aria-busy={busy}>
      <fieldset>
        <legend>{s.modeLabel}</legend>
        {(['json', 'stdio', 'http'] as const).map((m) => (
          <label key={m} className="inline-check">
            <input type="radio" name={`${id}-mode`} value={m} checked={mode === m} data-testid={`mcp-mode-${m}`} onChange={() => setMode(m)} />
            {s.modes[m]}
          </label>
        ))}
      </fieldset>
      {mode === 'json' && (
        <div className="field">
          <label htmlFor={`${id}-json`}>{s.json}</label>
          <textarea
            id={`${id}-json`}
            data-testid="mcp-json"
            rows={8}
            spellCheck={false}
            value={json}
            onChange={(e) => setJson(e.target.value)}
            aria-describedby={`${id}-json-help`}
            placeholder={'{\n  "mcpServers": {\n    "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] }\n  }\n}'}
          />
          <p id={`${id}-json-help`} className="muted help">
            {s.jsonHelp}
          </p>
          <label className="file-pick">
            {s.jsonFile} <input type="file" accept=".json,application/json" data-testid="mcp-json-file" onChange={(e) => void readFile(e)} />
          </label>
        </div>
      )}
      {mode !== 'json' && field('name', s.name)}
      {mode === 'stdio' && (
        <>
          {field('command', s.command, s.commandHelp)}
          {field('args', s.args, s.argsHelp, true)}
          {field('env', s.env, s.envHelp, true)}
          {field('cwd', s.cwd, s.cwdHelp)}
        </>
      )}
      {mode === 'http' && (
        <>
          {field('url', s.url, s.urlHelp, false, 'https://example.com/mcp')}
          {field('headers', s.headers, s.headersHelp, true, 'Authorization: Bearer ${secret:MY_TOKEN}')}
          {field('oauthClientId', s.oauthClientId, s.oauthClientIdHelp)}
          {form.oauthClientId.trim() && (
            <>
              {field('oauthClientSecret', s.oauthClientSecret, s.oauthClientSecretHelp, false, '${secret:MY_APP_CLIENT_SECRET}')}
              {field('oauthRedirectPort', s.oauthRedirectPort, s.oauthRedirectPortHelp, false, '33418')}
            </>
          )}
        </>
      )}
      <BusyButton unavailable={busy} submit data-testid="mcp-add-submit" className="primary">
        {mode === 'json' ? s.submitJson : s.submit}
      </BusyButton>
      <div aria-live="polite">
        {busy && <p className="muted">{s.adding}</p>}
        {message && (
          <p className="ok" data-testid="mcp-add-message">
            {message}
          </p>
        )}
      </div>
      {error && (
        <p className="field-error" role="alert" data-testid="mcp-add-error">
          {error}
        </p>
      )}
      {refused.length > 0 && (
        <div role="alert" data-testid="mcp-add-refused">
          <p>{s.refused}</p>
          <ul>
            {refused.map((r) => (
              <li key={r.name}>
                <strong>{r.name}</strong>: {r.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}
