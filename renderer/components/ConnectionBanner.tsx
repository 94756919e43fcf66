import { useConnectionState } from '../api/hooks';
import { t } from '../i18n/strings';

export function ConnectionBanner() {
  const state = useConnectionState();
  if (state === 'open') return null;
  const text = state === 'signed-out' ? t.connection.signedOut : state === 'closed' ? t.connection.lost : t.connection.connecting;
  return (
    <div className={`banner banner-${state}`} role="status" data-testid="connection-banner">
      {text}
    </div>
  );
}
