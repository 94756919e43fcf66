/**
 * The tool's saved test cases: add one from the current args with assertions chosen in a
 * small form, load its args back, delete it, run one or all (against the draft when the
 * tester has one) and show the pass/fail summary with each failing assertion's message (and
 * the expected and actual value as a diff where a value was compared).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { ERROR_CODES } from '../../../../shared/errors';
import type { Assertion, TestCase, TestRunSummary } from '../../../../shared/model/testcase';
import { useOp, useOpMutation } from '../../../api/hooks';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { FieldError } from '../../../components/Field';
import { QueryError } from '../../../components/QueryError';
import { testerStrings as s } from '../../../i18n/tester-strings';
import { BusyButton } from '../BusyButton';
import { CaseFailures } from './CaseFailures';
import { parseJsonText } from './schema-form';

export interface TestCasesProps {
  bundleId: string;
  slug: string;
  version: string;
  /** The editor's unsaved tool body: cases run against it when given. */
  draft?: unknown;
  /** The tester's current arguments, saved with a new case. */
  args: unknown;
  argsValid: boolean;
  onLoadArgs: (args: unknown) => void;
}

export function TestCases({ bundleId, slug, version, draft, args, argsValid, onLoadArgs }: TestCasesProps) {
  const ids = useId();
  const qc = useQueryClient();
  const cases = useOp('testcases.list', { bundleId, slug });
  const save = useOpMutation('testcases.save');
  const remove = useOpMutation('testcases.delete');
  const runAll = useOpMutation('testcases.runAll');
  const headingRef = useRef<HTMLHeadingElement>(null);
  const refresh = () => void qc.invalidateQueries({ queryKey: ['testcases.list'] });

  // The runs reach the invocation history with 'invocations.logged' (api/invalidation.ts).
  const run = (only?: string[]) => runAll.mutate({ bundleId, slug, version, ...(draft === undefined ? {} : { draft }), ...(only ? { ids: only } : {}) });
  const del = (tc: TestCase) => {
    remove.mutate(
      { bundleId, slug, id: tc.id },
      {
        onSettled: () => {
          refresh();
          // The row and its button are gone: keep the focus in the section.
          headingRef.current?.focus();
        },
      },
    );
  };

  const list = cases.data ?? [];
  const lastResults = new Map((runAll.data?.results ?? []).map((r) => [r.testCaseId, r.passed]));
  const actionError = remove.error ?? runAll.error;

  return (
    <section className="test-cases" aria-labelledby={`${ids}-title`}>
      <div className="section-head">
        <h3 id={`${ids}-title`} ref={headingRef} tabIndex={-1}>
          {s.cases.title}
        </h3>
        <BusyButton className="primary" data-testid="testcase-run-all" unavailable={list.length === 0 || runAll.isPending} onClick={() => run()}>
          {runAll.isPending ? s.cases.runningAll : s.cases.runAll}
        </BusyButton>
      </div>
      {cases.error && <QueryError error={cases.error} onRetry={() => void cases.refetch()} />}
      {cases.data && list.length === 0 && <p className="muted">{s.cases.empty}</p>}
      <ul className="case-list" data-testid="testcase-list">
        {list.map((tc) => {
          const last = lastResults.get(tc.id);
          return (
            <li key={tc.id} className="case-row" data-testid="testcase-row" data-testcase-id={tc.id}>
              <div className="case-main">
                <strong>{tc.name}</strong>
                {last !== undefined && <span className={last ? 'badge ok' : 'badge danger'}>{last ? s.cases.passed : s.cases.failed}</span>}
                <span className="case-assertions">
                  {(tc.assertions.length ? tc.assertions : [{ kind: 'ok' } as Assertion]).map((a, i) => (
                    <span key={i} className="tag">
                      {describeAssertion(a)}
                    </span>
                  ))}
                </span>
              </div>
              <button type="button" aria-label={s.cases.loadLabel(tc.name)} onClick={() => onLoadArgs(structuredClone(tc.args))}>
                {s.cases.load}
              </button>
              <BusyButton aria-label={s.cases.runOneLabel(tc.name)} unavailable={runAll.isPending} onClick={() => run([tc.id])}>
                {s.cases.runOne}
              </BusyButton>
              <ConfirmButton
                aria-label={s.cases.deleteLabel(tc.name)}
                data-testid="testcase-delete"
                pending={remove.isPending}
                question={s.cases.confirmDelete(tc.name)}
                confirmLabel={s.cases.delete}
                onConfirm={() => del(tc)}
              >
                {s.cases.delete}
              </ConfirmButton>
            </li>
          );
        })}
      </ul>
      {actionError && (
        <FieldError role="alert" data-testid="testcase-error">
          {actionError.message}
        </FieldError>
      )}
      {runAll.data && <Summary summary={runAll.data} />}
      <AddCaseForm
        onSave={(testCase, done) =>
          save.mutate(
            { bundleId, slug, testCase },
            {
              onSuccess: (saved) => {
                done(saved.name);
                refresh();
              },
            },
          )
        }
        args={args}
        argsValid={argsValid}
        saving={save.isPending}
        error={save.error?.message}
      />
    </section>
  );
}

export function describeAssertion(a: Assertion): string {
  switch (a.kind) {
    case 'ok':
      return s.cases.describe.ok;
    case 'error':
      return s.cases.describe.error(a.code);
    case 'matchesOutputSchema':
      return s.cases.describe.matchesOutputSchema;
    case 'contains':
      return s.cases.describe.contains(a.text.length > 40 ? `${a.text.slice(0, 40)}…` : a.text);
    case 'jsonPathEquals': {
      const v = JSON.stringify(a.value) ?? '';
      return s.cases.describe.jsonPathEquals(a.path, v.length > 40 ? `${v.slice(0, 40)}…` : v);
    }
    case 'latencyUnder':
      return s.cases.describe.latencyUnder(a.ms);
  }
}

function Summary({ summary }: { summary: TestRunSummary }) {
  return (
    <div className={summary.failed ? 'case-summary failed' : 'case-summary passed'} data-testid="testcase-summary" role="status">
      <p>
        <strong>{s.cases.summary(summary.passed, summary.failed)}</strong>
      </p>
      <ul>
        {summary.results.map((r) => (
          <li key={r.testCaseId} data-testid="testcase-result" data-passed={r.passed}>
            <span aria-hidden="true">{r.passed ? '✓ ' : '✗ '}</span>
            <span className="visually-hidden">{r.passed ? s.cases.passed : s.cases.failed}: </span>
            {r.name} <span className="muted">({Math.round(r.durationMs)} ms)</span>
            {!r.passed && <CaseFailures assertions={r.assertions} />}
          </li>
        ))}
      </ul>
    </div>
  );
}

type Expectation = 'ok' | 'error' | 'none';
type NewCase = { name: string; args: unknown; assertions: Assertion[] };

function AddCaseForm({
  onSave,
  args,
  argsValid,
  saving,
  error,
}: {
  onSave: (testCase: NewCase, done: (name: string) => void) => void;
  args: unknown;
  argsValid: boolean;
  saving: boolean;
  error?: string;
}) {
  const id = useId();
  const [name, setName] = useState('');
  const [expectation, setExpectation] = useState<Expectation>('ok');
  const [code, setCode] = useState('');
  const [matchesSchema, setMatchesSchema] = useState(false);
  const [contains, setContains] = useState('');
  const [jsonPath, setJsonPath] = useState('');
  const [jsonValue, setJsonValue] = useState('');
  const [latency, setLatency] = useState('');
  const [savedName, setSavedName] = useState<string | null>(null);

  const parsedValue = jsonPath.trim() ? parseJsonText(jsonValue, 'error') : null;
  const valueError = parsedValue && !parsedValue.ok ? s.cases.jsonPathValueInvalid(parsedValue.message === 'empty' ? s.args.emptyJson : parsedValue.message) : null;
  const latencyMs = latency.trim() === '' ? undefined : Number(latency);
  const latencyError = latencyMs !== undefined && !(Number.isInteger(latencyMs) && latencyMs >= 1) ? s.args.notANumber(latency) : null;
  const canSave = name.trim() !== '' && argsValid && !valueError && !latencyError && !saving;

  const assertions = (): Assertion[] => {
    const list: Assertion[] = [];
    if (expectation === 'ok') list.push({ kind: 'ok' });
    if (expectation === 'error') list.push(code ? { kind: 'error', code } : { kind: 'error' });
    if (matchesSchema) list.push({ kind: 'matchesOutputSchema' });
    if (contains) list.push({ kind: 'contains', text: contains });
    if (parsedValue?.ok) list.push({ kind: 'jsonPathEquals', path: jsonPath.trim(), value: parsedValue.value });
    if (latencyMs !== undefined) list.push({ kind: 'latencyUnder', ms: latencyMs });
    return list;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!canSave) return;
    setSavedName(null);
    onSave({ name: name.trim(), args: args ?? {}, assertions: assertions() }, (saved) => {
      // The next case starts afresh: the current arguments, no checks but "succeeds".
      setSavedName(saved);
      setName('');
      setExpectation('ok');
      setCode('');
      setMatchesSchema(false);
      setContains('');
      setJsonPath('');
      setJsonValue('');
      setLatency('');
    });
  };

  return (
    <form className="case-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>{s.cases.addTitle}</h4>
      <label htmlFor={`${id}-name`}>{s.cases.name}</label>
      <input id={`${id}-name`} data-testid="testcase-name" value={name} autoComplete="off" maxLength={200} onChange={(e) => setName(e.target.value)} />

      <fieldset className="case-expect">
        <legend>{s.cases.expect}</legend>
        {(['ok', 'error', 'none'] as const).map((x) => (
          <label key={x} className="inline-check">
            <input type="radio" name={`${id}-expect`} data-testid={`testcase-expect-${x}`} checked={expectation === x} onChange={() => setExpectation(x)} />
            {x === 'ok' ? s.cases.expectOk : x === 'error' ? s.cases.expectError : s.cases.expectNothing}
          </label>
        ))}
        {expectation === 'error' && (
          <>
            <label htmlFor={`${id}-code`}>{s.cases.errorCode}</label>
            <select id={`${id}-code`} data-testid="testcase-error-code" value={code} onChange={(e) => setCode(e.target.value)}>
              <option value="">{s.cases.anyCode}</option>
              {ERROR_CODES.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </>
        )}
      </fieldset>

      <label className="inline-check">
        <input type="checkbox" data-testid="testcase-matches-schema" checked={matchesSchema} onChange={(e) => setMatchesSchema(e.target.checked)} />
        {s.cases.matchesSchema}
      </label>

      <label htmlFor={`${id}-contains`}>{s.cases.contains}</label>
      <input id={`${id}-contains`} data-testid="testcase-contains" value={contains} maxLength={10_000} onChange={(e) => setContains(e.target.value)} />

      <div className="case-jsonpath">
        <div>
          <label htmlFor={`${id}-path`}>{s.cases.jsonPath}</label>
          <input id={`${id}-path`} data-testid="testcase-jsonpath" value={jsonPath} placeholder={s.cases.jsonPathPlaceholder} maxLength={1000} onChange={(e) => setJsonPath(e.target.value)} />
        </div>
        <div>
          <label htmlFor={`${id}-value`}>{s.cases.jsonPathValue}</label>
          <input
            id={`${id}-value`}
            data-testid="testcase-jsonpath-value"
            value={jsonValue}
            aria-invalid={valueError !== null}
            aria-describedby={valueError ? `${id}-value-error` : undefined}
            onChange={(e) => setJsonValue(e.target.value)}
          />
        </div>
      </div>
      {valueError && (
        <FieldError role="alert" id={`${id}-value-error`}>
          {valueError}
        </FieldError>
      )}

      <label htmlFor={`${id}-latency`}>{s.cases.latency}</label>
      <input
        id={`${id}-latency`}
        data-testid="testcase-latency"
        inputMode="numeric"
        value={latency}
        aria-invalid={latencyError !== null}
        aria-describedby={latencyError ? `${id}-latency-error` : undefined}
        onChange={(e) => setLatency(e.target.value)}
      />
      {latencyError && (
        <FieldError role="alert" id={`${id}-latency-error`}>
          {latencyError}
        </FieldError>
      )}

      <div className="form-actions">
        <BusyButton submit data-testid="testcase-add" unavailable={!canSave} aria-describedby={!argsValid ? `${id}-args-invalid` : undefined}>
          {s.cases.add}
        </BusyButton>
        {!argsValid && (
          <span className="muted" id={`${id}-args-invalid`}>
            {s.cases.argsInvalid}
          </span>
        )}
        {savedName && (
          <span className="status-ok" role="status">
            {s.cases.saved(savedName)}
          </span>
        )}
      </div>
      {error && (
        <FieldError role="alert" data-testid="testcase-save-error">
          {error}
        </FieldError>
      )}
    </form>
  );
}
