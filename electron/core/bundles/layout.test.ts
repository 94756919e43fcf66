import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nfc } from '../../../shared/model/validation';
import { isDataFileName, tempFileOwner, tempPathFor, toolFileName } from './layout';

describe('tool file names', () => {
  it('are portable ASCII with a readable hint, whatever the slug', () => {
    expect(toolFileName('readfile', '1.0.0')).toMatch(/^readfile@1\.0\.0\.[0-9a-f]{24}\.json$/);
    expect(toolFileName('読む', 'β')).toMatch(/^@\.[0-9a-f]{24}\.json$/);
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64, unit: 'grapheme' }), fc.string({ minLength: 1, maxLength: 64 }), (s, v) =>
        /^[a-z0-9-]{0,32}@[a-z0-9.-]{0,16}\.[0-9a-f]{24}\.json$/.test(toolFileName(s, v)),
      ),
    );
  });

  it('differ for slugs that differ only in case, so a case-insensitive disk keeps both', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,20}$/), (s) => toolFileName(s, '1').toLowerCase() !== toolFileName(s.toUpperCase(), '1').toLowerCase()),
    );
  });

  it('are the same for NFC-equivalent spellings', () => {
    expect(toolFileName('cafe\u0301', '1')).toBe(toolFileName('caf\u00e9', '1'));
    fc.assert(fc.property(fc.string({ unit: 'grapheme', minLength: 1 }), (s) => toolFileName(s.normalize('NFD'), '1') === toolFileName(nfc(s), '1')));
  });

  it('keep slug and version apart', () => {
    expect(toolFileName('a-1', '2')).not.toBe(toolFileName('a', '1-2'));
  });
});

describe('temp names', () => {
  it('are hidden, carry the pid, and are never loaded', () => {
    const temp = tempPathFor('/data/bundles/x/tools/echo@1.abc.json');
    const name = temp.split('/').at(-1)!;
    expect(name).toMatch(/^\.echo@1\.abc\.json\.tmp-\d+-[0-9a-f]{12}$/);
    expect(tempFileOwner(name)).toBe(process.pid);
    expect(isDataFileName(name)).toBe(false);
    expect(tempFileOwner('echo@1.abc.json')).toBeUndefined();
    expect(isDataFileName('echo@1.abc.json')).toBe(true);
  });
});
