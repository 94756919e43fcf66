/**
 * "From OpenAPI": a document (pasted or from a file) is read by the core
 * ('transfer.parseOpenApi'); the chosen operations are saved one after the other with
 * tools.put (version '1'), with a progress line and a result per operation.
 *
 *   <OpenApiImport bundleId={bundleId} />
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ChangeEvent } from 'react';
import type { OpInput } from '../../../../shared/contract';
import type { OpenApiImport as OpenApiDoc, OpenApiOperation } from '../../../../shared/model/transfer';
import { callOrThrow, ContractError } from '../../../api/client';
import { useApi } from '../../../api/hooks';
import { importStrings as s } from '../../../i18n/import-strings';
import { HostsProposal, useAddAllowedHosts } from './allowed-hosts';

export interface OpenApiImportProps {
  bundleId: string;
}

type ToolBody = OpInput<'tools.put'>['body'];
type Outcome = { key: string; slug: string; status: 'created' | 'conflict' | 'error'; message?: string };

/** The contract's bound on the document ('transfer.parseOpenApi'). */
const MAX_DOC_CHARS = 4 * 1024 * 1024;
const VERSION = '1';

const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function OpenApiImport({ bundleId }: OpenApiImportProps) {
  const { client } = useApi();
  const qc = useQueryClient();
  const addHosts = useAddAllowedHosts();
  const id = useId();
  const [text, setText] = useState('');
  const [doc, setDoc] = useState<OpenApiDoc | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [wantHosts, setWantHosts] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [parsing, setParsing] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [results, setResults] = useState<Outcome[]>([]);

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (file.size > MAX_DOC_CHARS) {
      setError(s.openapi.tooLarge(MAX_DOC_CHARS / (1024 * 1024)));
      return;
    }
    try {
      setText(await file.text());
      setError(null);
    } catch (err) {
      setError(s.openapi.readFailed(errorMessage(err)));
    }
  };

  const parse = async () => {
    if (text.trim() === '') return setError(s.openapi.empty);
    if (text.length > MAX_DOC_CHARS) return setError(s.openapi.tooLarge(MAX_DOC_CHARS / (1024 * 1024)));
    setParsing(true);
    setError(null);
    try {
      const next = await callOrThrow(client, 'transfer.parseOpenApi', { text });
      setDoc(next);
      setSelected(new Set(next.operations.map((o) => o.key)));
      setWantHosts(true);
      setResults([]);
      setProgress(null);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setParsing(false);
    }
  };

  const toggle = (key: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });

  const importSelected = async () => {
    if (!doc) return;
    const chosen = doc.operations.filter((o) => selected.has(o.key));
    if (chosen.length === 0) return;
    setError(null);
    setResults([]);
    setProgress({ done: 0, total: chosen.length });
    try {
      if (wantHosts) await addHosts(doc.hostsProposal);
    } catch (err) {
      setError(errorMessage(err));
      setProgress(null);
      return;
    }
    const out: Outcome[] = [];
    for (const [i, op] of chosen.entries()) {
      setProgress({ done: i + 1, total: chosen.length });
      out.push(await putOne(op));
      setResults([...out]);
    }
    setProgress(null);
    void qc.invalidateQueries({ queryKey: ['tools.list'] });
  };

  const putOne = async (op: OpenApiOperation): Promise<Outcome> => {
    try {
      await callOrThrow(client, 'tools.put', { bundleId, slug: op.slug, version: VERSION, body: op.tool as ToolBody });
      return { key: op.key, slug: op.slug, status: 'created' };
    } catch (err) {
      const conflict = err instanceof ContractError && err.info.code === 'CONFLICT';
      return { key: op.key, slug: op.slug, status: conflict ? 'conflict' : 'error', message: errorMessage(err) };
    }
  };

  const running = progress !== null;
  const createdCount = results.filter((r) => r.status === 'created').length;

  return (
    <div className="import-openapi" data-testid="openapi-import-panel">
      <label htmlFor={`${id}-input`}>{s.openapi.input}</label>
      <textarea
        id={`${id}-input`}
        data-testid="openapi-input"
        className="import-code"
        rows={6}
        spellCheck={false}
        autoComplete="off"
        value={text}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`}
        onChange={(e) => setText(e.target.value)}
      />
      <p className="help" id={`${id}-help`}>
        {s.openapi.help}
      </p>
      <div className="form-actions">
        <label className="import-file">
          {s.openapi.file}
          <input type="file" data-testid="openapi-file" accept=".json,.yaml,.yml,application/json,application/yaml" onChange={(e) => void onFile(e)} />
        </label>
        <button type="button" data-testid="openapi-parse" disabled={parsing || running} onClick={() => void parse()}>
          {parsing ? s.openapi.parsing : s.openapi.parse}
        </button>
      </div>
      {error && (
        <p className="field-error" role="alert" id={`${id}-error`} data-testid="openapi-error">
          {error}
        </p>
      )}

      {doc && (
        <section className="import-proposal" aria-labelledby={`${id}-doc`} data-testid="openapi-operations">
          <h3 id={`${id}-doc`}>
            {s.openapi.heading(doc.title, doc.version)} <span className="muted">{s.openapi.operations(doc.operations.length)}</span>
          </h3>
          {doc.operations.length === 0 ? (
            <p className="muted">{s.openapi.noOperations}</p>
          ) : (
            <>
              <div className="form-actions">
                <button type="button" disabled={running} onClick={() => setSelected(new Set(doc.operations.map((o) => o.key)))}>
                  {s.openapi.selectAll}
                </button>
                <button type="button" disabled={running} onClick={() => setSelected(new Set())}>
                  {s.openapi.selectNone}
                </button>
              </div>
              <ul className="import-ops">
                {doc.operations.map((op) => (
                  <li key={op.key} data-testid={`openapi-op-${op.slug}`}>
                    <label className="import-op">
                      <input
                        type="checkbox"
                        checked={selected.has(op.key)}
                        disabled={running}
                        aria-label={s.openapi.select(op.method, op.path)}
                        onChange={(e) => toggle(op.key, e.target.checked)}
                      />
                      <span className="badge">{op.method}</span>
                      <code>{op.path}</code>
                      <span className="import-op-summary">{op.summary}</span>
                      <code className="muted">{op.slug}</code>
                    </label>
                    {op.warnings.length > 0 && (
                      <ul className="import-warnings" aria-label={s.openapi.warnings}>
                        {op.warnings.map((w, i) => (
                          <li key={i}>{w}</li>
                        ))}
                      </ul>
                    )}
                  </li>
                ))}
              </ul>
              <HostsProposal hosts={doc.hostsProposal} checked={wantHosts} onChange={setWantHosts} testId="openapi-add-hosts" />
              <div className="form-actions">
                <button type="button" className="primary" data-testid="openapi-import" disabled={running || selected.size === 0} onClick={() => void importSelected()}>
                  {s.openapi.importSelected(selected.size)}
                </button>
                {progress && (
                  <span role="status" data-testid="openapi-progress">
                    <progress max={progress.total} value={progress.done - 1} /> {s.openapi.progress(progress.done, progress.total)}
                  </span>
                )}
              </div>
            </>
          )}
        </section>
      )}

      {results.length > 0 && (
        <section className="import-report" aria-labelledby={`${id}-results`} data-testid="openapi-result">
          <h3 id={`${id}-results`}>{s.openapi.results}</h3>
          {!running && <p role="status">{s.openapi.summary(createdCount, results.length)}</p>}
          <ul className="import-list">
            {results.map((r) => (
              <li key={r.key} data-testid={`openapi-result-${r.slug}`} data-status={r.status}>
                <span className={r.status === 'created' ? 'badge ok' : 'badge danger'}>{s.openapi[r.status]}</span> <code>{r.slug}</code> <span className="muted">{r.key}</span>
                {r.message && <div className="field-error">{r.message}</div>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
