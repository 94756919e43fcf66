import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useForm, type FieldErrors, type Resolver } from 'react-hook-form';
import type { ErrorInfo } from '../../../../shared/errors';
import type { Bundle } from '../../../../shared/model/bundle';
import { DescriptionSchema, DisplayNameSchema, labelViolation } from '../../../../shared/model/validation';
import { useOpMutation } from '../../../api/hooks';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { Field } from '../../../components/Field';
import { editorStrings } from '../../../i18n/editor-strings';
import { BusyButton } from '../BusyButton';
import { splitServerPath } from './tool-draft';
import { v7 as uuidv7 } from 'uuid';

const s = editorStrings.bundle;

type BundleField = 'slug' | 'displayName' | 'description';
type Errors = Partial<Record<BundleField | 'form', string[]>>;
interface Draft {
  slug: string;
  displayName: string;
  description: string;
}

const draftOf = (b: Bundle | undefined): Draft => ({ slug: b?.slug ?? '', displayName: b?.displayName ?? '', description: b?.description ?? '' });
const FIELDS: readonly BundleField[] = ['slug', 'displayName', 'description'];

function localErrors(d: Draft): Errors {
  const errors: Errors = {};
  const slug = labelViolation('slug', d.slug);
  if (slug) errors.slug = [slug.message];
  const name = DisplayNameSchema.safeParse(d.displayName);
  if (!name.success) errors.displayName = name.error.issues.map((i) => `${editorStrings.bundle.name}: ${i.message}`);
  const desc = DescriptionSchema.safeParse(d.description);
  if (!desc.success) errors.description = desc.error.issues.map((i) => `${editorStrings.bundle.description}: ${i.message}`);
  return errors;
}

/** The form's check: the shared rules of each field, its errors joined. */
const checkDraft: Resolver<Draft> = (values) => {
  const found: FieldErrors<Draft> = {};
  for (const [f, list] of Object.entries(localErrors(values))) if (f !== 'form' && list?.length) found[f as BundleField] = { type: 'rules', message: list.join(' ') };
  return Object.keys(found).length > 0 ? { values: {}, errors: found } : { values, errors: {} };
};

function serverErrors(info: ErrorInfo): Errors {
  const errors: Errors = {};
  const details = (info.details ?? {}) as { field?: unknown; issues?: unknown };
  const put = (where: string, message: string) => {
    const head = splitServerPath(where)[0];
    const key: BundleField | 'form' = FIELDS.includes(head as BundleField) ? (head as BundleField) : 'form';
    (errors[key] ??= []).push(message);
  };
  if (info.code === 'VALIDATION_FAILED') {
    const issues = Array.isArray(details.issues) ? (details.issues as { field?: unknown; path?: unknown; message?: unknown }[]) : [];
    for (const i of issues) put(typeof i.field === 'string' ? i.field : typeof i.path === 'string' ? i.path : '', typeof i.message === 'string' ? i.message : info.message);
    if (issues.length === 0 && typeof details.field === 'string') put(details.field, info.message);
  }
  if (Object.keys(errors).length === 0) errors.form = [info.message];
  return errors;
}

export interface BundleFormProps {
  /** The bundle to edit; absent to create one. */
  bundle?: Bundle;
  notice?: string;
  onSaved(bundle: Bundle, how: 'created' | 'saved' | 'deleted' | 'restored'): void;
  onClose(): void;
  onDirtyChange(dirty: boolean): void;
}

/**
 * Creates or edits a bundle (slug, name, description). A new bundle gets a UUIDv7 made
 * here. Delete is soft: the bundle is marked deleted and the store reaps it two days later
 * if it has no tools; saving it again restores it. Built-in bundles are read-only.
 */
export function BundleForm({ bundle, notice, onSaved, onClose, onDirtyChange }: BundleFormProps) {
  const creating = bundle === undefined;
  const readOnly = !!bundle?.isBuiltIn;
  const deleted = bundle?.softDeletedAt !== undefined;
  const saved = useMemo(() => draftOf(bundle), [bundle]);
  // A field's errors show once it has been edited or a save was tried; the server's refusal
  // lands on its field until that field is edited again.
  const { register, handleSubmit, setError, clearErrors, formState } = useForm<Draft>({
    defaultValues: saved,
    // The bundle changed on the server (saved here or elsewhere): follow it, keeping the fields being edited.
    values: saved,
    resetOptions: { keepDirtyValues: true },
    resolver: checkDraft,
    mode: 'onChange',
  });
  // The id is chosen once per form, so a retried create cannot make two bundles.
  const [newId] = useState(() => uuidv7());
  const put = useOpMutation('bundles.put');
  const del = useOpMutation('bundles.delete');
  const headingRef = useRef<HTMLHeadingElement>(null);

  const dirty = !readOnly && formState.isDirty;
  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);
  useEffect(() => {
    if (creating) document.getElementById('bundle-slug')?.focus();
    else headingRef.current?.focus();
  }, [creating]);

  const errorsOf = (f: BundleField) => formState.errors[f]?.message;
  // The refusals of no one field (a save's or a delete's), a line each, until the next edit.
  const formErrors = formState.errors.root?.server?.message?.split('\n');
  const refuse = (errors: Errors) => {
    for (const [key, list] of Object.entries(errors)) {
      if (!list?.length) continue;
      if (key === 'form') setError('root.server', { type: 'server', message: list.join('\n') });
      else setError(key as BundleField, { type: 'server', message: list.join(' ') });
    }
  };
  const onEdit = () => {
    if (formState.errors.root?.server) clearErrors('root.server');
  };

  const submit = (how: 'created' | 'saved' | 'restored') => {
    if (readOnly || put.isPending) return;
    void handleSubmit((draft) =>
      put.mutate(
        { bundleId: bundle?.id ?? newId, body: { slug: draft.slug, displayName: draft.displayName, description: draft.description, isEnabled: bundle?.isEnabled ?? true } },
        {
          onSuccess: (b) => {
            onDirtyChange(false);
            onSaved(b, how);
          },
          onError: (e) => refuse(serverErrors(e.info)),
        },
      ),
    )();
  };

  const remove = () => {
    if (!bundle) return;
    del.mutate(
      { bundleId: bundle.id },
      {
        onSuccess: (b) => {
          onSaved(b, 'deleted');
          // The confirmation (and its focused button) is gone: the focus goes back to the form.
          headingRef.current?.focus();
        },
        onError: (e) => refuse({ form: [e.message] }),
      },
    );
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    submit(creating ? 'created' : deleted ? 'restored' : 'saved');
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
      e.preventDefault();
      submit(creating ? 'created' : deleted ? 'restored' : 'saved');
    }
  };

  const field = (f: BundleField, label: string, testId: string, help?: string) => (
    <Field className="field" id={`bundle-${f}`} label={label} hint={help} error={errorsOf(f)} errorTestId={`field-error-bundle-${f}`}>
      {(aria) => {
        const common = { ...aria, ...register(f, { onChange: onEdit }), 'data-testid': testId, readOnly };
        return f === 'description' ? <textarea {...common} rows={3} /> : <input {...common} spellCheck={false} autoComplete="off" />;
      }}
    </Field>
  );

  return (
    <form className="bundle-form" aria-labelledby="bundle-form-title" noValidate onSubmit={onSubmit} onKeyDown={onKeyDown} data-testid="bundle-form">
      <header className="editor-header">
        <h2 id="bundle-form-title" ref={headingRef} tabIndex={-1}>
          {creating ? s.createTitle : s.editTitle(bundle.displayName)}
        </h2>
        {dirty && <span className="badge unsaved">{editorStrings.unsaved.marker}</span>}
      </header>
      {notice && (
        <p className="status-ok" role="status" data-testid="bundle-form-notice">
          {notice}
        </p>
      )}
      {readOnly && <p className="help">{s.builtIn}</p>}
      {deleted && (
        <p className="deleted-note" role="note" data-testid="bundle-deleted-note">
          {s.deletedState(new Date(bundle.softDeletedAt!).toLocaleString())}
        </p>
      )}
      <fieldset>
        <legend>{s.details}</legend>
        {field('slug', s.slug, 'bundle-form-slug', readOnly ? undefined : s.slugHelp)}
        {field('displayName', s.name, 'bundle-form-name')}
        {field('description', s.description, 'bundle-form-description')}
        {bundle && (
          <p className="help">
            {s.id}: <code>{bundle.id}</code>
          </p>
        )}
      </fieldset>
      {formErrors && (
        <div className="form-error" role="alert" data-testid="bundle-form-error">
          {formErrors.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
      {!readOnly && (
        <div className="form-actions editor-actions">
          {deleted ? (
            <BusyButton submit className="primary" data-testid="bundle-restore" unavailable={put.isPending}>
              {put.isPending ? editorStrings.common.saving : s.restore}
            </BusyButton>
          ) : (
            <BusyButton submit className="primary" data-testid="bundle-form-save" unavailable={put.isPending}>
              {put.isPending ? editorStrings.common.saving : creating ? s.create : s.save}
            </BusyButton>
          )}
          <button type="button" data-testid="bundle-form-cancel" onClick={onClose}>
            {creating || dirty ? editorStrings.common.cancel : editorStrings.common.close}
          </button>
          {!creating && !deleted && (
            <ConfirmButton
              asks="inline"
              className="danger"
              data-testid="bundle-delete"
              question={s.confirmDelete(bundle.displayName)}
              confirmLabel={s.confirmDeleteYes}
              cancelLabel={s.keep}
              pending={del.isPending}
              onConfirm={remove}
            >
              {s.delete}
            </ConfirmButton>
          )}
        </div>
      )}
    </form>
  );
}
