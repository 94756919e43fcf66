import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../core/testing/temp-dir';
import {
  DEFAULT_SIZE,
  MIN_SIZE,
  captureWindowState,
  loadWindowState,
  parseWindowState,
  placeWindow,
  saveWindowState,
  windowStatePath,
  type Rect,
  type WindowState,
} from './window-state';

const tempDir = useTempDirs();

// Work areas: a laptop screen with a menu bar, and a larger monitor to its right.
const LAPTOP: Rect = { x: 0, y: 25, width: 1440, height: 875 };
const MONITOR: Rect = { x: 1440, y: 0, width: 2560, height: 1440 };
const state = (x: number, y: number, width: number, height: number, maximized = false): WindowState => ({ bounds: { x, y, width, height }, maximized });

describe('parseWindowState', () => {
  it('takes a saved state as it was written', () => {
    expect(parseWindowState({ bounds: { x: -1200, y: 40, width: 1000, height: 700 }, maximized: true })).toEqual(state(-1200, 40, 1000, 700, true));
  });

  it('refuses anything that is not a state: no bounds, a string, NaN, a negative or absurd size', () => {
    for (const bad of [
      null,
      'x',
      [],
      {},
      { bounds: { x: 0, y: 0, width: 800, height: 600 } },
      { bounds: { x: 0, y: 0, width: 800, height: 600 }, maximized: 'yes' },
      { bounds: { x: '0', y: 0, width: 800, height: 600 }, maximized: false },
      { bounds: { x: 0, y: 0, width: Number.NaN, height: 600 }, maximized: false },
      { bounds: { x: 0, y: 0, width: -5, height: 600 }, maximized: false },
      { bounds: { x: 0, y: 0, width: 0, height: 600 }, maximized: false },
      { bounds: { x: 0.5, y: 0, width: 800, height: 600 }, maximized: false },
      { bounds: { x: 1e9, y: 0, width: 800, height: 600 }, maximized: false },
      { bounds: null, maximized: false },
    ]) {
      expect(parseWindowState(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});

describe('placeWindow', () => {
  it('opens a first window at the default size, centred on the primary display', () => {
    const p = placeWindow(null, [LAPTOP, MONITOR], LAPTOP);
    expect(p).toEqual({ bounds: { x: 80, y: 25 + 28, width: DEFAULT_SIZE.width, height: DEFAULT_SIZE.height }, maximized: false });
  });

  it('opens where it was when that place is still on a display, maximized if it was', () => {
    expect(placeWindow(state(2000, 100, 1200, 900), [LAPTOP, MONITOR], LAPTOP)).toEqual({ bounds: { x: 2000, y: 100, width: 1200, height: 900 }, maximized: false });
    expect(placeWindow(state(100, 60, 1000, 700, true), [LAPTOP, MONITOR], LAPTOP).maximized).toBe(true);
  });

  it('moves a window that hung over a display’s edge back onto it, whole', () => {
    // mostly on the monitor, its right part past the monitor's right edge
    expect(placeWindow(state(3500, 100, 1000, 800), [LAPTOP, MONITOR], LAPTOP).bounds).toEqual({ x: 4000 - 1000, y: 100, width: 1000, height: 800 });
    // its title bar above the top of the laptop's work area (under the menu bar)
    expect(placeWindow(state(100, -300, 1000, 700), [LAPTOP, MONITOR], LAPTOP).bounds).toEqual({ x: 100, y: 25, width: 1000, height: 700 });
  });

  it('puts a window whose display is gone on the primary display, centred, at its size if it fits', () => {
    // it was on the monitor, which is unplugged now
    expect(placeWindow(state(2000, 100, 1200, 800, true), [LAPTOP], LAPTOP)).toEqual({ bounds: { x: 120, y: 25 + 38, width: 1200, height: 800 }, maximized: true });
    // far off every display
    expect(placeWindow(state(-5000, -5000, 900, 600), [LAPTOP, MONITOR], LAPTOP).bounds).toEqual({ x: 270, y: 25 + 138, width: 900, height: 600 });
  });

  it('counts a window with only a sliver on a display as off it', () => {
    // 10 px of it on the laptop's left edge
    expect(placeWindow(state(-990, 100, 1000, 700), [LAPTOP], LAPTOP).bounds).toEqual({ x: 220, y: 25 + 88, width: 1000, height: 700 });
  });

  it('shrinks a window larger than its display to the display, never below the minimum while it fits', () => {
    const small: Rect = { x: 0, y: 0, width: 1024, height: 600 };
    expect(placeWindow(state(0, 0, 2500, 1400), [small], small).bounds).toEqual({ x: 0, y: 0, width: 1024, height: 600 });
    expect(placeWindow(state(10, 10, 300, 200), [small], small).bounds).toEqual({ x: 10, y: 10, width: MIN_SIZE.width, height: MIN_SIZE.height });
    // a display smaller than the minimum: the display's size
    const tiny: Rect = { x: 0, y: 0, width: 640, height: 480 };
    expect(placeWindow(state(0, 0, 1000, 700), [tiny], tiny).bounds).toEqual(tiny);
  });

  it('places onto the display that holds most of the window', () => {
    // 300 px on the laptop, 900 px on the monitor
    const p = placeWindow(state(1140, 100, 1200, 700), [LAPTOP, MONITOR], LAPTOP);
    expect(p.bounds).toEqual({ x: 1440, y: 100, width: 1200, height: 700 });
  });
});

describe('capture, save and load', () => {
  const win = (b: Rect, maximized: boolean, fullScreen = false) => ({ getNormalBounds: () => b, isMaximized: () => maximized, isFullScreen: () => fullScreen });

  it('captures the bounds the window has when not maximized, rounded, and saves full screen as maximized', () => {
    expect(captureWindowState(win({ x: 10.4, y: 20.6, width: 1000, height: 700 }, true))).toEqual(state(10, 21, 1000, 700, true));
    expect(captureWindowState(win({ x: 0, y: 0, width: 900, height: 600 }, false, true)).maximized).toBe(true);
    expect(captureWindowState(win({ x: 0, y: 0, width: 900, height: 600 }, false)).maximized).toBe(false);
  });

  it('saves to window-state.json in the data folder and loads the same state back', async () => {
    const dir = await tempDir();
    const file = windowStatePath(dir);
    expect(path.basename(file)).toBe('window-state.json');
    expect(await loadWindowState(file)).toBeNull();
    await saveWindowState(file, state(-1200, 40, 1000, 700, true));
    expect(await loadWindowState(file)).toEqual(state(-1200, 40, 1000, 700, true));
  });

  it('loads a broken or foreign file as no state (the default window), without throwing', async () => {
    const dir = await tempDir();
    const file = windowStatePath(dir);
    for (const text of ['', '{"bounds": ', '{"bounds": {"x": 0}, "maximized": false}', '[1,2]']) {
      await fs.writeFile(file, text);
      expect(await loadWindowState(file), text).toBeNull();
    }
  });

  it('keeps the previous state when a save fails before it is committed', async () => {
    const dir = await tempDir();
    const file = windowStatePath(dir);
    await saveWindowState(file, state(1, 2, 900, 600));
    const failing = { ...fs, rename: async () => Promise.reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' })) };
    await expect(saveWindowState(file, state(5, 6, 1000, 700), { fs: failing as typeof fs })).rejects.toThrow(/disk full/);
    expect(await loadWindowState(file)).toEqual(state(1, 2, 900, 600));
    expect((await fs.readdir(dir)).sort()).toEqual(['window-state.json']);
  });
});
