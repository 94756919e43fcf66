/**
 * The eval case editor: what the user says (and the earlier messages), the tools the model
 * should call with checks of their arguments, checks of the final answer (text, a pattern, an
 * LLM judge with a rubric), the tools offered (this bundle, every tool switched on, or a named
 * set; tool search as in Settings, on or off), canned results, and what an unattended run does
 * with other calls and with approvals. Save sends it with 'evals.save'; the fields that are not
 * right are said beside them first (eval-case-form.ts), and the core's refusal under the form.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import type { EvalCase } from '../../../../shared/model/evals';
import { useOp, useOpMutation, usePagedOp } from '../../../api/hooks';
import { evalsStrings } from '../../../i18n/evals-strings';
import { Field, FieldError } from '../../../components/Field';
import { BusyButton } from '../BusyButton';
import {
  firstIssue,
  fromDraft,
  newAnswerCheck,
  newContext,
  newExpectedTool,
  newResult,
  type AnswerCheckDraft,
  type ArgCheckDraft,
  type CaseDraft,
  type DraftIssues,
  type ExpectedToolDraft,
  type ResultDraft,
} from './eval-case-form';
import { AddByKind, ArgChecks, type FieldControl } from './EvalCheckFields';
import { ModelSelect } from './ModelSelect';

const s = evalsStrings.editor;

export interface EvalCaseEditorProps {
  bundleId: string;
  initial: CaseDraft;
  /** Sentences to read before saving (a draft from the chat). */
  notes?: readonly string[];
  /** Shown above the fields (the chat's choice of bundle). */
  header?: ReactNode;
  onSaved: (saved: EvalCase) => void;
  onCancel: () => void;
  onDirtyChange?: (dirty: boolean) => void;
  /** Shown without its own heading (the chat's dialog has one): its name is this. */
  label?: string;
}

export function EvalCaseEditor({ bundleId, initial, notes, header, onSaved, onCancel, onDirtyChange, label }: EvalCaseEditorProps) {
  const uid = useId();
  const qc = useQueryClient();
  const [d, setD] = useState<CaseDraft>(initial);
  const [tried, setTried] = useState(false);
  const save = useOpMutation('evals.save');
  const formRef = useRef<HTMLFormElement>(null);
  const providers = useOp('providers.list', {});
  const bundleTools = usePagedOp('tools.list', { bundleIds: [bundleId], includeDisabled: true, pageSize: 100 });
  const slugs = useMemo(() => [...new Set(bundleTools.data?.pages.flatMap((p) => p.items.map((t) => t.slug)) ?? [])], [bundleTools.data]);

  const checked = useMemo(() => fromDraft(d), [d]);
  const issues: DraftIssues = tried && !checked.ok ? checked.issues : {};
  const dirty = useMemo(() => JSON.stringify(d) !== JSON.stringify(initial), [d, initial]);
  useEffect(() => onDirtyChange?.(dirty), [dirty, onDirtyChange]);

  const set = <K extends keyof CaseDraft>(k: K, v: CaseDraft[K]) => setD((x) => ({ ...x, [k]: v }));
  const setTool = (i: number, f: (t: ExpectedToolDraft) => ExpectedToolDraft) => setD((x) => ({ ...x, tools: x.tools.map((t, j) => (j === i ? f(t) : t)) }));
  const setArg = (i: number, j: number, f: (a: ArgCheckDraft) => ArgCheckDraft) => setTool(i, (t) => ({ ...t, args: t.args.map((a, k) => (k === j ? f(a) : a)) }));
  const setAnswer = (i: number, f: (a: AnswerCheckDraft) => AnswerCheckDraft) => setD((x) => ({ ...x, answer: x.answer.map((a, j) => (j === i ? f(a) : a)) }));
  const setResult = (i: number, f: (r: ResultDraft) => ResultDraft) => setD((x) => ({ ...x, results: x.results.map((r, j) => (j === i ? f(r) : r)) }));

  /**
   * A field of the case by its key (eval-case-form.ts `DraftIssues`): its label, the control, a
   * hint, and its issue once a save was tried. The control gets `data-field`, by which the first
   * field with an issue is found and focused.
   */
  const field = (key: string, label: ReactNode, control: (c: FieldControl) => ReactNode, hint?: ReactNode) => (
    <Field id={`${uid}-${key}`} label={label} hint={hint} error={issues[key]} errorTestId="eval-field-issue">
      {(c) => control({ ...c, 'data-field': key })}
    </Field>
  );

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (!checked.ok) {
      const first = firstIssue(checked.issues);
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus());
      return;
    }
    save.mutate(
      { bundleId, evalCase: checked.body },
      {
        onSuccess: (saved) => {
          void qc.invalidateQueries({ queryKey: ['evals.list'] });
          onSaved(saved);
        },
      },
    );
  };

  const issueCount = Object.keys(issues).length;

  return (
    <form ref={formRef} className="eval-editor" onSubmit={submit} noValidate {...(label ? { 'aria-label': label } : { 'aria-labelledby': `${uid}-title` })} data-testid="eval-editor">
      {!label && <h3 id={`${uid}-title`}>{initial.id ? s.titleEdit(initial.name) : s.titleNew}</h3>}
      {header}
      {notes && notes.length > 0 && (
        <ul className="eval-notes" aria-label={evalsStrings.fromChat.notes} data-testid="eval-draft-notes">
          {notes.map((n, i) => (
            <li key={i}>{n.charAt(0).toUpperCase() + n.slice(1)}</li>
          ))}
        </ul>
      )}

      {field('name', s.name, (c) => <input {...c} data-testid="eval-name" value={d.name} maxLength={200} autoComplete="off" onChange={(e) => set('name', e.target.value)} />)}
      {field('prompt', s.prompt, (c) => <textarea {...c} data-testid="eval-prompt" rows={3} value={d.prompt} onChange={(e) => set('prompt', e.target.value)} />, s.promptHelp)}

      <details className="eval-fold" open={d.context.length > 0}>
        <summary>
          {s.context} {d.context.length > 0 && <span className="badge">{d.context.length}</span>}
        </summary>
        <p className="help">{s.contextHelp}</p>
        <ol className="eval-items">
          {d.context.map((c, i) => (
            <li key={c.key} className="eval-item">
              <div className="eval-item-row">
                <label htmlFor={`${uid}-context-role-${i}`}>{s.contextRole}</label>
                <select
                  id={`${uid}-context-role-${i}`}
                  value={c.role}
                  onChange={(e) => set('context', d.context.map((x, j) => (j === i ? { ...x, role: e.target.value as typeof c.role } : x)))}
                >
                  <option value="user">{s.roles.user}</option>
                  <option value="assistant">{s.roles.assistant}</option>
                </select>
                <button type="button" className="eval-remove" onClick={() => set('context', d.context.filter((_, j) => j !== i))}>
                  {s.removeContext(i + 1)}
                </button>
              </div>
              {field(`context.${i}`, s.contextText, (ctl) => (
                <textarea {...ctl} rows={2} value={c.text} onChange={(e) => set('context', d.context.map((x, j) => (j === i ? { ...x, text: e.target.value } : x)))} />
              ))}
            </li>
          ))}
        </ol>
        <button type="button" onClick={() => set('context', [...d.context, newContext(d.context.at(-1)?.role === 'user' ? 'assistant' : 'user')])}>
          {s.addContext}
        </button>
      </details>

      <fieldset className="eval-expect">
        <legend>{s.expect}</legend>
        <div className="eval-radios">
          {(['tools', 'none'] as const).map((k) => (
            <label key={k} className="inline-check">
              <input type="radio" name={`${uid}-expect`} data-testid={`eval-expect-${k}`} checked={d.expect === k} onChange={() => set('expect', k)} />
              {k === 'tools' ? s.expectTools : s.expectNone}
            </label>
          ))}
        </div>
        {d.expect === 'tools' && (
          <>
            <datalist id={`${uid}-slugs`}>
              {slugs.map((slug) => (
                <option key={slug} value={slug} />
              ))}
            </datalist>
            <ol className="eval-items">
              {d.tools.map((t, i) => (
                <li key={t.key} className="eval-item" data-testid="eval-expected-tool">
                  <p className="eval-item-title">{s.expectedTool(i + 1)}</p>
                  {field(
                    `tools.${i}.tool`,
                    s.toolRef,
                    (c) => (
                      <div className="eval-item-row">
                        <input {...c} data-testid="eval-tool-ref" list={`${uid}-slugs`} value={t.tool} autoComplete="off" onChange={(e) => setTool(i, (x) => ({ ...x, tool: e.target.value }))} />
                        {d.tools.length > 1 && (
                          <button type="button" className="eval-remove" onClick={() => set('tools', d.tools.filter((_, j) => j !== i))}>
                            {s.removeTool(i + 1)}
                          </button>
                        )}
                      </div>
                    ),
                    s.toolRefHelp,
                  )}
                  <ArgChecks prefix={`tools.${i}`} checks={t.args} field={field} onChange={(j, f) => setArg(i, j, f)} onSet={(args) => setTool(i, (x) => ({ ...x, args }))} />
                </li>
              ))}
            </ol>
            <div className="form-actions">
              <button type="button" onClick={() => set('tools', [...d.tools, newExpectedTool()])}>
                {s.addTool}
              </button>
              <label className="inline-check">
                <input type="checkbox" checked={d.allowOthers} onChange={(e) => set('allowOthers', e.target.checked)} />
                {s.allowOthers}
              </label>
            </div>
          </>
        )}
      </fieldset>

      <fieldset className="eval-answer-checks">
        <legend>{s.answerChecks}</legend>
        {d.answer.length === 0 && <p className="muted small">{s.answerChecksNone}</p>}
        <ol className="eval-items">
          {d.answer.map((a, i) => (
            <li key={a.key} className="eval-item" data-testid="eval-answer-check" data-kind={a.kind}>
              <div className="eval-item-row">
                <p className="eval-item-title">{s.answerKinds[a.kind]}</p>
                <button type="button" className="eval-remove" aria-label={s.removeCheckLabel(s.answerKinds[a.kind], i + 1)} onClick={() => set('answer', d.answer.filter((_, j) => j !== i))}>
                  {s.removeCheck(s.answerKinds[a.kind])}
                </button>
              </div>
              {a.kind === 'judge' ? (
                <>
                  {field(
                    `answer.${i}.rubric`,
                    s.rubric,
                    (c) => <textarea {...c} data-testid="eval-rubric" rows={3} value={a.rubric} onChange={(e) => setAnswer(i, (x) => ({ ...x, rubric: e.target.value }) as AnswerCheckDraft)} />,
                    s.rubricHelp,
                  )}
                  {field(`answer.${i}.model`, s.judgeModel, (c) => (
                    <ModelSelect {...c} providers={providers.data ?? []} value={a.model} empty={s.judgeOfRun} onChange={(v) => setAnswer(i, (x) => ({ ...x, model: v }) as AnswerCheckDraft)} />
                  ))}
                </>
              ) : (
                <>
                  {field(`answer.${i}.${a.kind === 'regex' ? 'pattern' : 'text'}`, a.kind === 'regex' ? s.pattern : s.text, (c) => (
                    <input
                      {...c}
                      data-testid={a.kind === 'regex' ? 'eval-answer-pattern' : 'eval-answer-text'}
                      value={a.kind === 'regex' ? a.pattern : a.text}
                      onChange={(e) => setAnswer(i, (x) => (x.kind === 'regex' ? { ...x, pattern: e.target.value } : { ...x, text: e.target.value }) as AnswerCheckDraft)}
                    />
                  ))}
                  <label className="inline-check">
                    <input type="checkbox" checked={a.ignoreCase} onChange={(e) => setAnswer(i, (x) => ({ ...x, ignoreCase: e.target.checked }) as AnswerCheckDraft)} />
                    {s.ignoreCase}
                  </label>
                </>
              )}
            </li>
          ))}
        </ol>
        <AddByKind label={s.addAnswerCheck} kinds={s.answerKinds} testId="eval-add-answer-check" onAdd={(k) => set('answer', [...d.answer, newAnswerCheck(k)])} />
      </fieldset>

      <fieldset className="eval-scope">
        <legend>{s.scope}</legend>
        <div className="eval-radios">
          {(['bundle', 'enabled', 'named'] as const).map((k) => (
            <label key={k} className="inline-check">
              <input type="radio" name={`${uid}-scope`} data-testid={`eval-scope-${k}`} checked={d.scope === k} onChange={() => set('scope', k)} />
              {s.scopeKinds[k]}
            </label>
          ))}
        </div>
        {d.scope === 'named' &&
          field('named', s.named, (c) => <textarea {...c} data-testid="eval-scope-named" rows={3} value={d.named} onChange={(e) => set('named', e.target.value)} />, s.namedHelp)}
        {field('toolSearch', s.toolSearch, (c) => (
          <select {...c} data-testid="eval-tool-search" value={d.toolSearch} onChange={(e) => set('toolSearch', e.target.value as CaseDraft['toolSearch'])}>
            {(['settings', 'on', 'off'] as const).map((k) => (
              <option key={k} value={k}>
                {s.toolSearchKinds[k]}
              </option>
            ))}
          </select>
        ))}
      </fieldset>

      <details className="eval-fold" open={d.results.length > 0}>
        <summary>
          {s.results} {d.results.length > 0 && <span className="badge">{d.results.length}</span>}
        </summary>
        <p className="help">{s.resultsHelp}</p>
        <ol className="eval-items">
          {d.results.map((r, i) => (
            <li key={r.key} className="eval-item" data-testid="eval-canned-result">
              {field(`results.${i}.tool`, s.resultTool, (c) => (
                <div className="eval-item-row">
                  <input {...c} list={`${uid}-slugs`} value={r.tool} autoComplete="off" onChange={(e) => setResult(i, (x) => ({ ...x, tool: e.target.value }))} />
                  <button type="button" className="eval-remove" onClick={() => set('results', d.results.filter((_, j) => j !== i))}>
                    {s.removeResult(i + 1)}
                  </button>
                </div>
              ))}
              <div className="eval-radios" role="radiogroup" aria-label={s.resultKindGroup(i + 1)}>
                {(['value', 'error'] as const).map((k) => (
                  <label key={k} className="inline-check">
                    <input type="radio" name={`${uid}-result-${r.key}`} checked={r.kind === k} onChange={() => setResult(i, (x) => ({ ...x, kind: k }))} />
                    {s.resultKinds[k]}
                  </label>
                ))}
              </div>
              {r.kind === 'value' ? (
                field(`results.${i}.value`, s.resultValue, (c) => (
                  <textarea {...c} className="eval-code" rows={4} value={r.value} onChange={(e) => setResult(i, (x) => ({ ...x, value: e.target.value }))} />
                ))
              ) : (
                <>
                  {field(`results.${i}.code`, s.resultCode, (c) => (
                    <input {...c} value={r.code} placeholder="TOOL_ERROR" maxLength={64} onChange={(e) => setResult(i, (x) => ({ ...x, code: e.target.value }))} />
                  ))}
                  {field(`results.${i}.message`, s.resultMessage, (c) => <input {...c} value={r.message} onChange={(e) => setResult(i, (x) => ({ ...x, message: e.target.value }))} />)}
                </>
              )}
            </li>
          ))}
        </ol>
        <button type="button" onClick={() => set('results', [...d.results, newResult(d.tools[0]?.tool ?? '')])}>
          {s.addResult}
        </button>
      </details>

      <fieldset className="eval-behaviour">
        <legend className="visually-hidden">{s.otherCalls}</legend>
        {field('otherCalls', s.otherCalls, (c) => (
          <select {...c} value={d.otherCalls} onChange={(e) => set('otherCalls', e.target.value as CaseDraft['otherCalls'])}>
            {(['run', 'refuse'] as const).map((k) => (
              <option key={k} value={k}>
                {s.otherCallsKinds[k]}
              </option>
            ))}
          </select>
        ))}
        {field('approvals', s.approvals, (c) => (
          <select {...c} value={d.approvals} onChange={(e) => set('approvals', e.target.value as CaseDraft['approvals'])}>
            {(['deny', 'allow'] as const).map((k) => (
              <option key={k} value={k}>
                {s.approvalsKinds[k]}
              </option>
            ))}
          </select>
        ))}
        {field('timeout', s.timeout, (c) => <input {...c} inputMode="numeric" value={d.timeout} onChange={(e) => set('timeout', e.target.value)} />, s.timeoutHelp)}
      </fieldset>

      {issues.form && (
        <FieldError role="alert" data-testid="eval-field-issue">
          {issues.form}
        </FieldError>
      )}
      <div className="form-actions eval-editor-actions">
        <BusyButton submit className="primary" data-testid="eval-save" unavailable={save.isPending}>
          {save.isPending ? s.saving : s.save}
        </BusyButton>
        <button type="button" data-testid="eval-cancel" onClick={onCancel}>
          {s.cancel}
        </button>
        {issueCount > 0 && (
          <FieldError as="span" role="status" data-testid="eval-issues">
            {s.issues(issueCount)}
          </FieldError>
        )}
      </div>
      {save.error && (
        <FieldError role="alert" data-testid="eval-save-error">
          {save.error.message}
        </FieldError>
      )}
    </form>
  );
}
