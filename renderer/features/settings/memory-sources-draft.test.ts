import { describe, expect, it } from 'vitest';
import { fromDraft, parseRule, toDraft } from './memory-sources-draft';

describe('Settings → Memory sources: the form', () => {
  it('reads one rule per line (a glob with spaces keeps them; the permission case is forgiven) and back', () => {
    expect(parseRule('my notes/** readwrite')).toEqual({ pattern: 'my notes/**', permission: 'ReadWrite' });
    expect(parseRule('** Everything')).toBeUndefined();
    expect(parseRule('ReadOnly')).toBeUndefined();
    const r = fromDraft({ kind: 'files', id: ' notes ', folder: ' /home/me/notes ', rules: 'drafts/** ReadWrite\n\n** ReadOnly', include: '' });
    expect(r).toEqual({ ok: true, config: { kind: 'files', id: 'notes', folder: '/home/me/notes', rules: [{ pattern: 'drafts/**', permission: 'ReadWrite' }, { pattern: '**', permission: 'ReadOnly' }] } });
    if (r.ok) expect(toDraft(r.config).rules).toBe('drafts/** ReadWrite\n** ReadOnly');
  });

  it('names the bad line, refuses a FileSource without rules, and gives a watcher every file by default', () => {
    expect(fromDraft({ kind: 'files', id: 'n', folder: '/x', rules: '** ReadOnly\n*.md Sometimes', include: '' })).toEqual({ ok: false, badLine: { line: 2, text: '*.md Sometimes' } });
    expect(fromDraft({ kind: 'files', id: 'n', folder: '/x', rules: ' \n', include: '' })).toEqual({ ok: false, noRules: true });
    expect(fromDraft({ kind: 'watch', id: 'w', folder: '/x', rules: '', include: '' })).toEqual({ ok: true, config: { kind: 'watch', id: 'w', folder: '/x', include: ['**'], paused: false } });
  });
});
