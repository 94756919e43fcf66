/**
 * "Save as eval" on a chat turn (the user's message, the model's reply, a tool card, the notice
 * of a failed model call): a dialog with the case the core drafts from the turn
 * ('evals.fromChat': what the user said, the earlier messages, the tool the model called with a
 * check of each argument it gave) and its notes, in the eval case editor, with the bundle it
 * goes to; saved with 'evals.save'. The saved case can be opened with its bundle's evals.
 */
import { useId, useState } from 'react';
import type { EvalCase } from '../../../../shared/model/evals';
import { useOp, usePagedOp } from '../../../api/hooks';
import { Dialog } from '../../../components/Dialog';
import { Field, FieldError } from '../../../components/Field';
import { useUnsavedChanges } from '../../../components/UnsavedChanges';
import { evalsStrings } from '../../../i18n/evals-strings';
import { useUi } from '../../../stores/ui';
import { toDraft } from './eval-case-form';
import { EvalCaseEditor } from './EvalCaseEditor';
import { useEvalsOpen } from './evals-open-store';
import './evals.css';

const s = evalsStrings.fromChat;

export interface SaveAsEvalProps {
  conversationId: string;
  /** Any row of the turn. */
  messageId: string;
  /** The button's class (the message actions' look by default). */
  className?: string;
  /** While the turn runs: its calls have not ended, so a draft would miss their results. */
  disabled?: boolean;
  /** What the button is beside (a message's first words, a tool's name): gives each button its own name. */
  about?: string;
}

export function SaveAsEvalButton({ conversationId, messageId, className = 'message-action', disabled = false, about }: SaveAsEvalProps) {
  const [open, setOpen] = useState(false);
  const shortAbout = about?.trim().replace(/\s+/g, ' ');
  return (
    <>
      <button
        type="button"
        className={className}
        data-testid="save-as-eval"
        title={s.buttonLabel}
        aria-label={shortAbout ? s.buttonAbout(shortAbout.length > 60 ? `${shortAbout.slice(0, 59)}…` : shortAbout) : undefined}
        aria-haspopup="dialog"
        disabled={disabled}
        onClick={() => setOpen(true)}
      >
        {s.button}
      </button>
      {/* Closing gives the focus back to the button (Dialog). */}
      {open && <SaveEvalDialog conversationId={conversationId} messageId={messageId} onClose={() => setOpen(false)} />}
    </>
  );
}

function SaveEvalDialog({ conversationId, messageId, onClose }: { conversationId: string; messageId: string; onClose: () => void }) {
  const uid = useId();
  const [bundleId, setBundleId] = useState<string | undefined>();
  const [dirty, setDirty] = useState(false);
  const [saved, setSaved] = useState<{ evalCase: EvalCase; bundleId: string } | null>(null);
  const draft = useOp('evals.fromChat', { conversationId, messageId, ...(bundleId ? { bundleId } : {}) }, { staleTime: Infinity, gcTime: 0, retry: false, refetchOnWindowFocus: false });
  const bundles = usePagedOp('bundles.list', { includeDisabled: true, pageSize: 100 });
  const bundleList = (bundles.data?.pages.flatMap((p) => p.items) ?? []).filter((b) => !b.softDeletedAt);
  const chosen = bundleId ?? draft.data?.bundleId;
  const bundleName = bundleList.find((b) => b.id === (saved?.bundleId ?? chosen))?.displayName ?? '';

  const unsaved = useUnsavedChanges(!saved && dirty, { detail: evalsStrings.editor.confirmLeave });
  const close = () => unsaved.guard(onClose);

  const chooseBundle = (id: string) => {
    if (!id || id === chosen) return;
    unsaved.guard(
      () => {
        setDirty(false);
        setBundleId(id);
      },
      { detail: s.redraftConfirm },
    );
  };

  const bundleSelect = (
    <Field className="eval-dialog-bundle" id={`${uid}-bundle`} label={s.bundle} hint={s.bundleHelp}>
      {(c) => (
        <select {...c} data-testid="eval-draft-bundle" value={chosen ?? ''} onChange={(e) => chooseBundle(e.target.value)}>
          {!chosen && <option value="">{s.chooseBundle}</option>}
          {bundleList.map((b) => (
            <option key={b.id} value={b.id}>
              {b.displayName} ({b.slug})
            </option>
          ))}
        </select>
      )}
    </Field>
  );

  return (
    // Escape asks first when there are unsaved changes (close).
    <Dialog open title={s.title} onClose={close} className="eval-dialog" data-testid="eval-draft-dialog">
      <button type="button" className="eval-dialog-close" data-testid="eval-draft-close" onClick={close}>
        {s.close}
      </button>
      {saved ? (
        <div className="eval-dialog-saved">
          <p className="status-ok" role="status" data-testid="eval-draft-saved">
            {s.saved(saved.evalCase.name, bundleName)}
          </p>
          <div className="form-actions">
            <button
              type="button"
              className="primary"
              data-testid="eval-draft-open"
              autoFocus
              onClick={() => {
                useEvalsOpen.getState().open({ bundleId: saved.bundleId, caseId: saved.evalCase.id });
                useUi.getState().selectBundle(saved.bundleId);
                onClose();
                useUi.getState().go('tools');
              }}
            >
              {s.openInTools}
            </button>
            <button type="button" onClick={onClose}>
              {s.close}
            </button>
          </div>
        </div>
      ) : draft.isPending ? (
        <p className="muted" role="status">
          {s.drafting}
        </p>
      ) : draft.error ? (
        <div className="eval-dialog-error">
          <FieldError role="alert" data-testid="eval-draft-error">
            {draft.error.message}
          </FieldError>
          {/* Another bundle may draft where this one could not. */}
          {!chosen && <p className="muted">{s.needBundle}</p>}
          {bundleSelect}
        </div>
      ) : (
        <EvalCaseEditor
          key={`${draft.dataUpdatedAt}:${chosen}`}
          bundleId={draft.data.bundleId}
          initial={toDraft(draft.data.draft)}
          notes={draft.data.notes}
          header={bundleSelect}
          label={s.title}
          onDirtyChange={setDirty}
          onCancel={close}
          onSaved={(evalCase) => setSaved({ evalCase, bundleId: draft.data.bundleId })}
        />
      )}
      {unsaved.prompt}
    </Dialog>
  );
}
