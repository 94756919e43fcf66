import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRIPT_SETTINGS } from '../../../shared/model/script-tool';
import { fromScriptSettingsDraft, scriptSettingsFieldOf, toScriptSettingsDraft } from './script-settings-draft';

describe('Settings → Script tools as typed', () => {
  it('goes to text and back', () => {
    const d = toScriptSettingsDraft(DEFAULT_SCRIPT_SETTINGS);
    expect(d).toEqual({ timeLimitMs: '5000', memoryLimitMb: '64', maxOutputBytes: '1048576' });
    expect(fromScriptSettingsDraft(d)).toEqual(DEFAULT_SCRIPT_SETTINGS);
  });

  it('sends an empty box as NaN, for the core to refuse with the field’s bounds', () => {
    expect(fromScriptSettingsDraft({ timeLimitMs: ' ', memoryLimitMb: '32', maxOutputBytes: '2048' }).timeLimitMs).toBeNaN();
  });

  it('finds the box a refusal is about', () => {
    expect(scriptSettingsFieldOf('scriptTools.timeLimitMs')).toBe('timeLimitMs');
    expect(scriptSettingsFieldOf('scriptTools/maxOutputBytes')).toBe('maxOutputBytes');
    expect(scriptSettingsFieldOf('body.scriptTools.memoryLimitMb')).toBe('memoryLimitMb');
    expect(scriptSettingsFieldOf('toolSearch.maxTools')).toBeNull();
  });
});
