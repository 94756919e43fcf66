/**
 * The palette's Output and write mode start from what the composer's `@tools` lines say
 * for the picked tool (the last `output=` given for a tool wins: docs/design/routing.md), else
 * inline.
 */
import type { AggregatedTool } from '../../../shared/directives/types';
import { formatDestinationValue } from '../../../shared/directives/parser';
import type { WriteMode } from '../../../shared/model/routing';

export interface RouteDefaults {
  /** A destination as typed (`variable:results`); empty means inline. */
  output: string;
  writeMode: WriteMode;
}

/**
 * The `@tools` entry naming this tool: `bundleSlug/slug` for its own bundle first, then the
 * bare slug, then any bundle-qualified name with that slug.
 */
export function toolEntryFor(tools: readonly AggregatedTool[], slug: string, bundleSlug?: string): AggregatedTool | undefined {
  const named = (name: string) => tools.filter((t) => t.name === name).at(-1);
  return (
    (bundleSlug !== undefined ? named(`${bundleSlug}/${slug}`) : undefined) ??
    named(slug) ??
    tools.filter((t) => t.name.endsWith(`/${slug}`) && t.name.indexOf('/') === t.name.length - slug.length - 1).at(-1)
  );
}

export function routeDefaultsFor(tools: readonly AggregatedTool[], slug: string, bundleSlug?: string): RouteDefaults {
  const entry = toolEntryFor(tools, slug, bundleSlug);
  const output = entry?.output && entry.output.kind !== 'inline' ? formatDestinationValue(entry.output) : '';
  return { output, writeMode: entry?.writeMode ?? 'append' };
}
