/**
 * A chat call opened in the tester: after a run, the chat's result and this run's side by
 * side (a JSON diff, keys sorted), and "Save as test case" (the arguments run, this run's
 * result expected) in one click. Says so when the chat kept no value to compare with
 * (routed, stored behind a handle, cut, cancelled or denied).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { useOpMutation } from '../../../api/hooks';
import { jsonText, splitJsonDiff } from '../../../components/diff-lines';
import { FieldError } from '../../../components/Field';
import { SideBySideDiff } from '../../../components/SideBySideDiff';
import { testerStrings as t } from '../../../i18n/tester-strings';
import { BusyButton } from '../BusyButton';
import { assertionsFor, caseName, comparedValue, runOutcome, type CallOutcome, type ReplaySource } from './replay';
import type { RunState } from './ResultView';

const s = t.replay;

export interface ReplayCompareProps {
  source: ReplaySource;
  run: RunState;
  /** The arguments the run in `run` was sent with. */
  ranWith: unknown;
  bundleId: string;
  slug: string;
  onDismiss: () => void;
}

export function ReplayCompare({ source, run, ranWith, bundleId, slug, onDismiss }: ReplayCompareProps) {
  const ids = useId();
  const outcome = useMemo<CallOutcome | null>(() => (run.status === 'done' ? runOutcome({ ok: true, value: run.result.value }) : run.status === 'failed' ? runOutcome({ ok: false, error: run.error }) : null), [run]);
  const chat = source.chat;
  const diff = useMemo(() => (outcome && chat.comparable ? splitJsonDiff(comparedValue(chat.outcome), comparedValue(outcome)) : null), [outcome, chat]);
  const argsChanged = outcome !== null && jsonText(ranWith) !== jsonText(source.args);

  return (
    <section className="replay" aria-labelledby={`${ids}-title`} data-testid="replay">
      <div className="section-head">
        <h3 id={`${ids}-title`}>{s.title}</h3>
        <button type="button" data-testid="replay-dismiss" onClick={onDismiss}>
          {s.dismiss}
        </button>
      </div>
      <p className="help">{s.intro(source.displayName, source.version)}</p>
      {!chat.comparable && (
        <p className="muted" data-testid="replay-not-comparable">
          {chat.reason === 'routed' ? s.notComparable.routed(chat.destination ?? '?') : s.notComparable[chat.reason]}
        </p>
      )}
      {diff && (
        <>
          <p role="status" data-testid="replay-verdict" className={diff.kind === 'same' ? 'status-ok' : undefined}>
            {diff.kind === 'same' ? s.same : diff.kind === 'diff' ? s.different(diff.added, diff.removed) : s.tooLarge}
          </p>
          {argsChanged && <p className="muted">{s.argsChanged}</p>}
          {diff.kind !== 'too-large' && diff.rows.length > 0 && <SideBySideDiff rows={diff.rows} left={s.chat} right={s.thisRun} label={s.diffLabel} testId="replay-diff" />}
        </>
      )}
      {outcome && run.status !== 'idle' && run.status !== 'running' && (
        <SaveRun key={run.status === 'done' ? run.result.invocationId : `${run.error.code}:${run.error.message}`} bundleId={bundleId} slug={slug} args={ranWith} outcome={outcome} helpId={`${ids}-save-help`} />
      )}
    </section>
  );
}

/** One click: this run's arguments and result as a new test case of the tool. */
function SaveRun({ bundleId, slug, args, outcome, helpId }: { bundleId: string; slug: string; args: unknown; outcome: CallOutcome; helpId: string }) {
  const qc = useQueryClient();
  const save = useOpMutation('testcases.save');
  const [saved, setSaved] = useState<string | null>(null);
  const onSave = () =>
    save.mutate(
      { bundleId, slug, testCase: { name: caseName('chat', args), args: args ?? {}, assertions: assertionsFor(outcome) } },
      {
        onSuccess: (tc) => {
          setSaved(tc.name);
          void qc.invalidateQueries({ queryKey: ['testcases.list'] });
        },
      },
    );
  return (
    <div className="form-actions replay-save">
      <BusyButton className="primary" data-testid="replay-save-case" aria-describedby={helpId} unavailable={save.isPending || saved !== null} onClick={onSave}>
        {s.save}
      </BusyButton>
      <span className="muted small" id={helpId}>
        {s.saveHelp}
      </span>
      {saved && (
        <span className="status-ok" role="status" data-testid="replay-saved">
          {s.saved(saved)}
        </span>
      )}
      {save.error && (
        <FieldError role="alert" data-testid="replay-save-error">
          {save.error.message}
        </FieldError>
      )}
    </div>
  );
}
