import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useOp, useOpMutation } from '../../api/hooks';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { formStrings } from '../../i18n/form-strings';
import { useSettingsRequest } from '../../components/fix-it';
import { t } from '../../i18n/strings';
import { keepInView } from './SettingsNav';

const splitHosts = (text: string) =>
  text
    .split(/[,\s]+/)
    .map((h) => h.trim())
    .filter(Boolean);

/** Secrets: names and hosts are listed; values go in once and never come back. */
export function SecretsSection() {
  const secrets = useOp('secrets.list', {});
  const save = useOpMutation('secrets.set');
  const remove = useOpMutation('secrets.delete');
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [hosts, setHosts] = useState('');
  const [savedName, setSavedName] = useState<string | null>(null);
  const valueRef = useRef<HTMLInputElement>(null);
  const stopKeeping = useRef<(() => void) | null>(null);

  // Sent here by a run that lacked this secret (or sent it to a host it is not bound to): its name and hosts filled in, the value to type.
  const requested = useSettingsRequest((r) => r.request?.kind === 'secret');
  useEffect(() => {
    if (!requested) return;
    const fix = useSettingsRequest.getState().take('secret');
    if (!fix) return;
    setName(fix.name);
    setHosts(fix.hosts.join(', '));
    setValue('');
    setSavedName(null);
    const field = valueRef.current;
    if (!field) return;
    field.focus({ preventScroll: true });
    stopKeeping.current?.();
    stopKeeping.current = keepInView(field);
  }, [requested]);
  useEffect(() => () => stopKeeping.current?.(), []);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setSavedName(null);
    save.mutate(
      { name: name.trim(), value, hosts: splitHosts(hosts) },
      {
        onSuccess: (s) => {
          setSavedName(s.name);
          setName('');
          setValue('');
          setHosts('');
          void secrets.refetch();
        },
      },
    );
  };

  return (
    <section className="secrets" aria-labelledby="secrets-title">
      <h2 id="secrets-title">{t.settings.secrets}</h2>
      <p className="help">{t.settings.secretsHelp}</p>
      {secrets.error && <QueryError error={secrets.error} onRetry={() => void secrets.refetch()} />}
      {secrets.data?.length === 0 && <p className="muted">{t.settings.noSecrets}</p>}
      <ul className="secret-list" data-testid="secret-list">
        {secrets.data?.map((s) => (
          <li key={s.name} data-testid={`secret-${s.name}`}>
            <code>{s.name}</code> <span className="muted">{t.settings.boundTo}</span> {s.hosts.join(', ')}
            <ConfirmButton
              aria-label={t.settings.deleteSecret(s.name)}
              question={t.settings.confirmDelete(s.name)}
              confirmLabel={formStrings.confirm.delete}
              onConfirm={() => remove.mutate({ name: s.name }, { onSuccess: () => void secrets.refetch() })}
            >
              ✕
            </ConfirmButton>
          </li>
        ))}
      </ul>
      <form className="secret-form" onSubmit={onSubmit} aria-label={t.settings.addSecret}>
        <label htmlFor="secret-name">{t.settings.secretName}</label>
        <input id="secret-name" data-testid="secret-name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" required />
        <label htmlFor="secret-value">{t.settings.secretValue}</label>
        <input ref={valueRef} id="secret-value" data-testid="secret-value" type="password" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" required />
        <label htmlFor="secret-hosts">{t.settings.secretHosts}</label>
        <input id="secret-hosts" data-testid="secret-hosts" value={hosts} placeholder="api.example.com" onChange={(e) => setHosts(e.target.value)} required />
        <div className="form-actions">
          <button type="submit" className="primary" data-testid="secret-save" disabled={save.isPending}>
            {t.settings.addSecret}
          </button>
          {savedName && (
            <span className="status-ok" role="status">
              {t.settings.secretSaved(savedName)}
            </span>
          )}
        </div>
        {(save.error ?? remove.error) && (
          <FieldError role="alert" data-testid="secret-error">
            {(save.error ?? remove.error)!.message}
          </FieldError>
        )}
      </form>
    </section>
  );
}
