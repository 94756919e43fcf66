/**
 * "From OpenAPI": a document (pasted or from a file) is read by the core
 * ('transfer.parseOpenApi'); the chosen operations are saved one after the other with
 * tools.put (version '1'), with a progress bar and a result per operation.
 *
 * Both steps can be cancelled (Cancel, or Esc anywhere in the panel). Reading writes
 * nothing: a cancel drops its answer. Saving stops after the tool in flight (see
 * openapi-run.ts), and the panel says how many tools were created before the cancel and
 * lists them: every tool written is one the person is shown.
 *
 * Before saving, the person fills the servers' variables (pre-filled with the document's
 * defaults) and may clear optional arguments per operation; operations the document has
 * but no tool can send (OPTIONS, ...) are listed with why. The document's public hosts are
 * added to Settings → Allowed hosts (a box, ticked); its private-network hosts are listed with
 * what they are, under a box of their own that starts unticked (see openapi-prepare.ts).
 * After the import, the secrets the new tools refer to are asked for (ImportSecrets.tsx).
 *
 * The document's text is held by the caller (ImportPanel), so it outlives this panel: making
 * a new bundle for the tools does not lose it.
 *
 *   <OpenApiImport bundleId={bundleId} text={text} onTextChange={setText} />
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useId, useMemo, useRef, useState, type ChangeEvent, type KeyboardEvent } from 'react';
import type { OpInput } from '../../../../shared/contract';
import type { OpenApiImport as OpenApiDoc, OpenApiOperation } from '../../../../shared/model/transfer';
import { callOrThrow, ContractError } from '../../../api/client';
import { useApi } from '../../../api/hooks';
import { FieldError } from '../../../components/Field';
import { importStrings as s } from '../../../i18n/import-strings';
import { BusyButton } from '../BusyButton';
import { HostsProposal, useAddAllowedHosts } from './allowed-hosts';
import { ImportSecrets } from './ImportSecrets';
import { countWarnings } from './openapi-notes';
import { secretsNeeded } from './openapi-secrets';
import { createdCount, refusedStatus, runImport, type RunOutcome, type RunProgress } from './openapi-run';
import { OpenApiOperations } from './OpenApiOperations';
import { prepareImport, proposedHosts } from './openapi-prepare';
import { PrivateHostsProposal } from './private-hosts';

export interface OpenApiImportProps {
  bundleId: string;
  /** The document's text, kept by the caller. */
  text: string;
  onTextChange: (text: string) => void;
}

type ToolBody = OpInput<'tools.put'>['body'];

/** The contract's bound on the document ('transfer.parseOpenApi'). */
const MAX_DOC_CHARS = 4 * 1024 * 1024;
const VERSION = '1';

const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function OpenApiImport({ bundleId, text, onTextChange: setText }: OpenApiImportProps) {
  const { client } = useApi();
  const qc = useQueryClient();
  const addHosts = useAddAllowedHosts();
  const id = useId();
  const [doc, setDoc] = useState<OpenApiDoc | null>(null);
  /** The text `doc` was read from: an import of a document since changed is refused. */
  const [readText, setReadText] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  /** Optional arguments cleared, by operation key. */
  const [dropped, setDropped] = useState<Map<string, Set<string>>>(new Map());
  const [variables, setVariables] = useState<Record<string, string>>({});
  const [wantHosts, setWantHosts] = useState(true);
  /** The document's private-network hosts: added only when the person ticks their box. */
  const [wantPrivate, setWantPrivate] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [parsing, setParsing] = useState(false);
  const [progress, setProgress] = useState<RunProgress | null>(null);
  const [results, setResults] = useState<RunOutcome[]>([]);
  /** The tools the last import created, as saved: the secrets they need are asked for. */
  const [createdTools, setCreatedTools] = useState<OpenApiOperation[]>([]);
  const [cancelling, setCancelling] = useState(false);
  /** Set when the last import or reading was cancelled: what to tell the person. */
  const [cancelNote, setCancelNote] = useState<string | null>(null);
  const [parseNote, setParseNote] = useState<string | null>(null);
  /** The step in flight (reading or saving); aborting it is the cancel. */
  const step = useRef<AbortController | null>(null);
  const parseRef = useRef<HTMLButtonElement>(null);
  const importRef = useRef<HTMLButtonElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);

  /** The Cancel button goes away when a step ends: the focus moves to the step's own button instead of the page. */
  const refocus = (to: HTMLButtonElement | null) => {
    if (document.activeElement === cancelRef.current || document.activeElement === document.body) to?.focus();
  };

  /** A read that fails leaves no preview of an earlier document under its error. */
  const forgetDoc = () => {
    setDoc(null);
    setReadText(null);
    setSelected(new Set());
    setResults([]);
    setCreatedTools([]);
  };

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (file.size > MAX_DOC_CHARS) {
      forgetDoc();
      setError(s.openapi.tooLarge(MAX_DOC_CHARS / (1024 * 1024)));
      return;
    }
    try {
      setText(await file.text());
      setError(null);
    } catch (err) {
      forgetDoc();
      setError(s.openapi.readFailed(errorMessage(err)));
    }
  };

  const parse = async () => {
    if (text.trim() === '') {
      forgetDoc();
      return setError(s.openapi.empty);
    }
    if (text.length > MAX_DOC_CHARS) {
      forgetDoc();
      return setError(s.openapi.tooLarge(MAX_DOC_CHARS / (1024 * 1024)));
    }
    const ctrl = new AbortController();
    step.current = ctrl;
    setParsing(true);
    setError(null);
    setParseNote(null);
    try {
      const next = await callOrThrow(client, 'transfer.parseOpenApi', { text });
      if (ctrl.signal.aborted) return;
      setDoc(next);
      setReadText(text);
      setCancelNote(null);
      setSelected(new Set(next.operations.map((o) => o.key)));
      setDropped(new Map());
      setVariables(Object.fromEntries(next.serverVariables.map((v) => [v.name, v.default ?? ''])));
      setWantHosts(true);
      setWantPrivate(false);
      setResults([]);
      setCreatedTools([]);
      setProgress(null);
    } catch (err) {
      if (!ctrl.signal.aborted) {
        forgetDoc();
        setError(errorMessage(err));
      }
    } finally {
      // A cancelled read has already given the panel back (see cancel()).
      if (step.current === ctrl) {
        step.current = null;
        refocus(parseRef.current);
        setParsing(false);
      }
    }
  };

  const cancel = () => {
    const ctrl = step.current;
    if (!ctrl || ctrl.signal.aborted) return;
    ctrl.abort();
    if (parsing) {
      // Reading writes nothing: its answer is dropped when it comes, and the panel is free now.
      step.current = null;
      refocus(parseRef.current);
      setParsing(false);
      setParseNote(s.openapi.parseCancelled);
    } else {
      // Saving stops after the tool in flight, which is awaited and listed (importSelected ends the step).
      setCancelling(true);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && step.current) {
      e.preventDefault();
      cancel();
    }
  };

  const toggle = useCallback(
    (key: string, on: boolean) =>
      setSelected((prev) => {
        const next = new Set(prev);
        if (on) next.add(key);
        else next.delete(key);
        return next;
      }),
    [],
  );

  const toggleArg = useCallback(
    (key: string, name: string, keep: boolean) =>
      setDropped((prev) => {
        const next = new Map(prev);
        const set = new Set(next.get(key));
        if (keep) set.delete(name);
        else set.add(name);
        next.set(key, set);
        return next;
      }),
    [],
  );

  const importSelected = async () => {
    if (!doc || step.current) return;
    if (text !== readText) return setError(s.openapi.stale);
    let prepared: ReturnType<typeof prepareImport>;
    try {
      prepared = prepareImport(
        doc.operations.filter((o) => selected.has(o.key)),
        doc.hostsProposal,
        dropped,
        variables,
      );
    } catch (err) {
      return setError(errorMessage(err));
    }
    const chosen = prepared.operations;
    if (chosen.length === 0) return;
    const ctrl = new AbortController();
    step.current = ctrl;
    setError(null);
    setResults([]);
    setCreatedTools([]);
    setCancelNote(null);
    setParseNote(null);
    setCancelling(false);
    setProgress({ done: 0, total: chosen.length, outcomes: [] });
    try {
      const hosts = [...(wantHosts ? prepared.hosts : []), ...(wantPrivate ? prepared.privateHosts.map((h) => h.host) : [])];
      if (hosts.length) await addHosts(hosts);
      const run = await runImport(chosen, putOne, ctrl.signal, setProgress);
      setResults(run.outcomes);
      const made = new Set(run.outcomes.filter((o) => o.status === 'created').map((o) => o.key));
      setCreatedTools(chosen.filter((op) => made.has(op.key)));
      if (run.cancelled) setCancelNote(s.openapi.cancelled(createdCount(run.outcomes), run.notStarted));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      step.current = null;
      refocus(importRef.current);
      setProgress(null);
      setCancelling(false);
      void qc.invalidateQueries({ queryKey: ['tools.list'] });
    }
  };

  const putOne = async (op: OpenApiOperation): Promise<RunOutcome> => {
    try {
      await callOrThrow(client, 'tools.put', { bundleId, slug: op.slug, version: VERSION, body: op.tool as ToolBody });
      return { key: op.key, slug: op.slug, status: 'created' };
    } catch (err) {
      const status = err instanceof ContractError ? refusedStatus(err.info.code, err.info.details) : 'error';
      return { key: op.key, slug: op.slug, status, message: errorMessage(err) };
    }
  };

  const hostsShown = useMemo(() => (doc ? proposedHosts(doc.hostsProposal, variables) : { public: [], private: [] }), [doc, variables]);
  const running = progress !== null;
  const warningCounts = useMemo(() => (doc ? countWarnings(doc.operations) : { problems: 0, notes: 0 }), [doc]);
  const needs = useMemo(() => secretsNeeded(createdTools), [createdTools]);
  const created = createdCount(results);
  /** Operations not imported because the bundle holds as many tools as Settings → Limits allow. */
  const limited = results.filter((r) => r.status === 'limit').length;

  const cancelButton = (
    <>
      <BusyButton ref={cancelRef} data-testid="openapi-cancel" aria-keyshortcuts="Escape" unavailable={cancelling} onClick={cancel}>
        {cancelling ? s.openapi.cancelling : s.openapi.cancel}
      </BusyButton>
      <span className="help">{s.openapi.cancelHint}</span>
    </>
  );

  return (
    // Esc anywhere in the panel cancels the step in flight.
    <div className="import-openapi" data-testid="openapi-import-panel" onKeyDown={onKeyDown}>
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
        <BusyButton ref={parseRef} data-testid="openapi-parse" unavailable={parsing || running} onClick={() => void parse()}>
          {parsing ? s.openapi.parsing : s.openapi.parse}
        </BusyButton>
        {parsing && cancelButton}
      </div>
      {error && (
        <FieldError role="alert" id={`${id}-error`} data-testid="openapi-error">
          {error}
        </FieldError>
      )}
      {parseNote && (
        <p className="status-ok" role="status" data-testid="openapi-parse-cancelled">
          {parseNote}
        </p>
      )}

      {doc && (
        <section className="import-proposal" aria-labelledby={`${id}-doc`} data-testid="openapi-operations">
          <h3 id={`${id}-doc`}>
            {s.openapi.heading(doc.title, doc.version)} <span className="muted">{s.openapi.operations(doc.operations.length)}</span>
          </h3>
          {warningCounts.problems + warningCounts.notes > 0 && (
            <p className="import-notes-summary" data-testid="openapi-notes-summary">
              {s.openapi.warningsSummary(warningCounts.problems, warningCounts.notes)}
            </p>
          )}
          {doc.skipped.length > 0 && (
            <details className="import-skipped" data-testid="openapi-skipped">
              <summary>{s.openapi.skippedTitle(doc.skipped.length)}</summary>
              <ul>
                {doc.skipped.map((k) => (
                  <li key={k.key}>
                    <code>{k.key}</code>: {k.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
          {doc.operations.length === 0 ? (
            <p className="muted">{s.openapi.noOperations}</p>
          ) : (
            <>
              {/* The choices and the Import button come before the list, which may be a thousand rows long. */}
              {doc.serverVariables.length > 0 && (
                <fieldset className="import-variables" data-testid="openapi-variables" disabled={running}>
                  <legend>{s.openapi.variablesTitle}</legend>
                  <p className="help">{s.openapi.variablesHelp}</p>
                  {doc.serverVariables.map((v) => (
                    <label key={v.name} className="import-variable">
                      <code>{`{${v.name}}`}</code>
                      <input
                        data-testid={`openapi-variable-${v.name}`}
                        value={variables[v.name] ?? ''}
                        list={v.enum ? `${id}-enum-${v.name}` : undefined}
                        aria-invalid={(variables[v.name] ?? '').trim() === '' ? true : undefined}
                        onChange={(e) => setVariables((prev) => ({ ...prev, [v.name]: e.target.value }))}
                      />
                      {v.enum && (
                        <datalist id={`${id}-enum-${v.name}`}>
                          {v.enum.map((x) => (
                            <option key={x} value={x} />
                          ))}
                        </datalist>
                      )}
                      {v.description && <span className="help">{v.description}</span>}
                    </label>
                  ))}
                </fieldset>
              )}
              <HostsProposal hosts={hostsShown.public} checked={wantHosts} onChange={setWantHosts} testId="openapi-add-hosts" />
              <PrivateHostsProposal hosts={hostsShown.private} checked={wantPrivate} onChange={setWantPrivate} testId="openapi-add-private-hosts" />
              <div className="form-actions">
                <button type="button" disabled={running} onClick={() => setSelected(new Set(doc.operations.map((o) => o.key)))}>
                  {s.openapi.selectAll}
                </button>
                <button type="button" disabled={running} onClick={() => setSelected(new Set())}>
                  {s.openapi.selectNone}
                </button>
                <BusyButton ref={importRef} className="primary" data-testid="openapi-import" unavailable={running || parsing || selected.size === 0} onClick={() => void importSelected()}>
                  {s.openapi.importSelected(selected.size)}
                </BusyButton>
                {progress && (
                  <>
                    <span className="import-progress" data-testid="openapi-progress" data-done={progress.done} data-total={progress.total}>
                      <progress max={progress.total} value={progress.done} aria-label={s.openapi.progressLabel} /> {s.openapi.progress(progress.done, progress.total, progress.current)}
                    </span>
                    {cancelButton}
                  </>
                )}
              </div>
              {cancelNote && (
                <p className="status-ok" role="status" data-testid="openapi-cancelled">
                  {cancelNote}
                </p>
              )}
              {results.length > 0 && (
                <section className="import-report" aria-labelledby={`${id}-results`} data-testid="openapi-result">
                  <h4 id={`${id}-results`}>{s.openapi.results}</h4>
                  {!running && !cancelNote && <p role="status">{s.openapi.summary(created, results.length)}</p>}
                  {!running && limited > 0 && (
                    <FieldError role="alert" data-testid="openapi-bundle-full">
                      {s.openapi.bundleFull(created, limited)}
                    </FieldError>
                  )}
                  <ul className="import-list">
                    {results.map((r) => (
                      <li key={r.key} data-testid={`openapi-result-${r.slug}`} data-status={r.status}>
                        <span className={r.status === 'created' ? 'badge ok' : 'badge danger'}>{s.openapi[r.status]}</span> <code>{r.slug}</code> <span className="muted">{r.key}</span>
                        {r.message && <FieldError as="div">{r.message}</FieldError>}
                      </li>
                    ))}
                  </ul>
                </section>
              )}
              {!running && <ImportSecrets needs={needs} />}
              <OpenApiOperations operations={doc.operations} selected={selected} dropped={dropped} locked={running} onToggle={toggle} onToggleArg={toggleArg} />
            </>
          )}
        </section>
      )}

    </div>
  );
}
