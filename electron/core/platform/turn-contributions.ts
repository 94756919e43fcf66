import type { ToolCard } from '../../../shared/model/conversation';

/**
 * What a feature adds to every model turn, read by the agent at each step (the agent names
 * no feature): text after the system text, and how an earlier batch's card is shown.
 */
export interface TurnContribution {
  /** Text given after the system text on every step (memory: the pinned blocks), or undefined. */
  context?(conversationId: string): string | undefined;
  /** What a later batch (turn) is told instead of a card an earlier one loaded, or undefined to show it whole. */
  earlierLoad?(card: ToolCard): string | undefined;
}
