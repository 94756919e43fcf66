/**
 * The worker of ./safe-regex.ts, a worker-thread entry (started through ./worker-entry.ts;
 * the build emits it as safe-regex-worker.cjs beside the bundle). It receives a RegexJob and
 * answers a RegexReply: `{ ok: true, value }` (a GrepResult or an ExtractResult) or
 * `{ ok: false, message }`. It imports nothing but Node's modules (and types).
 *
 * Lines are split on '\n' (a '\r' before it is dropped); a trailing newline does not make an
 * extra empty line.
 */
import { parentPort } from 'node:worker_threads';
import type { ExtractResult, GrepMatch, GrepResult, RegexJob } from './safe-regex';

export type RegexReply = { ok: true; value: GrepResult | ExtractResult } | { ok: false; message: string };

type GrepJob = Extract<RegexJob, { kind: 'grep' }>;
type ExtractJob = Extract<RegexJob, { kind: 'extract' }>;

function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut + '…';
}

export function grep(job: GrepJob): GrepResult {
  const re = new RegExp(job.pattern, job.flags.replace(/[gy]/g, ''));
  const matches: GrepMatch[] = [];
  for (const f of job.files) {
    const t = f.text;
    let start = 0;
    let line = 1;
    while (start < t.length) {
      let end = t.indexOf('\n', start);
      if (end < 0) end = t.length;
      let s = t.slice(start, end);
      if (s.endsWith('\r')) s = s.slice(0, -1);
      if (re.test(s)) {
        if (matches.length >= job.maxMatches) return { matches, more: true };
        matches.push({ path: f.path, line, text: clip(s, job.maxLineChars) });
      }
      start = end + 1;
      line++;
    }
  }
  return { matches, more: false };
}

export function extract(job: ExtractJob): ExtractResult {
  const flags = job.flags.replace(/[gy]/g, '') + 'g';
  const re = new RegExp(job.pattern, flags);
  const unicode = flags.includes('u') || flags.includes('v');
  const matches: string[] = [];
  let chars = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(job.text)) !== null) {
    if (m[0] === '') {
      const i = re.lastIndex;
      const c = job.text.charCodeAt(i);
      re.lastIndex = i + (unicode && c >= 0xd800 && c <= 0xdbff ? 2 : 1);
    }
    const v = typeof job.group === 'number' ? m[job.group] : m.groups?.[job.group];
    const s = v ?? '';
    if (matches.length >= job.maxMatches || chars + s.length > job.maxChars) return { matches, truncated: true };
    chars += s.length;
    matches.push(s);
    if (re.lastIndex > job.text.length) break;
  }
  return { matches, truncated: false };
}

function reply(job: RegexJob): RegexReply {
  try {
    return { ok: true, value: job.kind === 'grep' ? grep(job) : extract(job) };
  } catch (e) {
    const err = e as { message?: unknown } | null | undefined;
    return { ok: false, message: err?.message ? String(err.message) : String(e) };
  }
}

parentPort?.on('message', (job: RegexJob) => parentPort!.postMessage(reply(job)));
