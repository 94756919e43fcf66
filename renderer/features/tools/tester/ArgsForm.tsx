/**
 * The arguments form, generated from a tool's argSchema: strings (enum → select), numbers,
 * booleans, nested objects and arrays; anything else is edited as JSON in place. A toggle
 * switches the whole form to one JSON box editing the same value. Invalid JSON anywhere
 * is shown inline and reported through onValidityChange, so the caller can disable Run.
 */
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { testerStrings as s } from '../../../i18n/tester-strings';
import { fieldKind, fits, getIn, isPlainObject, newItem, pathId, pathTestId, removeAt, requiredOf, resolveSchema, setIn, type Path, type Schema } from './schema-form';
import { FormCtx, JsonBox, Label, NumberInput, useForm, type FormContext } from './text-boxes';

export interface ArgsFormProps {
  schema: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  /** False while some JSON box holds text that does not parse. */
  onValidityChange?: (valid: boolean) => void;
}

export function ArgsForm({ schema, value, onChange, onValidityChange }: ArgsFormProps) {
  const idBase = useId();
  const [jsonMode, setJsonMode] = useState(false);
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(new Set());

  // The latest value, so a field's change never writes into a stale copy.
  const latest = useRef(value);
  latest.current = value;
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

  const ctx: FormContext = { root: value, schemaRoot: schema, idBase, set, remove, markInvalid };
  const toggleBlocked = jsonMode && invalid.has('json-mode');

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
  const kind = fieldKind(sub, props.depth);
  const outsideEnum = kind === 'enum' && v !== undefined && !(sub!.enum as unknown[]).some((o) => JSON.stringify(o) === JSON.stringify(v));
  if (!sub || !fits(kind, v) || outsideEnum) return <JsonField {...props} schema={sub ?? {}} />;
  switch (kind) {
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
  const { root, set } = useForm();
  const { id, helpId } = useFieldIds(path);
  const v = getIn(root, path);
  const hasHelp = typeof schema.description === 'string' || schema.default !== undefined;
  const common = {
    id,
    'data-testid': pathTestId(path),
    'aria-required': required || undefined,
    'aria-describedby': hasHelp ? helpId : undefined,
    placeholder: schema.default === undefined ? undefined : String(typeof schema.default === 'string' ? schema.default : JSON.stringify(schema.default)),
  };
  const text = typeof v === 'string' ? v : '';
  // An empty optional string is left out; an empty required one (or an array item) is sent as "".
  const onText = (next: string) => set(path, next === '' && !required ? undefined : next);
  const control =
    kind === 'number' || kind === 'integer' ? (
      <NumberInput {...common} path={path} />
    ) : kind === 'text' ? (
      <textarea {...common} rows={3} value={text} onChange={(e) => onText(e.target.value)} />
    ) : (
      <input {...common} type="text" value={text} maxLength={typeof schema.maxLength === 'number' ? schema.maxLength : undefined} onChange={(e) => onText(e.target.value)} />
    );
  return (
    <Row onRemove={onRemove} label={label}>
      <Label htmlFor={id} label={label} required={required} />
      {control}
      <Help id={helpId} schema={schema} extra={defaultHint(schema)} />
    </Row>
  );
}

function BooleanField({ schema, path, label, required, onRemove }: ResolvedProps) {
  const { root, set } = useForm();
  const { id, helpId } = useFieldIds(path);
  const v = getIn(root, path);
  const checked = typeof v === 'boolean' ? v : schema.default === true;
  return (
    <Row onRemove={onRemove} label={label}>
      <div className="inline-check">
        <input
          id={id}
          type="checkbox"
          data-testid={pathTestId(path)}
          checked={checked}
          aria-describedby={typeof schema.description === 'string' ? helpId : undefined}
          onChange={(e) => set(path, e.target.checked)}
        />
        <Label htmlFor={id} label={label} required={required} />
      </div>
      <Help id={helpId} schema={schema} extra={v === undefined ? defaultHint(schema) : undefined} />
    </Row>
  );
}

function EnumField({ schema, path, label, required, onRemove }: ResolvedProps) {
  const { root, set } = useForm();
  const { id, helpId } = useFieldIds(path);
  const options = schema.enum as unknown[];
  const v = getIn(root, path);
  const selected = v === undefined ? -1 : options.findIndex((o) => JSON.stringify(o) === JSON.stringify(v));
  const hint = defaultHint(schema);
  return (
    <Row onRemove={onRemove} label={label}>
      <Label htmlFor={id} label={label} required={required} />
      <select
        id={id}
        data-testid={pathTestId(path)}
        aria-required={required || undefined}
        aria-describedby={typeof schema.description === 'string' ? helpId : undefined}
        value={selected < 0 ? '' : String(selected)}
        onChange={(e) => set(path, e.target.value === '' ? undefined : structuredClone(options[Number(e.target.value)]))}
      >
        {(selected < 0 || !required) && <option value="">{hint ? `${s.args.notSet} ${hint}` : s.args.notSet}</option>}
        {options.map((o, i) => (
          <option key={i} value={String(i)}>
            {typeof o === 'string' ? o : JSON.stringify(o)}
          </option>
        ))}
      </select>
      <Help id={helpId} schema={schema} />
    </Row>
  );
}

function ObjectField({ schema, path, label, required, depth, onRemove }: ResolvedProps) {
  const { idBase } = useForm();
  const helpId = `${idBase}-${pathId(path)}-help`;
  return (
    <fieldset className="arg-object" data-testid={pathTestId(path)} aria-describedby={typeof schema.description === 'string' ? helpId : undefined}>
      <legend>
        <Label label={label} required={required} />
      </legend>
      <Help id={helpId} schema={schema} />
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
  const { root, set, remove, idBase, schemaRoot } = useForm();
  const helpId = `${idBase}-${pathId(path)}-help`;
  const items = (getIn(root, path) as unknown[] | undefined) ?? [];
  const addRef = useRef<HTMLButtonElement>(null);
  return (
    <fieldset className="arg-array" data-testid={pathTestId(path)} aria-describedby={typeof schema.description === 'string' ? helpId : undefined}>
      <legend>
        <Label label={label} required={required} />
      </legend>
      <Help id={helpId} schema={schema} />
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
  const { helpId, errorId } = useFieldIds(path);
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
    </Row>
  );
}
