/**
 * "Paste a curl command": parseCurl + curlToTool run here (pure, nothing is run or sent) and
 * show the proposed HTTP tool; "Create tool" saves the checked secrets, adds the hosts to
 * Settings → Allowed hosts when asked, then saves the tool with tools.put and opens it in the
 * workbench (created-tool-store.ts). Its arguments default to the command's values, so the
 * tester beside it starts filled and "Run" sends the request as pasted.
 *
 *   <CurlImport bundleId={bundleId} onCreated={(tool) => select(tool)} />
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type KeyboardEvent } from 'react';
import type { OpInput } from '../../../../shared/contract';
import { curlToTool, parseCurl, type CurlToolProposal } from '../../../../shared/model/curl';
import type { ToolView } from '../../../../shared/model/tool';
import { labelViolation } from '../../../../shared/model/validation';
import { callOrThrow } from '../../../api/client';
import { useApi, useOp } from '../../../api/hooks';
import { FieldError } from '../../../components/Field';
import { importStrings as s } from '../../../i18n/import-strings';
import { BusyButton } from '../BusyButton';
import { HostsProposal, useAddAllowedHosts } from './allowed-hosts';
import { useCreatedTool } from './created-tool-store';

export interface CurlImportProps {
  bundleId: string;
  onCreated?: (tool: ToolView) => void;
}

type ToolBody = OpInput<'tools.put'>['body'];

interface ArgRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
  /** The command's value, as JSON text (cut when long); absent when the argument has none. */
  defaultText?: string;
}

const MAX_DEFAULT_SHOWN = 60;

function argsOf(p: CurlToolProposal): ArgRow[] {
  const schema = p.tool.argSchema as { properties?: Record<string, { type?: unknown; description?: unknown; default?: unknown }>; required?: unknown };
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(schema.properties ?? {}).map(([name, prop]) => {
    const text = prop.default === undefined ? undefined : JSON.stringify(prop.default);
    return {
      name,
      type: typeof prop.type === 'string' ? prop.type : '',
      required: required.has(name),
      description: typeof prop.description === 'string' ? prop.description : '',
      ...(text !== undefined ? { defaultText: text.length > MAX_DEFAULT_SHOWN ? `${text.slice(0, MAX_DEFAULT_SHOWN - 1)}…` : text } : {}),
    };
  });
}

const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function CurlImport({ bundleId, onCreated }: CurlImportProps) {
  const { client } = useApi();
  const qc = useQueryClient();
  const addHosts = useAddAllowedHosts();
  const openCreated = useCreatedTool((st) => st.open);
  const savedSecrets = useOp('secrets.list', {});
  const id = useId();
  const [text, setText] = useState('');
  const [previewedText, setPreviewedText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [proposal, setProposal] = useState<CurlToolProposal | null>(null);
  const [slug, setSlug] = useState('');
  const [version, setVersion] = useState('1');
  const [wantHosts, setWantHosts] = useState(true);
  const [wantSecrets, setWantSecrets] = useState<Record<string, boolean>>({});
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<ToolView | null>(null);

  const preview = () => {
    setCreated(null);
    if (text.trim() === '') {
      setError(s.curl.empty);
      return;
    }
    try {
      const next = curlToTool(parseCurl(text));
      setProposal(next);
      setPreviewedText(text);
      setSlug(next.suggestedSlug);
      setWantHosts(true);
      // A name already saved is not replaced unless asked: it may be bound to other hosts.
      const saved = new Set(savedSecrets.data?.map((x) => x.name) ?? []);
      setWantSecrets(Object.fromEntries(next.secretsNeeded.filter((x) => x.value !== undefined).map((x) => [x.name, !saved.has(x.name)])));
      setError(null);
    } catch (e) {
      // A refused command changes nothing: the previous preview (if any) stays.
      setError(errorMessage(e));
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      preview();
    }
  };

  const slugProblem = proposal ? labelViolation('slug', slug) : null;
  const versionProblem = proposal ? labelViolation('version', version) : null;

  const create = async () => {
    if (!proposal || slugProblem || versionProblem) return;
    if (text !== previewedText) {
      setError(s.curl.stale);
      return;
    }
    setBusy(true);
    setError(null);
    setCreated(null);
    try {
      for (const secret of proposal.secretsNeeded) {
        if (secret.value !== undefined && wantSecrets[secret.name]) {
          await callOrThrow(client, 'secrets.set', { name: secret.name, value: secret.value, hosts: secret.hosts });
        }
      }
      void qc.invalidateQueries({ queryKey: ['secrets.list'] });
      if (wantHosts) await addHosts(proposal.hostsProposal);
      const tool = await callOrThrow(client, 'tools.put', { bundleId, slug: slug.trim(), version: version.trim(), body: proposal.tool as ToolBody });
      setCreated(tool);
      void qc.invalidateQueries({ queryKey: ['tools.list'] });
      // Opened in the editor with the tester beside it, its form filled with the command's values.
      openCreated(tool, s.curl.opened(tool.slug, tool.version));
      onCreated?.(tool);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const http = proposal?.tool.http;
  const args = proposal ? argsOf(proposal) : [];

  return (
    <div className="import-curl" data-testid="curl-import">
      <label htmlFor={`${id}-input`}>{s.curl.title}</label>
      <textarea
        id={`${id}-input`}
        data-testid="curl-input"
        className="import-code"
        rows={5}
        spellCheck={false}
        autoComplete="off"
        placeholder={s.curl.placeholder}
        value={text}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <p className="help" id={`${id}-help`}>
        {s.curl.help}
      </p>
      {error && (
        <FieldError role="alert" id={`${id}-error`} data-testid="curl-error">
          {error}
        </FieldError>
      )}
      <div className="form-actions">
        <button type="button" data-testid="curl-preview" onClick={preview}>
          {s.curl.preview}
        </button>
      </div>

      {proposal && http && (
        <section className="import-proposal" aria-labelledby={`${id}-proposal`} data-testid="curl-proposal">
          <h3 id={`${id}-proposal`}>{s.curl.proposal}</h3>
          <div className="import-grid">
            <label htmlFor={`${id}-slug`}>{s.curl.slug}</label>
            <div>
              <input
                id={`${id}-slug`}
                data-testid="curl-slug"
                value={slug}
                autoComplete="off"
                spellCheck={false}
                aria-invalid={slugProblem ? true : undefined}
                aria-describedby={slugProblem ? `${id}-slug-error` : undefined}
                onChange={(e) => setSlug(e.target.value)}
              />
              {slugProblem && (
                <FieldError id={`${id}-slug-error`}>
                  {slugProblem.message}
                </FieldError>
              )}
            </div>
            <label htmlFor={`${id}-version`}>{s.curl.version}</label>
            <div>
              <input
                id={`${id}-version`}
                data-testid="curl-version"
                value={version}
                autoComplete="off"
                spellCheck={false}
                aria-invalid={versionProblem ? true : undefined}
                aria-describedby={versionProblem ? `${id}-version-error` : undefined}
                onChange={(e) => setVersion(e.target.value)}
              />
              {versionProblem && (
                <FieldError id={`${id}-version-error`}>
                  {versionProblem.message}
                </FieldError>
              )}
            </div>
            <span className="import-term">{s.curl.request}</span>
            <code className="import-request" data-testid="curl-request">
              {http.method} {http.urlTemplate}
            </code>
          </div>

          <h4>{s.curl.args}</h4>
          {args.length === 0 ? (
            <p className="muted">{s.curl.noArgs}</p>
          ) : (
            <>
              <p className="help">{s.curl.argsHelp}</p>
              <ul className="import-list" data-testid="curl-args">
                {args.map((a) => (
                  <li key={a.name}>
                    <code>{a.name}</code> {a.type && <span className="badge">{a.type}</span>} {a.required && <span className="badge">{s.curl.required}</span>}{' '}
                    {a.defaultText !== undefined && (
                      <>
                        <span data-testid={`curl-arg-default-${a.name}`}>{s.curl.defaultValue(a.defaultText)}</span>{' '}
                      </>
                    )}
                    <span className="muted">{a.description}</span>
                  </li>
                ))}
              </ul>
            </>
          )}

          {proposal.notes.length > 0 && (
            <>
              <h4>{s.curl.notes}</h4>
              <ul className="import-list import-notes" data-testid="curl-notes">
                {proposal.notes.map((n, i) => (
                  <li key={i}>{n}</li>
                ))}
              </ul>
            </>
          )}

          <h4>{s.curl.hosts}</h4>
          <HostsProposal hosts={proposal.hostsProposal} checked={wantHosts} onChange={setWantHosts} testId="curl-add-hosts" />

          {proposal.secretsNeeded.length > 0 && (
            <>
              <h4>{s.curl.secrets}</h4>
              <p className="help">{s.curl.secretsHelp}</p>
              <ul className="import-list" data-testid="curl-secrets">
                {proposal.secretsNeeded.map((x) => (
                  <li key={x.name} title={x.reason}>
                    {x.value !== undefined ? (
                      <label className="inline-check">
                        <input
                          type="checkbox"
                          data-testid={`curl-secret-${x.name}`}
                          checked={wantSecrets[x.name] ?? false}
                          onChange={(e) => setWantSecrets((prev) => ({ ...prev, [x.name]: e.target.checked }))}
                        />
                        {s.curl.saveSecret(x.name, x.hosts.join(', '))}
                        {savedSecrets.data?.some((y) => y.name === x.name) && <span className="muted"> {s.curl.replacesSecret}</span>}
                      </label>
                    ) : (
                      <span>{s.curl.secretNoValue(x.name)}</span>
                    )}{' '}
                    <span className="muted">({x.reason})</span>
                  </li>
                ))}
              </ul>
            </>
          )}

          <div className="form-actions">
            <BusyButton className="primary" data-testid="curl-create" unavailable={busy || !!slugProblem || !!versionProblem} onClick={() => void create()}>
              {busy ? s.curl.creating : s.curl.create}
            </BusyButton>
            {created && (
              <span className="status-ok" role="status" data-testid="curl-created">
                {s.curl.created(created.slug, created.version)}
              </span>
            )}
          </div>
        </section>
      )}
    </div>
  );
}
