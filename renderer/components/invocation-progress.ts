/**
 * A running call's progress as the window keeps and shows it: the latest report of each call
 * (the core sends at most ten a second per call), for the last MAX_KEPT calls, and what a
 * progress bar shows for one: determinate when the report gives a total, with its words.
 */
import { create } from 'zustand';
import type { InvocationProgress } from '../../shared/model/invocation';
import { t } from '../i18n/strings';

/** How many calls' latest reports are kept (the oldest are forgotten first). */
export const MAX_KEPT = 100;

/** The reports with `p` as its call's latest (moved to the newest place), the oldest forgotten past MAX_KEPT. */
export function withReport(reports: ReadonlyMap<string, InvocationProgress>, p: InvocationProgress, max = MAX_KEPT): Map<string, InvocationProgress> {
  const next = new Map(reports);
  next.delete(p.invocationId);
  next.set(p.invocationId, p);
  for (const id of next.keys()) {
    if (next.size <= max) break;
    next.delete(id);
  }
  return next;
}

/** What a progress bar shows: `value` and `max` when the total is known (else it is indeterminate), its words, and the server's message. */
export interface ProgressView {
  value?: number;
  max?: number;
  percent?: number;
  text: string;
  message?: string;
}

export function progressView(p: Pick<InvocationProgress, 'progress' | 'total' | 'message'>): ProgressView {
  const message = p.message ? { message: p.message } : {};
  if (p.total === undefined || !(p.total > 0)) return { text: t.progress.soFar(amount(p.progress)), ...message };
  const value = Math.min(Math.max(p.progress, 0), p.total);
  const percent = Math.floor((value / p.total) * 100);
  return { value, max: p.total, percent, text: t.progress.ofTotal(amount(value), amount(p.total), percent), ...message };
}

/** A count as words: whole numbers as they are, fractions to two places. */
function amount(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}

interface ProgressState {
  reports: ReadonlyMap<string, InvocationProgress>;
  report(p: InvocationProgress): void;
}

/** The latest report of each running call, fed by the `invocation.progress` event (useInvocationProgressFeed). */
export const useInvocationProgress = create<ProgressState>((set) => ({
  reports: new Map(),
  report: (p) => set((st) => ({ reports: withReport(st.reports, p) })),
}));
