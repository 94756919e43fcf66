/** Usage at a glance: the invocation log's figures per tool, and tool results' tokens per conversation. */
import { USAGE_DAYS } from '../../../shared/model/usage';
import { checkTimeZone, lastDays } from '../lib/day-window';
import type { InvocationLog } from '../invoke/invocation-log';
import { usageStats, usageSummaries } from '../invoke/usage-stats';
import type { Registry } from '../registry/registry';
import type { Handler } from '../router';
import type { ConversationStore } from '../timeline/conversation-store';
import { toolTokenUse } from './tool-tokens';
import { gptCounter, isOpenAiFamily } from '../llm/tokens';

type UsageOps = 'tools.usageSummaries' | 'tools.usageStats' | 'conversations.toolTokens';

export interface UsageHandlerDeps {
  log: InvocationLog;
  registry: Pick<Registry, 'store'>;
  conversations: Pick<ConversationStore, 'get' | 'timeline'>;
  now: () => Date;
  /** The whole text of a stored output given inline (as the model was given it). */
  storedText?: (handle: string) => string | undefined;
}

export function usageHandlers(deps: UsageHandlerDeps): { [N in UsageOps]: Handler<N> } {
  const { log, registry, conversations, now } = deps;
  const window = (timeZone = 'UTC') => ({ timeZone: checkTimeZone(timeZone), days: lastDays(now(), timeZone, USAGE_DAYS) });
  return {
    'tools.usageSummaries': ({ toolIds, timeZone }) => {
      const w = window(timeZone);
      return { timeZone: w.timeZone, items: usageSummaries(log.flushedDb(), toolIds, w.days) };
    },
    'tools.usageStats': ({ bundleId, slug, version, timeZone }) => {
      const tool = registry.store.getTool(bundleId, slug, version);
      const w = window(timeZone);
      return usageStats(log.flushedDb(), tool.id, w.days, w.timeZone);
    },
    'conversations.toolTokens': ({ id }) => {
      const model = conversations.get(id).model?.model;
      const counter = gptCounter(model !== undefined && isOpenAiFamily(model));
      const use = toolTokenUse(conversations.timeline(id), counter, deps.storedText);
      return { ...use, counter: counter.name };
    },
  };
}
