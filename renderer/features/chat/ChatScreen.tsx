import { EmptyState } from '../../components/EmptyState';
import { t } from '../../i18n/strings';

export function ChatScreen() {
  return (
    <section className="screen" aria-labelledby="chat-title" data-testid="screen-chat">
      <header className="screen-header">
        <h1 id="chat-title">{t.chat.title}</h1>
      </header>
      <EmptyState title={t.chat.emptyTitle} testId="chat-empty">
        {t.chat.emptyBody}
      </EmptyState>
    </section>
  );
}
