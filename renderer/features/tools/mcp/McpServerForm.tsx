/**
 * The MCP server form. Adding ("Add MCP server"): a program started over stdio, a Streamable
 * HTTP URL, or a pasted (or chosen) `mcpServers` JSON whose servers each become a bundle. The
 * core starts each server and lists its tools before answering; a server that fails still gets
 * its bundle, shown failed with why in the list below. Editing (a server's Edit): the same
 * fields filled in with its settings, Save and Cancel (Escape); the core saves them and starts
 * the server again with them. Values saved but not shown (••••••) are kept unless retyped.
 * Problems are said on the field they concern.
 *
 *   <McpServerForm onDone={(bundleId) => …} />
 *   <McpServerForm server={view} onDone={…} onCancel={…} />
 */
import { useEffect, useId, useRef, useState, type ChangeEvent, type FormEvent, type KeyboardEvent } from 'react';
import { MCP_HIDDEN_VALUE, type McpServerView } from '../../../../shared/model/mcp-client';
import { callOrThrow, ContractError } from '../../../api/client';
import { useApi } from '../../../api/hooks';
import { Field, FieldError } from '../../../components/Field';
import { mcpClientStrings as s } from '../../../i18n/mcp-client-strings';
import { BusyButton } from '../BusyButton';
import { EMPTY_FORM, formFromView, formToInput, serverFieldError, type McpFormError, type McpFormField, type McpFormState } from './mcp-form';

type Mode = McpFormState['mode'] | 'json';

export interface McpServerFormProps {
  /** The server to edit; absent: a new one is added. */
  server?: McpServerView;
  /** Added (the first server added, for an import) or saved, with its name as saved. */
  onDone?: (bundleId?: string, name?: string) => void;
  onCancel?: () => void;
}

export function McpServerForm({ server, onDone, onCancel }: McpServerFormProps) {
  const { client } = useApi();
  const id = useId();
  const editing = server !== undefined;
  const [mode, setMode] = useState<Mode>(server ? server.connection.transport : 'json');
  const [form, setForm] = useState<McpFormState>(() => (server ? formFromView(server) : EMPTY_FORM));
  const [json, setJson] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<McpFormError | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [refused, setRefused] = useState<{ name: string; message: string }[]>([]);
  const nameRef = useRef<HTMLInputElement | null>(null);

  // Editing starts in its first field.
  useEffect(() => {
    if (editing) nameRef.current?.focus();
  }, [editing]);

  const set = (k: McpFormField) => (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    setForm((f) => ({ ...f, [k]: e.target.value }));
    if (fieldError?.field === k) setFieldError(null);
  };

  /** A problem said on its field, and the focus taken there. */
  const showOnField = (problem: McpFormError) => {
    setFieldError(problem);
    requestAnimationFrame(() => document.getElementById(`${id}-${problem.field}`)?.focus());
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setError(null);
    setFieldError(null);
    setMessage(null);
    setRefused([]);
    let parsed: ReturnType<typeof formToInput> | undefined;
    if (mode !== 'json') {
      parsed = formToInput({ ...form, mode });
      if ('error' in parsed) return showOnField(parsed);
    } else if (!json.trim()) {
      setError(`${s.json}: required`);
      return;
    }
    setBusy(true);
    try {
      if (parsed && 'input' in parsed && server) {
        const v = await callOrThrow(client, 'mcpServers.update', { bundleId: server.bundleId, server: parsed.input });
        onDone?.(v.bundleId, v.name);
      } else if (parsed && 'input' in parsed) {
        const v = await callOrThrow(client, 'mcpServers.add', { server: parsed.input });
        setMessage(s.added(v.name, 0));
        setForm(EMPTY_FORM);
        onDone?.(v.bundleId);
      } else {
        const r = await callOrThrow(client, 'mcpServers.import', { text: json });
        setMessage(s.imported(r.added.length));
        setRefused(r.refused);
        onDone?.(r.added[0]?.bundleId);
      }
    } catch (err) {
      const onField = err instanceof ContractError && mode !== 'json' ? serverFieldError(err.info.details) : null;
      if (onField) showOnField(onField);
      else setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLFormElement>) => {
    if (e.key === 'Escape' && editing && !busy) {
      e.preventDefault();
      onCancel?.();
    }
  };

  const readFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (file) setJson(await file.text());
  };

  const field = (k: McpFormField, label: string, help?: string, multiline = false, placeholder?: string) => (
    <div className="field">
      <Field id={`${id}-${k}`} label={label} hint={help} error={fieldError?.field === k ? fieldError.error : undefined} errorTestId={`mcp-form-${k}-error`} announce="alert">
        {(control) =>
          multiline ? (
            <textarea {...control} data-testid={`mcp-form-${k}`} rows={3} spellCheck={false} value={form[k]} onChange={set(k)} placeholder={placeholder} />
          ) : (
            <input {...control} ref={k === 'name' ? nameRef : undefined} data-testid={`mcp-form-${k}`} spellCheck={false} value={form[k]} onChange={set(k)} placeholder={placeholder} />
          )
        }
      </Field>
    </div>
  );

  const hidden = editing && (mode === 'stdio' ? form.env : form.headers).includes(MCP_HIDDEN_VALUE);
  const modes = editing ? (['stdio', 'http'] as const) : (['json', 'stdio', 'http'] as const);
  return (
    <form
      className="mcp-add"
      onSubmit={(e) => void submit(e)}
      onKeyDown={onKeyDown}
      noValidate
      data-testid={editing ? 'mcp-edit-form' : 'mcp-add-form'}
      aria-label={server ? s.editTitle(server.name) : s.add}
      aria-busy={busy}
    >
      <fieldset>
        <legend>{s.modeLabel}</legend>
        {modes.map((m) => (
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
          {field('env', s.env, hidden ? `${s.envHelp} ${s.hiddenHelp}` : s.envHelp, true)}
          {field('cwd', s.cwd, s.cwdHelp)}
        </>
      )}
      {mode === 'http' && (
        <>
          {field('url', s.url, s.urlHelp, false, 'https://example.com/mcp')}
          {field('headers', s.headers, hidden ? `${s.headersHelp} ${s.hiddenHelp}` : s.headersHelp, true, 'Authorization: Bearer ${secret:MY_TOKEN}')}
          {field('oauthClientId', s.oauthClientId, s.oauthClientIdHelp)}
          {form.oauthClientId.trim() && (
            <>
              {field('oauthClientSecret', s.oauthClientSecret, s.oauthClientSecretHelp, false, '${secret:MY_APP_CLIENT_SECRET}')}
              {field('oauthRedirectPort', s.oauthRedirectPort, s.oauthRedirectPortHelp, false, '33418')}
            </>
          )}
        </>
      )}
      {editing ? (
        <div className="mcp-actions">
          <BusyButton unavailable={busy} submit data-testid="mcp-edit-save" className="primary">
            {s.save}
          </BusyButton>
          <button type="button" data-testid="mcp-edit-cancel" onClick={() => onCancel?.()}>
            {s.cancel}
          </button>
        </div>
      ) : (
        <BusyButton unavailable={busy} submit data-testid="mcp-add-submit" className="primary">
          {mode === 'json' ? s.submitJson : s.submit}
        </BusyButton>
      )}
      <div aria-live="polite">
        {busy && <p className="muted">{editing ? s.saving : s.adding}</p>}
        {message && (
          <p className="ok" data-testid="mcp-add-message">
            {message}
          </p>
        )}
      </div>
      {error && (
        <FieldError role="alert" data-testid={editing ? 'mcp-edit-error' : 'mcp-add-error'}>
          {error}
        </FieldError>
      )}
      {refused.length > 0 && (
        <div role="alert" data-testid="mcp-add-refused">
          <p>{s.refused}</p>
          <ul>
            {refused.map((r, i) => (
              <li key={`${i}-${r.name}`}>
                <strong>{r.name}</strong>: {r.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}
