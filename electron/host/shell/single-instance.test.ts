import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { focusFirstWindow, profileDirFor, type FocusableWindow } from './single-instance';

function fakeWindow(s: { destroyed?: boolean; minimized?: boolean; visible?: boolean }) {
  const calls: string[] = [];
  const w: FocusableWindow = {
    isDestroyed: () => s.destroyed ?? false,
    isMinimized: () => s.minimized ?? false,
    restore: () => void calls.push('restore'),
    isVisible: () => s.visible ?? true,
    show: () => void calls.push('show'),
    focus: () => void calls.push('focus'),
  };
  return { w, calls };
}

describe('single instance', () => {
  it('brings the first window forward on a second launch: restored if minimized, shown if hidden', () => {
    const minimized = fakeWindow({ minimized: true });
    expect(focusFirstWindow([minimized.w])).toBe(true);
    expect(minimized.calls).toEqual(['restore', 'focus']);

    const hidden = fakeWindow({ visible: false });
    focusFirstWindow([hidden.w]);
    expect(hidden.calls).toEqual(['show', 'focus']);
  });

  it('skips a destroyed window, and does nothing before the first window exists', () => {
    const gone = fakeWindow({ destroyed: true });
    const open = fakeWindow({});
    expect(focusFirstWindow([gone.w, open.w])).toBe(true);
    expect([gone.calls, open.calls]).toEqual([[], ['focus']]);
    expect(focusFirstWindow([])).toBe(false);
  });

  it('keeps one lock per data folder: its own profile for a data folder of its own, Electron’s for the default', () => {
    const userData = path.resolve('/home/ada/.config/Toolsmith');
    expect(profileDirFor(userData, userData)).toBeUndefined();
    expect(profileDirFor(path.resolve('/tmp/e2e-1'), userData)).toBe(path.join(path.resolve('/tmp/e2e-1'), 'electron-profile'));
    expect(profileDirFor(path.resolve('/tmp/e2e-1'), userData)).not.toBe(profileDirFor(path.resolve('/tmp/e2e-2'), userData));
  });
});
