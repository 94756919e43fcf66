/**
 * Every user-visible string of the findability report (renderer/features/tools/findability):
 * which of the user's tools a model's tool search will have trouble finding, and which pairs
 * it cannot tell apart.
 */
import { isOne } from './plural';
import type { FindingKind, FindingSeverity } from '../../shared/model/findability';

const plural = (n: number, one: string, many: string) => `${n} ${isOne(n) ? one : many}`;

export const findabilityStrings = {
  open: 'Findability',
  openLabel: 'Check how findable your tools are for a model’s tool search',
  title: 'Findability',
  intro: 'How a model’s tool search sees your tools: the ones it will have trouble finding, and the pairs it cannot tell apart. Built-in tools are ranked beside yours but not reported on.',
  loading: 'Ranking every tool against its own words…',
  again: 'Check again',
  close: 'Close',
  summary: (total: number, high: number, medium: number, low: number, checked: number, ranked: number) =>
    `${plural(total, 'finding', 'findings')} (${high} high, ${medium} medium, ${low} low) in ${plural(checked, 'tool', 'tools')} of yours, ranked among ${ranked}.`,
  clean: (checked: number, ranked: number) => `No findings: each of your ${plural(checked, 'tool', 'tools')} is found by its own words, and no two read alike (ranked among ${ranked}).`,
  nothingToCheck: 'You have no tools of your own switched on yet: add or import some, then check again.',
  omitted: (n: number) => `${plural(n, 'finding', 'findings')} of the least severe are left out.`,
  kinds: {
    'empty-description': 'No description',
    'short-description': 'Descriptions that say too little',
    'vague-name': 'Names that say nothing',
    'hard-to-find': 'Hard to find',
    collision: 'Tools a search cannot tell apart',
  } satisfies Record<FindingKind, string>,
  severity: { high: 'high', medium: 'medium', low: 'low' } satisfies Record<FindingSeverity, string>,
  severityLabel: (s: FindingSeverity) => `Severity: ${s}`,
  suggestion: 'Suggestion:',
  openTool: (name: string) => `Open ${name} in the editor`,
  builtIn: 'built in',
} as const;
