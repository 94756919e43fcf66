/**
 * After an OpenAPI import: the secrets the new tools refer to (openapi-secrets.ts), each one
 * not yet saved with a box for its value and a Save button (secrets.set, bound to the hosts
 * of the tools that use it), so the first run does not fail on a missing secret. The value is
 * never shown again: a saved secret is listed by name.
 *
 *   <ImportSecrets needs={secretsNeeded(createdTools)} />
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { callOrThrow } from '../../../api/client';
import { useApi, useOp } from '../../../api/hooks';
import { FieldError } from '../../../components/Field';
import { importStrings as s } from '../../../i18n/import-strings';
import { BusyButton } from '../BusyButton';
import type { SecretNeed } from './openapi-secrets';

const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function ImportSecrets({ needs }: { needs: readonly SecretNeed[] }) {
  const id = useId();
  const saved = useOp('secrets.list', {});
  if (needs.length === 0) return null;
  const have = new Set((saved.data ?? []).map((x) => x.name));
  const hosts = [...new Set(needs.flatMap((n) => n.hosts))].join(', ');
  return (
    <section className="import-secrets" aria-labelledby={`${id}-title`} data-testid="openapi-secrets">
      <h4 id={`${id}-title`}>{s.openapi.secretsTitle}</h4>
      <p className="help">{s.openapi.secretsHelp(hosts)}</p>
      <ul>
        {needs.map((need) => (
          <li key={need.name}>
            {have.has(need.name) ? (
              <p className="status-ok" role="status" data-testid={`openapi-secret-saved-${need.name}`}>
                {s.openapi.secretSaved(need.name)} <span className="muted">{s.openapi.secretSettings}</span>
              </p>
            ) : (
              <SecretForm need={need} />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function SecretForm({ need }: { need: SecretNeed }) {
  const id = useId();
  const { client } = useApi();
  const qc = useQueryClient();
  const [value, setValue] = useState('');
  // A tool whose host is a template ({tenant}, ${baseUrl}) names none: the person says where the secret may go.
  const [hostsText, setHostsText] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (saving) return;
    if (value === '') return setError(s.openapi.secretEmpty);
    const hosts = need.hosts.length > 0 ? need.hosts : hostsText.split(/[\s,]+/).filter(Boolean);
    if (hosts.length === 0) return setError(s.openapi.secretHostsEmpty);
    setSaving(true);
    setError(null);
    try {
      await callOrThrow(client, 'secrets.set', { name: need.name, value, hosts });
      setValue('');
      await qc.invalidateQueries({ queryKey: ['secrets.list'] });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="import-secret" onSubmit={(e) => void submit(e)}>
      <label htmlFor={`${id}-value`}>
        <code>{need.name}</code> <span className="muted">({s.openapi.secretUsedBy(need.tools.length)})</span>
      </label>
      <input
        id={`${id}-value`}
        type="password"
        autoComplete="off"
        spellCheck={false}
        data-testid={`openapi-secret-${need.name}`}
        aria-label={s.openapi.secretLabel(need.name)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      {need.hosts.length === 0 && (
        <>
          <label htmlFor={`${id}-hosts`}>{s.openapi.secretHosts}</label>
          <input id={`${id}-hosts`} type="text" spellCheck={false} placeholder="api.example.com" data-testid={`openapi-secret-hosts-${need.name}`} value={hostsText} onChange={(e) => setHostsText(e.target.value)} />
        </>
      )}
      <BusyButton submit className="primary" data-testid={`openapi-secret-save-${need.name}`} unavailable={saving}>
        {saving ? s.openapi.secretSaving : s.openapi.secretSave}
      </BusyButton>
      {error && (
        <FieldError role="alert" id={`${id}-error`}>
          {error}
        </FieldError>
      )}
    </form>
  );
}
