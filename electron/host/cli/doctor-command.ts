/**
 * `toolsmith tools doctor`: the findability report (the `tools.findability` operation,
 * electron/core/tool-search/findability.ts) — the tools a model's tool_search will have trouble
 * finding, and the pairs it cannot tell apart, each with what to change. Like `toolsmith test`,
 * it exits 1 when the report has a high-severity finding, so CI can hold a registry to it.
 */
import type { FindabilityReport, Finding, FindingKind } from '../../../shared/model/findability';
import { FINDING_KINDS } from '../../../shared/model/findability';
import { EXIT, out, outJson, toolRef, withCore, type CommonOptions } from './session';

export interface DoctorOptions extends CommonOptions {
  bundle?: string[];
}

export const KIND_TITLES: Readonly<Record<FindingKind, string>> = {
  'empty-description': 'No description',
  'short-description': 'Descriptions that say too little',
  'vague-name': 'Names that say nothing',
  'hard-to-find': 'Hard to find',
  collision: 'Tools a search cannot tell apart',
};

const name = (t: Finding['tools'][number]) => toolRef(t.bundleSlug, t);

/** The report as text: findings grouped by kind, most severe first in each, and the totals. */
export function doctorText(r: FindabilityReport): string {
  const lines: string[] = [];
  for (const kind of FINDING_KINDS) {
    const found = r.findings.filter((f) => f.kind === kind);
    if (!found.length) continue;
    lines.push(`${KIND_TITLES[kind]} (${found.length})`);
    for (const f of found) {
      lines.push(`  ${f.severity.toUpperCase().padEnd(6)}  ${f.tools.map(name).join(' ↔ ')}`, `          ${f.message}`, `          → ${f.suggestion}`);
    }
    lines.push('');
  }
  const { high, medium, low } = r.counts;
  const total = high + medium + low;
  const scope = `${r.checked} tool${r.checked === 1 ? '' : 's'} checked, ranked among ${r.ranked} (built-in tools included)`;
  lines.push(total === 0 ? `No findings: ${scope}.` : `${total} finding${total === 1 ? '' : 's'} (${high} high, ${medium} medium, ${low} low): ${scope}.`);
  if (r.omitted) lines.push(`${r.omitted} of the least severe findings are left out (--json has the same ones).`);
  return lines.join('\n');
}

export async function toolsDoctor(o: DoctorOptions): Promise<number> {
  return withCore(o, async (s) => {
    const bundleIds: string[] = [];
    for (const n of o.bundle ?? []) {
      const b = await s.bundle(n);
      if (!bundleIds.includes(b.id)) bundleIds.push(b.id);
    }
    const report = await s.call('tools.findability', bundleIds.length ? { bundleIds } : {});
    if (o.json) outJson(report);
    else out(doctorText(report));
    return report.counts.high > 0 ? EXIT.failed : EXIT.ok;
  });
}
