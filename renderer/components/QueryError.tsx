import { t } from '../i18n/strings';

export function QueryError({ error, onRetry }: { error: Error; onRetry?: () => void }) {
  return (
    <div className="error-box" role="alert">
      <strong>{t.errors.loadFailed}:</strong> {error.message}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t.errors.retry}
        </button>
      )}
    </div>
  );
}
