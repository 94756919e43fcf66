import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ErrorInfo } from '../../../../shared/errors';
import type { Bundle } from '../../../../shared/model/bundle';
import { DescriptionSchema, DisplayNameSchema, labelViolation } from '../../../../shared/model/validation';
import { useOpMutation } from '../../../api/hooks';
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
  const [draft, setDraft] = useState<Draft>(saved);
  // The id is chosen once per form, so a retried create cannot make two bundles.
  const [newId] = useState(() => uuidv7());
  const [server, setServer] = useState<Errors>({});
  const [submitted, setSubmitted] = useState(false);
  const [touched, setTouched] = useState<ReadonlySet<BundleField>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const put = useOpMutation('bundles.put');
  const del = useOpMutation('bundles.delete');
  const headingRef = useRef<HTMLHeadingElement>(null);

  const dirty = !readOnly && FIELDS.some((f) => draft[f] !== saved[f]);
  const dirtyRef = useRef(dirty);
  useEffect(() => {
    dirtyRef.current = dirty;
    onDirtyChange(dirty);
  }, [dirty, onDirtyChange]);
  // The bundle changed on the server (saved here or elsewhere): follow it unless there are edits.
  useEffect(() => {
    if (!dirtyRef.current) setDraft(saved);
  }, [saved]);
  useEffect(() => {
    if (creating) document.getElementById('bundle-slug')?.focus();
    else headingRef.current?.focus();
  }, [creating]);

  const local = useMemo(() => localErrors(draft), [draft]);
  const errorsOf = (f: BundleField) => [...(touched.has(f) || submitted ? (local[f] ?? []) : []), ...(server[f] ?? [])];

  const set = (f: BundleField, v: string) => {
    setDraft((d) => ({ ...d, [f]: v }));
    setTouched((t) => (t.has(f) ? t : new Set(t).add(f)));
    setServer((prev) => {
      if (!(f in prev) && !prev.form) return prev;
      const next = { ...prev };
      delete next[f];
      delete next.form;
      return next;
    });
  };

  const submit = (how: 'created' | 'saved' | 'restored') => {
    if (readOnly || put.isPending) return;
    setSubmitted(true);
    const first = FIELDS.find((f) => local[f]?.length);
    if (first) {
      document.getElementById(`bundle-${first}`)?.focus();
      return;
    }
    put.mutate(
      { bundleId: bundle?.id ?? newId, body: { slug: draft.slug, displayName: draft.displayName, description: draft.description, isEnabled: bundle?.isEnabled ?? true } },
      {
        onSuccess: (b) => {
          setServer({});
          dirtyRef.current = false;
          onDirtyChange(false);
          onSaved(b, how);
        },
        onError: (e) => setServer(serverErrors(e.info)),
      },
    );
  };

  /** Keeps the bundle: the confirmation closes and the focus returns to Delete. */
  const keep = () => {
    setConfirming(false);
    keepFocus.current = true;
  };
  const deleteRef = useRef<HTMLButtonElement>(null);
  const keepFocus = useRef(false);
  useEffect(() => {
    if (confirming || !keepFocus.current) return;
    keepFocus.current = false;
    deleteRef.current?.focus();
  }, [confirming]);

  const remove = () => {
    if (!bundle) return;
    del.mutate(
      { bundleId: bundle.id },
      {
        onSuccess: (b) => {
          setConfirming(false);
          onSaved(b, 'deleted');
          // The confirmation (and its focused button) is gone: the focus goes back to the form.
          headingRef.current?.focus();
        },
        onError: (e) => setServer({ form: [e.message] }),
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

  const field = (f: BundleField, label: string, testId: string, help?: string) => {
    const errors = errorsOf(f);
    const id = `bundle-${f}`;
    const describedBy = [help ? `${id}-help` : '', errors.length ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
    const common = {
      id,
      'data-testid': testId,
      value: draft[f],
      readOnly,
      'aria-invalid': errors.length > 0,
      'aria-describedby': describedBy,
    };
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        {f === 'description' ? (
          <textarea {...common} rows={3} onChange={(e) => set(f, e.target.value)} />
        ) : (
          <input {...common} spellCheck={false} autoComplete="off" onChange={(e) => set(f, e.target.value)} />
        )}
        {help && (
          <p id={`${id}-help`} className="help">
            {help}
          </p>
        )}
        {errors.length > 0 && (
          <p id={`${id}-error`} className="field-error" aria-live="polite" data-testid={`field-error-bundle-${f}`}>
            {errors.join(' ')}
          </p>
        )}
      </div>
    );
  };

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
      {server.form && (
        <div className="form-error" role="alert" data-testid="bundle-form-error">
          {server.form.map((m) => (
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
          {!creating && !deleted && !confirming && (
            <button type="button" className="danger" data-testid="bundle-delete" ref={deleteRef} onClick={() => setConfirming(true)}>
              {s.delete}
            </button>
          )}
        </div>
      )}
      {confirming && bundle && (
        <div
          className="confirm-box"
          role="alertdialog"
          aria-labelledby="bundle-delete-question"
          data-testid="bundle-delete-confirmation"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              keep();
            }
          }}
        >
          <p id="bundle-delete-question">{s.confirmDelete(bundle.displayName)}</p>
          <div className="form-actions">
            <BusyButton className="danger" data-testid="bundle-delete-confirm" unavailable={del.isPending} onClick={remove} autoFocus>
              {s.confirmDeleteYes}
            </BusyButton>
            <button type="button" data-testid="bundle-delete-keep" onClick={keep}>
              {s.keep}
            </button>
          </div>
        </div>
      )}
    </form>
  );
}
