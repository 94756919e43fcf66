import { describe, expect, it } from 'vitest';
import { AgentProfileSchema, type AgentProfile, type AgentProfileView } from '../../../shared/model/agent-profile';
import { copyName, delegateChoices, draftFromProfile, duplicateDraft, emptyAgentDraft, explainIssues, fieldOfIssue, issuesByField, nameTaken, profileFromDraft, sameDraft, toggleDelegate } from './agent-form';

const analyst: AgentProfile = {
  name: 'analyst',
  displayName: 'Analyst',
  description: 'Works out figures.',
  systemPrompt: 'You are an analyst.\nBe careful.',
  tools: { bundleIds: ['b1'], toolIds: ['t9'] },
  delegatesTo: ['writer'],
  canAskMaster: true,
  maxSteps: 16,
};
const view = (profile: AgentProfile, extra: Partial<AgentProfileView> = {}): AgentProfileView => ({ profile, builtIn: false, enabled: true, warnings: [], ...extra });

describe('agent form draft', () => {
  it('round-trips a profile through the draft unchanged', () => {
    expect(profileFromDraft(draftFromProfile(analyst))).toEqual(analyst);
    const withModel = { ...analyst, model: { providerId: 'p1', model: 'm-large' } };
    expect(profileFromDraft(draftFromProfile(withModel))).toEqual(withModel);
    expect(AgentProfileSchema.safeParse(profileFromDraft(draftFromProfile(withModel))).success).toBe(true);
  });

  it('leaves out empty optional fields and trims text but not the prompt', () => {
    const d = { ...emptyAgentDraft(), name: ' notes ', displayName: '  ', description: ' Keeps notes. ', systemPrompt: '  Indented\n', maxSteps: ' 8 ' };
    expect(profileFromDraft(d)).toEqual({ name: 'notes', description: 'Keeps notes.', systemPrompt: '  Indented\n', delegatesTo: [], canAskMaster: true, maxSteps: 8 });
  });

  it('sends a step limit that is not a number as NaN, for the core to name the field', () => {
    for (const typed of ['', 'ten', '3x', ' ']) expect(profileFromDraft({ ...emptyAgentDraft(), maxSteps: typed }).maxSteps).toBeNaN();
    expect(profileFromDraft({ ...emptyAgentDraft(), maxSteps: '2.5' }).maxSteps).toBe(2.5);
  });

  it('copies a built-in under a free name, the copy editable and its lists not shared', () => {
    const taken = new Set(['analyst', 'analyst_copy', 'writer']);
    expect(copyName('analyst', taken)).toBe('analyst_copy_2');
    expect(copyName('a'.repeat(40), new Set())).toBe('a'.repeat(35) + '_copy');
    const d = duplicateDraft(analyst, taken, (n) => `${n} (copy)`);
    expect(d).toMatchObject({ name: 'analyst_copy_2', displayName: 'Analyst (copy)', description: analyst.description, delegatesTo: ['writer'] });
    d.delegatesTo.push('x');
    d.tools!.bundleIds.push('b2');
    expect(analyst.delegatesTo).toEqual(['writer']);
    expect(analyst.tools!.bundleIds).toEqual(['b1']);
    expect(sameDraft(draftFromProfile(analyst), draftFromProfile(analyst))).toBe(true);
    expect(sameDraft(draftFromProfile(analyst), d)).toBe(false);
  });
});

describe('the core refusal on the form', () => {
  it('maps each issue path to its field', () => {
    expect(fieldOfIssue(['name'])).toBe('name');
    expect(fieldOfIssue(['model', 'providerId'])).toBe('model');
    expect(fieldOfIssue(['delegatesTo', '1'])).toBe('delegatesTo');
    expect(fieldOfIssue('profile.maxSteps')).toBe('maxSteps');
    expect(fieldOfIssue([])).toBeNull();
    expect(fieldOfIssue(['colour'])).toBeNull();
  });

  it('shows every issue of the real schema on its field, the rest apart', () => {
    const bad = { ...profileFromDraft({ ...emptyAgentDraft(), name: 'Bad Name', maxSteps: '0' }), colour: 'red' };
    const parsed = AgentProfileSchema.safeParse(bad);
    expect(parsed.success).toBe(false);
    // As the core sends them: paths as strings.
    const details = { issues: parsed.error!.issues.map((i) => ({ path: i.path.map(String), message: i.message })) };
    const mapped = issuesByField(details);
    expect(mapped.fields.name).toMatch(/starts with a letter/);
    expect(mapped.fields.description).toMatch(/description is required/);
    expect(mapped.fields.maxSteps).toBeDefined();
    expect(mapped.other.join(' ')).toMatch(/colour/);
  });

  it('says what was typed in a step limit that is no number, instead of the core’s “received null”', () => {
    const d = { ...draftFromProfile(analyst), maxSteps: 'lots' };
    const details = { issues: AgentProfileSchema.safeParse(JSON.parse(JSON.stringify(profileFromDraft(d)))).error!.issues.map((i) => ({ path: i.path.map(String), message: i.message })) };
    const mapped = issuesByField(details);
    expect(mapped.fields.maxSteps).toMatch(/null/);
    const said = (typed: string) => `'${typed}' is not a number`;
    expect(explainIssues(mapped, d, said).fields.maxSteps).toBe("'lots' is not a number");
    // A number out of bounds keeps the core's message.
    const zero = { ...d, maxSteps: '0' };
    const tooSmall = issuesByField({ issues: AgentProfileSchema.safeParse(profileFromDraft(zero)).error!.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
    expect(explainIssues(tooSmall, zero, said).fields.maxSteps).toBe(tooSmall.fields.maxSteps);
  });

  it('joins several issues of one field, once each', () => {
    const details = {
      issues: [
        { path: ['delegatesTo', '1'], message: "'a' is listed twice" },
        { path: ['delegatesTo', '2'], message: "'a' is listed twice" },
        { path: ['delegatesTo'], message: "'x' cannot delegate to itself" },
      ],
    };
    expect(issuesByField(details).fields.delegatesTo).toBe("'a' is listed twice; 'x' cannot delegate to itself");
    expect(issuesByField(undefined)).toEqual({ fields: {}, other: [] });
    expect(issuesByField({ issues: 'nope' })).toEqual({ fields: {}, other: [] });
  });
});

describe('names and delegates', () => {
  const all = [view(analyst, { builtIn: true }), view({ ...analyst, name: 'writer', displayName: 'Writer', delegatesTo: [] }, { enabled: false })];

  it('refuses a new profile under a name in use, not the one being edited', () => {
    const msg = (n: string) => `taken: ${n}`;
    expect(nameTaken({ ...emptyAgentDraft(), name: ' writer ' }, all, null, msg)).toBe('taken: writer');
    expect(nameTaken({ ...emptyAgentDraft(), name: 'writer' }, all, 'writer', msg)).toBeUndefined();
    expect(nameTaken({ ...emptyAgentDraft(), name: 'fresh' }, all, null, msg)).toBeUndefined();
  });

  it('offers every other profile and keeps a named one that is gone', () => {
    const d = { ...draftFromProfile(analyst), delegatesTo: ['writer', 'ghost'] };
    expect(delegateChoices(d, all)).toEqual([
      { name: 'writer', label: 'Writer', missing: false, enabled: false },
      { name: 'ghost', label: 'ghost', missing: true, enabled: false },
    ]);
    expect(toggleDelegate(d, 'ghost', false).delegatesTo).toEqual(['writer']);
    expect(toggleDelegate(d, 'analyst', true).delegatesTo).toEqual(['writer', 'ghost', 'analyst']);
    expect(toggleDelegate(d, 'writer', true).delegatesTo).toEqual(['ghost', 'writer']);
  });
});
