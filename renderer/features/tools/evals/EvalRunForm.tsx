/**
 * What to run: the models (from the configured providers, with prices where the user gives
 * them), how many times each case is asked, the share of attempts a case must pass, the judge
 * model, an attempt's time limit, and which of the bundle's cases. Run starts it in the window's
 * run store (eval-run-store.ts); the choices are kept for the next run while the window lives.
 */
import { useId, useState, type FormEvent } from 'react';
import { MAX_EVAL_ATTEMPTS, MAX_EVAL_MODELS, MAX_EVAL_REPEAT, type EvalCase, type EvalModelTarget } from '../../../../shared/model/evals';
import { useApi, useOp } from '../../../api/hooks';
import { Field, FieldError, NumberField } from '../../../components/Field';
import { QueryError } from '../../../components/QueryError';
import { numberOf, numberProblem } from '../../../components/number-text';
import { evalsStrings } from '../../../i18n/evals-strings';
import { useUi } from '../../../stores/ui';
import { BusyButton } from '../BusyButton';
import { modelValue, parseModel } from './eval-case-form';
import { useEvalRun } from './eval-run-store';
import { modelLabel, ModelSelect } from './ModelSelect';

const s = evalsStrings.run;

interface ChosenModel {
  value: string;
  priceIn: string;
  priceOut: string;
}

/** The last choices, kept while the window lives. */
let kept: { models: ChosenModel[]; repeat: string; passRate: string; judge: string; timeout: string } = { models: [], repeat: '1', passRate: '100', judge: '', timeout: '' };

export interface EvalRunFormProps {
  bundleId: string;
  cases: readonly EvalCase[];
  /** Cases chosen to begin with (a case's "Run…"); all when absent. */
  only?: readonly string[];
  onStarted?: () => void;
  /** Shown folded (a run is there to read): its title opens it. */
  folded?: boolean;
  onFold?: (folded: boolean) => void;
}

const PRICE = { min: 0, max: 1e6 } as const;
const REPEAT = { min: 1, max: MAX_EVAL_REPEAT, step: 1, required: true } as const;
const RATE = { min: 0, max: 100, required: true } as const;
const TIMEOUT = { min: 1, max: 1800, step: 1 } as const;

/** A price as typed: undefined when empty, null when it is not one. */
const price = (text: string): number | undefined | null => (numberProblem(text, PRICE) ? null : numberOf(text));

export function EvalRunForm({ bundleId, cases, only, onStarted, folded = false, onFold }: EvalRunFormProps) {
  const uid = useId();
  const { client } = useApi();
  const providers = useOp('providers.list', {});
  const list = providers.data ?? [];
  const running = useEvalRun((st) => st.run?.status === 'running');
  const start = useEvalRun((st) => st.start);
  const [models, setModels] = useState<ChosenModel[]>(kept.models);
  const [pick, setPick] = useState('');
  const [repeat, setRepeat] = useState(kept.repeat);
  const [passRate, setPassRate] = useState(kept.passRate);
  const [judge, setJudge] = useState(kept.judge);
  const [timeout, setTimeoutText] = useState(kept.timeout);
  // 'all' until the person picks: the cases listed later (the list still on its way) are in.
  const [chosen, setChosen] = useState<Set<string> | 'all'>(() => (only?.length ? new Set(only) : 'all'));
  const [tried, setTried] = useState(false);

  // Models kept from before whose provider (or model) has since gone are left out.
  const known = new Set(list.flatMap((p) => p.models.map((m) => modelValue({ providerId: p.id, model: m }))));
  const live = providers.data ? models.filter((m) => known.has(m.value)) : models;
  if (live.length !== models.length) setModels(live);
  const chosenCases = chosen === 'all' ? [...cases] : cases.filter((c) => chosen.has(c.id));
  const anyModels = list.some((p) => p.models.length > 0);
  const firstFree = list.flatMap((p) => p.models.map((m) => modelValue({ providerId: p.id, model: m }))).find((v) => !models.some((x) => x.value === v)) ?? '';
  const pickValue = pick && !models.some((m) => m.value === pick) ? pick : firstFree;

  const n = Number(repeat);
  const repeatOk = !numberProblem(repeat, REPEAT);
  const rate = Number(passRate);
  const rateOk = !numberProblem(passRate, RATE);
  const sec = Number(timeout);
  const timeoutOk = !numberProblem(timeout, TIMEOUT);
  const pricesOk = models.every((m) => price(m.priceIn) !== null && price(m.priceOut) !== null);
  const attempts = chosenCases.length * models.length * (repeatOk ? n : 1);
  const needsJudge = !judge && chosenCases.some((c) => c.answer.some((a) => a.kind === 'judge' && !a.model));
  const problem = models.length === 0 ? s.needModel : chosenCases.length === 0 ? s.needCase : attempts > MAX_EVAL_ATTEMPTS ? s.tooMany(attempts, MAX_EVAL_ATTEMPTS) : needsJudge ? s.judgeNeeded : null;
  const ready = !problem && repeatOk && rateOk && timeoutOk && pricesOk && !running;

  const labelOf = (value: string) => {
    const m = parseModel(value);
    return m ? modelLabel(list, m.providerId, m.model) : value;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (!ready) return;
    kept = { models, repeat, passRate, judge, timeout };
    const targets: EvalModelTarget[] = models.map((m) => {
      const ref = parseModel(m.value)!;
      const pin = price(m.priceIn);
      const pout = price(m.priceOut);
      return { ...ref, ...(pin !== undefined || pout !== undefined ? { price: { inputPerMillion: pin ?? 0, outputPerMillion: pout ?? 0 } } : {}) };
    });
    const judgeRef = parseModel(judge);
    const all = chosenCases.length === cases.length;
    const id = start(
      client,
      {
        bundleIds: [bundleId],
        ...(all ? {} : { caseIds: chosenCases.map((c) => c.id) }),
        models: targets,
        repeat: n,
        passRate: rate / 100,
        ...(judgeRef ? { judge: judgeRef } : {}),
        ...(timeout.trim() ? { timeoutMs: sec * 1000 } : {}),
      },
      {
        models: targets.map((t) => ({ key: `${t.providerId}/${t.model}`, label: modelLabel(list, t.providerId, t.model) })),
        cases: chosenCases.map((c) => ({ caseId: c.id, bundleId, name: c.name })),
      },
    );
    if (id) onStarted?.();
  };

  if (providers.data && !anyModels) {
    return (
      <div className="eval-run-form" data-testid="eval-run-form">
        <p className="muted">{s.noProviders}</p>
        <button type="button" onClick={() => useUi.getState().openSettings('add-provider')}>
          {s.addProvider}
        </button>
      </div>
    );
  }

  return (
    <details className="eval-run-fold" open={!folded} onToggle={(e) => onFold?.(!e.currentTarget.open)}>
      <summary id={`${uid}-title`} className="eval-run-title" data-testid="eval-run-form-toggle">
        {s.title}
      </summary>
      <form className="eval-run-form" onSubmit={submit} noValidate aria-labelledby={`${uid}-title`} data-testid="eval-run-form">
        <fieldset>
          <legend>{s.models}</legend>
          <p className="help" id={`${uid}-models-help`}>
            {s.modelsHelp}
          </p>
          <ul className="eval-models" data-testid="eval-run-models">
            {models.map((m, i) => {
              const label = labelOf(m.value);
              return (
                <li key={m.value} className="eval-model" data-testid="eval-run-model" data-model={label}>
                  <div className="eval-item-row">
                    <strong>{label}</strong>
                    <button type="button" className="eval-remove" aria-label={s.remove(label)} onClick={() => setModels(models.filter((_, j) => j !== i))}>
                      {s.removeShort}
                    </button>
                  </div>
                  <details className="eval-prices">
                    <summary>{s.price}</summary>
                    <p className="help">{s.priceHelp}</p>
                    <div className="eval-pair">
                      {(['priceIn', 'priceOut'] as const).map((k) => (
                        <NumberField
                          key={k}
                          className="eval-field"
                          id={`${uid}-${k}-${i}`}
                          label={
                            <>
                              {k === 'priceIn' ? s.priceInShort : s.priceOutShort}
                              <span className="visually-hidden"> ({label})</span>
                            </>
                          }
                          {...PRICE}
                          value={m[k]}
                          onChange={(text) => setModels(models.map((x, j) => (j === i ? { ...x, [k]: text } : x)))}
                        />
                      ))}
                    </div>
                  </details>
                </li>
              );
            })}
          </ul>
          {providers.error ? (
            <QueryError error={providers.error} onRetry={() => void providers.refetch()} />
          ) : !providers.data ? (
            <p className="muted">{s.loadingModels}</p>
          ) : !firstFree ? (
            <p className="help">{s.allAdded}</p>
          ) : models.length < MAX_EVAL_MODELS ? (
            <div className="eval-add">
              <label htmlFor={`${uid}-pick`}>{s.pick}</label>
              <ModelSelect id={`${uid}-pick`} data-testid="eval-run-pick" providers={list} value={pickValue} exclude={models.map((m) => m.value)} aria-describedby={`${uid}-models-help`} onChange={setPick} />
              <button type="button" data-testid="eval-run-add-model" disabled={!pickValue} onClick={() => pickValue && setModels([...models, { value: pickValue, priceIn: '', priceOut: '' }])}>
                {s.add}
              </button>
            </div>
          ) : (
            <p className="help">{s.maxModels(MAX_EVAL_MODELS)}</p>
          )}
        </fieldset>

        <div className="eval-run-numbers">
          <NumberField className="eval-field" id={`${uid}-repeat`} testId="eval-run-repeat" label={s.repeat} hint={s.repeatHelp} {...REPEAT} value={repeat} onChange={setRepeat} />
          <NumberField className="eval-field" id={`${uid}-rate`} testId="eval-run-pass-rate" label={s.passRate} {...RATE} value={passRate} onChange={setPassRate} />
          <NumberField className="eval-field" id={`${uid}-timeout`} label={s.timeout} hint={s.timeoutHelp} {...TIMEOUT} value={timeout} onChange={setTimeoutText} />
          <Field className="eval-field" id={`${uid}-judge`} label={s.judge} hint={s.judgeHelp}>
            {(c) => <ModelSelect {...c} data-testid="eval-run-judge" providers={list} value={judge} empty={s.judgeNone} onChange={setJudge} />}
          </Field>
        </div>

        <fieldset>
          <legend>{s.which}</legend>
          <label className="inline-check">
            <input type="checkbox" data-testid="eval-run-all-cases" checked={chosenCases.length === cases.length && cases.length > 0} onChange={(e) => setChosen(e.target.checked ? 'all' : new Set())} />
            {s.allCases(cases.length)}
          </label>
          <ul className="eval-run-cases">
            {cases.map((c) => (
              <li key={c.id}>
                <label className="inline-check">
                  <input
                    type="checkbox"
                    data-testid="eval-run-case"
                    data-case={c.name}
                    checked={chosen === 'all' || chosen.has(c.id)}
                    onChange={(e) => {
                      const next = new Set(chosen === 'all' ? cases.map((x) => x.id) : chosen);
                      if (e.target.checked) next.add(c.id);
                      else next.delete(c.id);
                      setChosen(next);
                    }}
                  />
                  {c.name}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>

        <div className="form-actions">
          <BusyButton submit className="primary" data-testid="eval-run-start" unavailable={!ready} aria-describedby={`${uid}-status`}>
            {running ? s.running : s.start}
          </BusyButton>
          <span id={`${uid}-status`} className="muted" role="status">
            {problem && tried ? <FieldError as="span">{problem}</FieldError> : running ? s.busyElsewhere : (problem ?? s.attempts(attempts))}
          </span>
        </div>
      </form>
    </details>
  );
}
