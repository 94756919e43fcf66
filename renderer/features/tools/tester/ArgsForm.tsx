/**
 * The arguments form, generated from a tool's argSchema: one-line strings (long text in a
 * multi-line box), enums as selects, numbers, booleans, nested objects, arrays (add/remove
 * items), oneOf/anyOf (a chooser of the variant), const values, and a null toggle for
 * `type: [x, "null"]`; anything else is edited as JSON in place. A toggle switches the
 * whole form to one JSON box editing the same value. Invalid JSON anywhere is shown inline
 * and reported through onValidityChange, so the caller can disable Run; the schema issues
 * the caller passes (useArgIssues) are shown on their fields. Enter in a one-line field
 * calls onSubmit.
 */
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { FieldError } from '../../../components/Field';
import { testerStrings as s } from '../../../i18n/tester-strings';
import {
  fieldKind,
  fits,
  getIn,
  isNullable,
  isPlainObject,
  issuesByField,
  matchVariant,
  newItem,
  pathId,
  pathTestId,
  pointerLabel,
  removeAt,
  requiredOf,
  resolveSchema,
  setIn,
  toPointer,
  variantLabel,
  variantsOf,
  withoutNull,
  type ArgIssue,
  type FieldIssue,
  type Path,
  type Schema,
} from './schema-form';
import { FormCtx, JsonBox, Label, NumberInput, useForm, type FormContext } from './text-boxes';

export interface ArgsFormProps {
  schema: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  /** False while some JSON box holds text that does not parse. */
  onValidityChange?: (valid: boolean) => void;
  /** The value's schema issues (useArgIssues), shown on their fields. */
  issues?: readonly ArgIssue[];
  /** Show missing required fields too (after the user tried to run); other issues show as they come. */
  showMissing?: boolean;
  /** Enter in a one-line field. */
  onSubmit?: () => void;
}

const NO_ISSUES: readonly ArgIssue[] = [];

export function ArgsForm({ schema, value, onChange, onValidityChange, issues = NO_ISSUES, showMissing = false, onSubmit }: ArgsFormProps) {
  const idBase = useId();
  const [jsonMode, setJsonMode] = useState(false);
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(new Set());

  // The latest value, so a field's change never writes into a stale copy.
  const latest = useRef(value);
  useLayoutEffect(() => {
    latest.current = value;
  });
  const set = useCallback(
    (path: Path, v: unknown) => {
      const next = setIn(latest.current, path, v);
      latest.current = next;
      onChange(next);
    },
    [onChange],
  );
  const remove = useCallback(
    (path: Path, index: number) => {
      const next = removeAt(latest.current, path, index);
      latest.current = next;
      onChange(next);
    },
    [onChange],
  );
  const markInvalid = useCallback((key: string, bad: boolean) => {
    setInvalid((prev) => {
      if (prev.has(key) === bad) return prev;
      const next = new Set(prev);
      if (bad) next.add(key);
      else next.delete(key);
      return next;
    });
  }, []);

  const valid = invalid.size === 0;
  useEffect(() => onValidityChange?.(valid), [valid, onValidityChange]);

  const rootSchema = resolveSchema(schema, schema);
  const rootKind = fieldKind(rootSchema, 0);
  const noArgs = rootKind === 'json' && isPlainObject(rootSchema) && rootSchema.type === 'object' && rootSchema.additionalProperties === false && !rootSchema.properties;

  const byField = useMemo(() => {
    const all = issuesByField(issues);
    if (showMissing) return all;
    const shown = new Map<string, FieldIssue[]>();
    for (const [k, list] of all) {
      const keep = list.filter((i) => !i.missing);
      if (keep.length) shown.set(k, keep);
    }
    return shown;
  }, [issues, showMissing]);
  const issuesAt = useCallback((pointer: string, within = false) => {
    if (!within) return byField.get(pointer) ?? [];
    const out: FieldIssue[] = [];
    for (const [k, list] of byField) if (k === pointer || k.startsWith(`${pointer}/`)) out.push(...list.map((i) => (k === pointer ? i : { ...i, message: `${pointerLabel(k)}: ${i.message}` })));
    return out;
  }, [byField]);

  const ctx: FormContext = { root: value, schemaRoot: schema, idBase, set, remove, markInvalid, issuesAt, onSubmit };
  const toggleBlocked = jsonMode && invalid.has('json-mode');
  const summary = showMissing ? [...byField.values()].flat() : [];

  return (
    <FormCtx.Provider value={ctx}>
      <div className="args-form">
        <div className="args-form-head">
          <h3 id={`${idBase}-title`}>{s.args.title}</h3>
          <button
            type="button"
            data-testid="tester-json-toggle"
            aria-pressed={jsonMode}
            disabled={toggleBlocked}
            aria-describedby={toggleBlocked ? `${idBase}-json-error` : undefined}
            onClick={() => setJsonMode((m) => !m)}
          >
            {jsonMode ? s.args.toForm : s.args.toJson}
          </button>
        </div>
        {summary.length > 0 && (
          <FieldError as="div" className="args-summary" role="alert" data-testid="args-issues">
            <p>{s.args.summary(summary.length)}</p>
            <ul>
              {summary.map((i, n) => (
                <li key={n}>
                  <code>{pointerLabel(i.pointer)}</code> {i.message}
                </li>
              ))}
            </ul>
          </FieldError>
        )}
        {jsonMode ? (
          <JsonBox path={[]} label={s.args.jsonLabel} testId="tester-json" invalidKey="json-mode" errorId={`${idBase}-json-error`} emptyIs="error" rows={12} />
        ) : noArgs ? (
          <p className="muted">{s.args.noArgs}</p>
        ) : rootKind === 'object' && fits('object', value) ? (
          <ObjectFields schema={rootSchema!} path={[]} depth={0} />
        ) : (
          <JsonBox path={[]} label={s.args.jsonLabel} testId={pathTestId([])} invalidKey="root" errorId={`${idBase}-root-error`} emptyIs="error" rows={8} />
        )}
      </div>
    </FormCtx.Provider>
  );
}

function ObjectFields({ schema, path, depth }: { schema: Schema; path: Path; depth: number }) {
  const required = requiredOf(schema);
  return (
    <>
      {Object.entries(schema.properties as Record<string, unknown>).map(([key, sub]) => (
        <Field key={key} schema={sub} path={[...path, key]} label={key} required={required.has(key)} depth={depth + 1} />
      ))}
    </>
  );
}

interface FieldProps {
  schema: unknown;
  path: Path;
  label: string;
  required: boolean;
  depth: number;
  /** For array items: a remove button beside the control. */
  onRemove?: () => void;
}

function Field(props: FieldProps) {
  const { schemaRoot, root } = useForm();
  const sub = resolveSchema(props.schema, schemaRoot);
  const v = getIn(root, props.path);
  if (sub && isNullable(sub)) return <NullableField {...props} schema={sub} />;
  return <FieldOf {...props} schema={sub} value={v} />;
}

function FieldOf(props: Omit<FieldProps, 'schema'> & { schema: Schema | null; value: unknown }) {
  const { schema: sub, value: v } = props;
  const kind = fieldKind(sub, props.depth);
  if (!sub || !fits(kind, v)) return <JsonField {...props} schema={sub ?? {}} />;
  switch (kind) {
    case 'variant':
      return <VariantField {...props} schema={sub} />;
    case 'const':
      return <ConstField {...props} schema={sub} />;
    case 'object':
      return <ObjectField {...props} schema={sub} />;
    case 'array':
      return <ArrayField {...props} schema={sub} />;
    case 'boolean':
      return <BooleanField {...props} schema={sub} />;
    case 'enum':
      return <EnumField {...props} schema={sub} />;
    case 'json':
      return <JsonField {...props} schema={sub} />;
    default:
      return <InputField {...props} schema={sub} kind={kind} />;
  }
}

type ResolvedProps = Omit<FieldProps, 'schema'> & { schema: Schema };

function useFieldIds(path: Path) {
  const { idBase } = useForm();
  const id = `${idBase}-${pathId(path)}`;
  return { id, helpId: `${id}-help`, errorId: `${id}-error` };
}

function Help({ id, schema, extra }: { id: string; schema: Schema; extra?: string }) {
  const text = [typeof schema.description === 'string' ? schema.description : '', extra ?? ''].filter(Boolean).join(' ');
  return text ? (
    <p className="help" id={id}>
      {text}
    </p>
  ) : null;
}

/** The schema issues of one field, under its control. */
function FieldIssues({ id, list }: { id: string; list: readonly FieldIssue[] }) {
  if (list.length === 0) return null;
  return (
    <FieldError id={id} data-testid="field-issue">
      {list.map((i) => sentence(i.message.charAt(0).toUpperCase() + i.message.slice(1))).join(' ')}
    </FieldError>
  );
}

/** The ids a control is described by: its help, its JSON error, its schema issues. */
function describedBy(...ids: (string | false | undefined)[]): string | undefined {
  return ids.filter(Boolean).join(' ') || undefined;
}

/** Enter in a one-line field runs (not while an input method composes). */
function useEnterRuns() {
  const { onSubmit } = useForm();
  return (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter' || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey || e.nativeEvent.isComposing || !onSubmit) return;
    e.preventDefault();
    e.stopPropagation();
    onSubmit();
  };
}

function Row({ children, onRemove, label }: { children: ReactNode; onRemove?: () => void; label: string }) {
  return (
    <div className="arg-field">
      {children}
      {onRemove && (
        <button type="button" className="arg-remove" aria-label={s.args.removeItem(label)} title={s.args.removeItem(label)} onClick={onRemove}>
          ✕
        </button>
      )}
    </div>
  );
}

/** A description followed by another sentence needs its full stop. */
function sentence(text: string): string {
  const t = text.trim();
  return /[.!?:)]$/.test(t) ? t : `${t}.`;
}

function defaultHint(schema: Schema): string | undefined {
  return schema.default === undefined ? undefined : s.args.defaultIs(typeof schema.default === 'string' ? schema.default : JSON.stringify(schema.default));
}

function InputField({ schema, path, label, required, onRemove, kind }: ResolvedProps & { kind: 'string' | 'text' | 'number' | 'integer' }) {
  const { root, set, issuesAt } = useForm();
  const { id, helpId } = useFieldIds(path);
  const onEnter = useEnterRuns();
  const v = getIn(root, path);
  const hasHelp = typeof schema.description === 'string' || schema.default !== undefined;
  const issues = issuesAt(toPointer(path));
  const issuesId = `${id}-issues`;
  const common = {
    id,
    'data-testid': pathTestId(path),
    'aria-required': required || undefined,
    'aria-describedby': describedBy(hasHelp && helpId, issues.length > 0 && issuesId),
    placeholder: schema.default === undefined ? undefined : String(typeof schema.default === 'string' ? schema.default : JSON.stringify(schema.default)),
  };
  const text = typeof v === 'string' ? v : '';
  // An empty box is left out (a required one is then flagged as missing); an array item is kept as "".
  const onText = (next: string) => set(path, next === '' && typeof path[path.length - 1] !== 'number' ? undefined : next);
  const control =
    kind === 'number' || kind === 'integer' ? (
      <NumberInput {...common} path={path} invalid={issues.length > 0} onKeyDown={onEnter} />
    ) : kind === 'text' ? (
      <textarea {...common} rows={3} value={text} aria-invalid={issues.length > 0 || undefined} onChange={(e) => onText(e.target.value)} />
    ) : (
      <input
        {...common}
        type="text"
        autoComplete="off"
        value={text}
        aria-invalid={issues.length > 0 || undefined}
        maxLength={typeof schema.maxLength === 'number' ? schema.maxLength : undefined}
        onChange={(e) => onText(e.target.value)}
        onKeyDown={onEnter}
      />
    );
  return (
    <Row onRemove={onRemove} label={label}>
      <Label htmlFor={id} label={label} required={required} />
      {control}
      <FieldIssues id={issuesId} list={issues} />
      <Help id={helpId} schema={schema} extra={defaultHint(schema)} />
    </Row>
  );
}

function BooleanField({ schema, path, label, required, onRemove }: ResolvedProps) {
  const { root, set, issuesAt } = useForm();
  const { id, helpId } = useFieldIds(path);
  const v = getIn(root, path);
  const checked = typeof v === 'boolean' ? v : schema.default === true;
  const issues = issuesAt(toPointer(path));
  return (
    <Row onRemove={onRemove} label={label}>
      <div className="inline-check">
        <input
          id={id}
          type="checkbox"
          data-testid={pathTestId(path)}
          checked={checked}
          aria-invalid={issues.length > 0 || undefined}
          aria-describedby={describedBy(typeof schema.description === 'string' && helpId, issues.length > 0 && `${id}-issues`)}
          onChange={(e) => set(path, e.target.checked)}
        />
        <Label htmlFor={id} label={label} required={required} />
      </div>
      <FieldIssues id={`${id}-issues`} list={issues} />
      <Help id={helpId} schema={schema} extra={v === undefined ? defaultHint(schema) : undefined} />
    </Row>
  );
}

/** A select of the enum's values; a value outside them stays selected, marked as not allowed. */
function EnumField({ schema, path, label, required, onRemove }: ResolvedProps) {
  const { root, set, issuesAt } = useForm();
  const { id, helpId } = useFieldIds(path);
  const options = schema.enum as unknown[];
  const v = getIn(root, path);
  const selected = v === undefined ? -1 : options.findIndex((o) => JSON.stringify(o) === JSON.stringify(v));
  const outside = v !== undefined && selected < 0;
  const hint = defaultHint(schema);
  const issues = issuesAt(toPointer(path));
  const shownIssues = outside && issues.length === 0 ? [{ pointer: toPointer(path), message: s.args.notAllowedHelp, missing: false }] : issues;
  return (
    <Row onRemove={onRemove} label={label}>
      <Label htmlFor={id} label={label} required={required} />
      <select
        id={id}
        data-testid={pathTestId(path)}
        aria-required={required || undefined}
        aria-invalid={shownIssues.length > 0 || undefined}
        aria-describedby={describedBy(typeof schema.description === 'string' && helpId, shownIssues.length > 0 && `${id}-issues`)}
        value={outside ? 'outside' : selected < 0 ? '' : String(selected)}
        onChange={(e) => {
          if (e.target.value === 'outside') return;
          set(path, e.target.value === '' ? undefined : structuredClone(options[Number(e.target.value)]));
        }}
      >
        {outside && <option value="outside">{s.args.notAllowed(typeof v === 'string' ? v : JSON.stringify(v))}</option>}
        {(selected < 0 || !required) && !outside && <option value="">{hint ? `${s.args.notSet} ${hint}` : s.args.notSet}</option>}
        {outside && !required && <option value="">{hint ? `${s.args.notSet} ${hint}` : s.args.notSet}</option>}
        {options.map((o, i) => (
          <option key={i} value={String(i)}>
            {typeof o === 'string' ? o : JSON.stringify(o)}
          </option>
        ))}
      </select>
      <FieldIssues id={`${id}-issues`} list={shownIssues} />
      <Help id={helpId} schema={schema} />
    </Row>
  );
}

/** A const: shown, not edited (a variant's discriminator, typically). */
function ConstField({ schema, path, label, required, onRemove }: ResolvedProps) {
  const { issuesAt } = useForm();
  const { id, helpId } = useFieldIds(path);
  const text = typeof schema.const === 'string' ? schema.const : JSON.stringify(schema.const);
  return (
    <Row onRemove={onRemove} label={label}>
      <Label htmlFor={id} label={label} required={required} />
      <input id={id} type="text" readOnly value={text} data-testid={pathTestId(path)} aria-describedby={helpId} />
      <FieldIssues id={`${id}-issues`} list={issuesAt(toPointer(path))} />
      <Help id={helpId} schema={schema} extra={s.args.fixed} />
    </Row>
  );
}

/** oneOf/anyOf: a chooser of the variant, then the chosen variant's own field. Choosing another starts it afresh. */
function VariantField(props: ResolvedProps) {
  const { schema, path, label, required, depth, onRemove } = props;
  const { root, set, schemaRoot, issuesAt } = useForm();
  const { id, helpId } = useFieldIds(path);
  const variants = useMemo(() => variantsOf(schema, schemaRoot), [schema, schemaRoot]);
  const v = getIn(root, path);
  const [chosen, setChosen] = useState(() => matchVariant(variants, v, schemaRoot, depth));
  const variant = variants[chosen] ?? {};
  const issues = issuesAt(toPointer(path)).filter((i) => !/must match (exactly one|a) schema/.test(i.message) || variants.length === 0);
  return (
    <fieldset className="arg-object arg-variant" data-testid={`${pathTestId(path)}-variant-group`}>
      <legend>
        <Label label={label} required={required} />
      </legend>
      <Help id={helpId} schema={{ description: schema.description }} />
      <div className="arg-field">
        <label htmlFor={`${id}-variant`}>{s.args.variant(label)}</label>
        <select
          id={`${id}-variant`}
          data-testid={`${pathTestId(path)}-variant`}
          value={String(chosen)}
          onChange={(e) => {
            const i = Number(e.target.value);
            setChosen(i);
            set(path, newItem(variants[i], schemaRoot, depth));
          }}
        >
          {variants.map((vs, i) => (
            <option key={i} value={String(i)}>
              {variantLabel(vs, i)}
            </option>
          ))}
        </select>
      </div>
      <FieldIssues id={`${id}-issues`} list={issues} />
      <FieldOf key={chosen} {...props} schema={{ ...variant, description: undefined }} value={v} label={label} />
      {onRemove && (
        <button type="button" className="arg-remove" onClick={onRemove}>
          {s.args.removeItem(label)}
        </button>
      )}
    </fieldset>
  );
}

/** `type: [x, "null"]`: a "null" toggle beside the control of x. */
function NullableField(props: ResolvedProps) {
  const { schema, path, label, depth } = props;
  const { root, set, schemaRoot } = useForm();
  const { id } = useFieldIds(path);
  const v = getIn(root, path);
  const inner = withoutNull(schema);
  const isNull = v === null;
  return (
    <div className="arg-nullable">
      <div className="inline-check arg-null-toggle">
        <input
          id={`${id}-null`}
          type="checkbox"
          data-testid={`${pathTestId(path)}-null`}
          checked={isNull}
          onChange={(e) => set(path, e.target.checked ? null : newItem(inner, schemaRoot, depth))}
        />
        <label htmlFor={`${id}-null`} title={s.args.nullHelp(label)}>
          {s.args.isNull}
          <span className="visually-hidden"> ({s.args.nullHelp(label)})</span>
        </label>
      </div>
      {isNull ? (
        <p className="muted arg-null-note">
          <Label label={label} required={props.required} />: <code>null</code>
        </p>
      ) : (
        <FieldOf {...props} schema={inner} value={v} />
      )}
    </div>
  );
}

function ObjectField({ schema, path, label, required, depth, onRemove }: ResolvedProps) {
  const { idBase, issuesAt } = useForm();
  const helpId = `${idBase}-${pathId(path)}-help`;
  return (
    <fieldset className="arg-object" data-testid={pathTestId(path)} aria-describedby={typeof schema.description === 'string' ? helpId : undefined}>
      <legend>
        <Label label={label} required={required} />
      </legend>
      <Help id={helpId} schema={schema} />
      <FieldIssues id={`${idBase}-${pathId(path)}-issues`} list={issuesAt(toPointer(path))} />
      <ObjectFields schema={schema} path={path} depth={depth} />
      {onRemove && (
        <button type="button" className="arg-remove" onClick={onRemove}>
          {s.args.removeItem(label)}
        </button>
      )}
    </fieldset>
  );
}

function ArrayField({ schema, path, label, required, depth, onRemove }: ResolvedProps) {
  const { root, set, remove, idBase, schemaRoot, issuesAt } = useForm();
  const helpId = `${idBase}-${pathId(path)}-help`;
  const items = (getIn(root, path) as unknown[] | undefined) ?? [];
  const addRef = useRef<HTMLButtonElement>(null);
  return (
    <fieldset className="arg-array" data-testid={pathTestId(path)} aria-describedby={typeof schema.description === 'string' ? helpId : undefined}>
      <legend>
        <Label label={label} required={required} />
      </legend>
      <Help id={helpId} schema={schema} />
      <FieldIssues id={`${idBase}-${pathId(path)}-issues`} list={issuesAt(toPointer(path))} />
      {items.length === 0 && <p className="muted">{s.args.emptyList}</p>}
      {items.map((_, i) => (
        <Field
          key={i}
          schema={schema.items}
          path={[...path, i]}
          label={s.args.item(label, i)}
          required
          depth={depth + 1}
          onRemove={() => {
            remove(path, i);
            // Focus would fall to the page: keep it in the list.
            addRef.current?.focus();
          }}
        />
      ))}
      <div className="form-actions">
        <button ref={addRef} type="button" data-testid={`${pathTestId(path)}-add`} onClick={() => set([...path, items.length], newItem(schema.items, schemaRoot, depth + 1))}>
          {s.args.addItem(label)}
        </button>
        {onRemove && (
          <button type="button" className="arg-remove" onClick={onRemove}>
            {s.args.removeItem(label)}
          </button>
        )}
      </div>
    </fieldset>
  );
}

function JsonField({ schema, path, label, required, onRemove }: ResolvedProps) {
  const { issuesAt } = useForm();
  const { id, helpId, errorId } = useFieldIds(path);
  return (
    <Row onRemove={onRemove} label={label}>
      <JsonBox
        path={path}
        label={label}
        required={required}
        testId={pathTestId(path)}
        invalidKey={`field:${pathId(path)}`}
        errorId={errorId}
        helpId={helpId}
        help={typeof schema.description === 'string' && schema.description.trim() ? `${sentence(schema.description)} ${s.args.jsonValueHelp}` : s.args.jsonValueHelp}
        emptyIs={required ? 'error' : 'undefined'}
        rows={3}
      />
      <FieldIssues id={`${id}-issues`} list={issuesAt(toPointer(path), true)} />
    </Row>
  );
}
