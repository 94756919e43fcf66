/** Names the creators of documents as a person reads them: "you", conversations by their titles. */
import { useMemo } from 'react';
import { useOp } from '../../api/hooks';
import { documentsStrings as s } from '../../i18n/documents-strings';
import { creatorLabel } from './document-filters';

export function useCreatorLabel(): (who: string) => string {
  const conversations = useOp('conversations.list', {});
  const titles = useMemo(() => new Map((conversations.data ?? []).map((c) => [c.id, c.title])), [conversations.data]);
  return (who: string) => creatorLabel(who, titles, s.who);
}
