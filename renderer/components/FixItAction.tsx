/**
 * The one-click fix under a failed tool run (the tester's result, a chat card): for a secret
 * that is not set or not bound to the host, or a host not allowed, a button that opens
 * Settings at the right field with the name or host filled in. Nothing when the error has no
 * such fix.
 */
import type { ErrorInfo } from '../../shared/errors';
import { resultStrings as s } from '../i18n/result-strings';
import { useUi } from '../stores/ui';
import { fixItFor, useSettingsRequest } from './fix-it';

export function FixItAction({ error }: { error: Pick<ErrorInfo, 'code' | 'message' | 'details'> }) {
  const fix = fixItFor(error);
  if (!fix) return null;
  const label =
    fix.kind === 'host' ? s.fixIt.host(fix.entry) : fix.reason === 'unbound' ? s.fixIt.bind(fix.name, fix.hosts.at(-1) ?? '') : s.fixIt.secret(fix.name);
  return (
    <button
      type="button"
      className="fix-it"
      data-testid="fix-it"
      title={s.fixIt.help}
      onClick={() => {
        useSettingsRequest.getState().send(fix);
        useUi.getState().go('settings');
      }}
    >
      {label}
    </button>
  );
}
