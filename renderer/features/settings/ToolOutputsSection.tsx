/**
 * Settings → Tool outputs (docs/large-outputs.md): the base folder of the stored outputs, the
 * size cap, the window assumed for a model whose provider does not say, the extraction policy,
 * and the choices remembered per tool ("Remember for this tool" on a card): changed or
 * forgotten here. Saved as one `toolOutputs` change.
 */
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { OversizedChoice, ToolOutputSettings } from '../../../shared/model/settings';
import { useOp, useOpMutation } from '../../api/hooks';
import { Field, NumberField } from '../../components/Field';
import { outputStrings } from '../../i18n/output-strings';
import { CHOICES } from '../outputs/format';
import { draftFieldOf, fromToolOutputDraft, toToolOutputDraft, type ToolOutputDraft } from './tool-output-draft';

const s = outputStrings.settings;

export function ToolOutputsSection() {
  const settings = useOp('settings.get', {});
  const save = useOpMutation('settings.set');
  const saved = settings.data?.toolOutputs;
  const [draft, setDraft] = useState<ToolOutputDraft | null>(null);
  const perToolIds = Object.keys(draft?.perTool ?? {});
  const tools = useOp('tools.list', { includeDisabled: true, pageSize: 100 }, { enabled: perToolIds.length > 0 });

  // The first load fills the form; a later change (a choice remembered from a card) replaces
  // it too, unless the form holds edits of its own.
  const previous = useRef<ToolOutputSettings | undefined>(undefined);
  useEffect(() => {
    if (!saved) return;
    const before = previous.current;
    previous.current = saved;
    setDraft((d) => (d === null || (before && JSON.stringify(d) === JSON.stringify(toToolOutputDraft(before))) ? toToolOutputDraft(saved) : d));
  }, [saved]);

  if (!saved || !draft) return null;
  const dirty = JSON.stringify(toToolOutputDraft(saved)) !== JSON.stringify(draft);
  const issues = (save.error?.info.details as { issues?: { path: string; message: string }[] } | undefined)?.issues ?? [];
  const errorOf = (field: keyof ToolOutputDraft) => issues.find((i) => draftFieldOf(i.path) === field)?.message ?? (issues.length === 0 && save.error && field === 'baseDir' ? save.error.message : undefined);
  const nameOf = (id: string) => {
    const tool = tools.data?.items.find((x) => x.id === id);
    return tool ? `${tool.displayName} (+${tool.slug})` : id;
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ toolOutputs: fromToolOutputDraft(draft, saved) }, { onSuccess: (next) => setDraft(toToolOutputDraft(next.toolOutputs)) });
  };
  const set = (patch: Partial<ToolOutputDraft>) => setDraft({ ...draft, ...patch });
  const numberField = (field: keyof ToolOutputDraft, label: string, help?: string, attrs: { min?: number; max?: number; step?: number } = {}): ReactNode => (
    <NumberField
      className="tool-outputs-field"
      id={`to-${field}`}
      label={label}
      hint={help}
      error={errorOf(field)}
      announce="alert"
      testId={`tool-outputs-${field}`}
      {...attrs}
      value={draft[field] as string}
      onChange={(text) => set({ [field]: text })}
    />
  );

  return (
    <section className="settings-section tool-outputs" aria-labelledby="tool-outputs-title" data-testid="settings-tool-outputs">
      <h2 id="tool-outputs-title">{s.title}</h2>
      <p className="help">{s.help}</p>
      <form className="settings-form" onSubmit={onSubmit} aria-label={s.title} noValidate>
        <fieldset>
          <legend>{s.baseDir}</legend>
          <Field id="to-baseDir" label={s.baseDir} labelHidden hint={s.baseDirHelp} error={errorOf('baseDir')} announce="alert">
            {(control) => <input {...control} data-testid="tool-outputs-baseDir" value={draft.baseDir} onChange={(e) => set({ baseDir: e.target.value })} />}
          </Field>
          {numberField('maxResultKiB', s.maxResultBytes, s.maxResultBytesHelp, { min: 1, step: 1 })}
        </fieldset>
        <fieldset>
          <legend>{s.window}</legend>
          <div className="tool-outputs-row">
            {numberField('contextTokens', s.contextTokens, undefined, { min: 512, step: 1 })}
            {numberField('maxOutputTokens', s.maxOutputTokens, undefined, { min: 16, step: 1 })}
          </div>
        </fieldset>
        <fieldset>
          <legend>{s.policy}</legend>
          {numberField('maxChunksForFullMode', s.maxChunks, s.maxChunksHelp, { min: 1, max: 1000, step: 1 })}
          {numberField('avgLineBytesForFullMode', s.avgLineBytes, s.avgLineBytesHelp, { min: 1, step: 1 })}
          {numberField('overlapPercent', s.overlap, undefined, { min: 0, max: 50, step: 1 })}
        </fieldset>
        <fieldset data-testid="tool-outputs-per-tool">
          <legend>{s.perTool}</legend>
          <p className="help">{s.perToolHelp}</p>
          {perToolIds.length === 0 ? (
            <p className="muted">{s.noPerTool}</p>
          ) : (
            <ul className="approval-rules">
              {perToolIds.map((id) => (
                <li key={id} className="approval-rule" data-testid="tool-outputs-rule" data-tool-id={id}>
                  <code>{nameOf(id)}</code>
                  <select aria-label={s.choiceFor(nameOf(id))} data-testid="tool-outputs-rule-choice" value={draft.perTool[id]} onChange={(e) => set({ perTool: { ...draft.perTool, [id]: e.target.value as OversizedChoice } })}>
                    {CHOICES.map((c) => (
                      <option key={c} value={c}>
                        {outputStrings.choices[c]}
                      </option>
                    ))}
                  </select>
                  <button
                    type="button"
                    data-testid="tool-outputs-rule-forget"
                    aria-label={s.forgetLabel(nameOf(id))}
                    onClick={() => {
                      const { [id]: _gone, ...rest } = draft.perTool;
                      set({ perTool: rest });
                    }}
                  >
                    {s.forget}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </fieldset>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={!dirty || save.isPending} data-testid="tool-outputs-save">
            {save.isPending ? s.saving : s.save}
          </button>
          <button type="button" disabled={!dirty} onClick={() => setDraft(toToolOutputDraft(saved))}>
            {s.reset}
          </button>
          {save.isSuccess && !dirty && (
            <span className="status-ok" role="status" data-testid="tool-outputs-saved">
              {s.saved}
            </span>
          )}
        </div>
      </form>
    </section>
  );
}
