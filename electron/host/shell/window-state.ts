/**
 * The main window's size, position and maximized state, kept across launches in
 * `window-state.json` in the data folder. Pure functions (parse, place on the displays there
 * are now, capture) and an atomic save; main.ts only passes Electron's values in.
 */
import path from 'node:path';
import { writeFileAtomic, type AtomicWriteOptions } from '../../core/lib/atomic-write';
import { readJson } from '../../core/lib/json-file';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  /** The window's bounds when not maximized (Electron's getNormalBounds). */
  bounds: Rect;
  maximized: boolean;
}

export interface Placement {
  bounds: Rect;
  maximized: boolean;
}

export const WINDOW_STATE_FILE = 'window-state.json';
export const DEFAULT_SIZE = { width: 1280, height: 820 };
export const MIN_SIZE = { width: 800, height: 520 };
/** A window counts as on a display when at least this much of it (px, each way) is on one. */
export const MIN_VISIBLE = 64;
/** Larger than any display there is: a number past it is a broken file, not a window. */
const MAX_COORDINATE = 100_000;

export function windowStatePath(dataDir: string): string {
  return path.join(dataDir, WINDOW_STATE_FILE);
}

const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** A saved state, or null when the value is not one (a missing field, a NaN, a negative size). */
export function parseWindowState(value: unknown): WindowState | null {
  if (typeof value !== 'object' || value === null) return null;
  const { bounds, maximized } = value as { bounds?: unknown; maximized?: unknown };
  if (typeof bounds !== 'object' || bounds === null || typeof maximized !== 'boolean') return null;
  const { x, y, width, height } = bounds as Record<string, unknown>;
  if (!isInt(x, -MAX_COORDINATE, MAX_COORDINATE) || !isInt(y, -MAX_COORDINATE, MAX_COORDINATE)) return null;
  if (!isInt(width, 1, MAX_COORDINATE) || !isInt(height, 1, MAX_COORDINATE)) return null;
  return { bounds: { x, y, width, height }, maximized };
}

function overlap(a: Rect, b: Rect): { w: number; h: number } {
  return {
    w: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)),
    h: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)),
  };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), Math.max(lo, hi));

function centred(size: { width: number; height: number }, area: Rect): Rect {
  const width = clamp(size.width, Math.min(MIN_SIZE.width, area.width), area.width);
  const height = clamp(size.height, Math.min(MIN_SIZE.height, area.height), area.height);
  return {
    x: area.x + Math.round((area.width - width) / 2),
    y: area.y + Math.round((area.height - height) / 2),
    width,
    height,
  };
}

/**
 * Where the window opens, given the saved state and the work areas of the displays connected
 * now (`primary` is also one of `displays`). A window that was on a display still there
 * opens where it was, moved and shrunk just enough to be whole on that display; one whose
 * display is gone (or that was almost all off-screen) opens centred on the primary display,
 * at its saved size if it fits. No saved state: the default size, centred.
 */
export function placeWindow(saved: WindowState | null, displays: readonly Rect[], primary: Rect): Placement {
  if (!saved) return { bounds: centred(DEFAULT_SIZE, primary), maximized: false };
  let best: Rect | undefined;
  let bestArea = 0;
  for (const d of displays) {
    const o = overlap(saved.bounds, d);
    if (o.w >= Math.min(MIN_VISIBLE, saved.bounds.width) && o.h >= Math.min(MIN_VISIBLE, saved.bounds.height) && o.w * o.h > bestArea) {
      best = d;
      bestArea = o.w * o.h;
    }
  }
  if (!best) return { bounds: centred(saved.bounds, primary), maximized: saved.maximized };
  const width = clamp(saved.bounds.width, Math.min(MIN_SIZE.width, best.width), best.width);
  const height = clamp(saved.bounds.height, Math.min(MIN_SIZE.height, best.height), best.height);
  return {
    bounds: {
      x: clamp(saved.bounds.x, best.x, best.x + best.width - width),
      y: clamp(saved.bounds.y, best.y, best.y + best.height - height),
      width,
      height,
    },
    maximized: saved.maximized,
  };
}

/** The part of a BrowserWindow the state is read from. */
export interface WindowLike {
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  isFullScreen(): boolean;
}

/** The state to save as the window closes (a full-screen window is saved as maximized). */
export function captureWindowState(win: WindowLike): WindowState {
  const b = win.getNormalBounds();
  return {
    bounds: { x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width), height: Math.round(b.height) },
    maximized: win.isMaximized() || win.isFullScreen(),
  };
}

/** The saved state; null when there is none or the file is not one (it is then overwritten at the next close). */
export async function loadWindowState(file: string): Promise<WindowState | null> {
  try {
    const r = await readJson(file);
    return r.kind === 'ok' ? parseWindowState(r.value) : null;
  } catch {
    return null;
  }
}

/** Saves atomically: a crash mid-save leaves the previous state, never half a file. */
export async function saveWindowState(file: string, state: WindowState, opts: Pick<AtomicWriteOptions, 'fs'> = {}): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(state, null, 2) + '\n', opts);
}
