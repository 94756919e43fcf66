// @vitest-environment happy-dom
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../../shared/model/settings';
import { SCRIPT_TEMPLATES } from '../../../../shared/model/script-ctx';
import type { ToolView } from '../../../../shared/model/tool';
import type { Api } from '../../../api/client';
import { callsOf, fakeApi, ok, renderWithApi, sampleTool } from '../../../testing/render';
import { ToolEditor } from '../editor/ToolEditor';
import { ScriptProblemsNote } from './ScriptPanel';
import { ScriptRunDetails } from './ScriptRunDetails';
import { NO_SCRIPT_PROBLEMS } from './script-draft';

// Monaco does not load here: the script is the editor's own plain-text fallback.
vi.mock('../../../editor/monaco-setup', () => {
  throw new Error('Monaco is not loaded in component tests.');
});
vi.mock('../../../editor/monaco-script-setup', () => {
  throw new Error('Monaco is not loaded in component tests.');
});

beforeEach(() => {
  const warn = console.warn.bind(console);
  vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    if (!String(args[0]).startsWith('Monaco could not be loaded')) warn(...args);
  });
  return () => vi.restoreAllMocks();
});

const bundleId = '0190a000-0000-7000-8000-0000000000b1';
const settings = { ...DEFAULT_SETTINGS, scriptTools: { timeLimitMs: 2500, memoryLimitMb: 48, maxOutputBytes: 2048 } };

async function scriptBox(): Promise<HTMLTextAreaElement> {
  return (await screen.findByRole('textbox', { name: 'Script source (JavaScript)' })) as HTMLTextAreaElement;
}

describe('the script panel of the tool editor', () => {
  it('starts a new script tool from a template, with the Settings defaults as the limits’ placeholders, and saves it', async () => {
    const user = userEvent.setup();
    const fake = fakeApi({
      'settings.get': ok(settings),
      'tools.put': (input) => ok(sampleTool({ slug: input.slug, version: input.version, type: 'script', local: undefined, script: { sha256: 'b'.repeat(64) } })),
    });
    const onSaved = vi.fn();
    renderWithApi(<ToolEditor mode={{ kind: 'new', bundleId }} onSaved={onSaved} onNewVersion={vi.fn()} onDiscard={vi.fn()} onDirtyChange={vi.fn()} />, fake.api);
    await user.type(screen.getByTestId('tool-form-slug'), 'sum-numbers');
    await user.type(screen.getByTestId('tool-form-name'), 'Sum numbers');
    await user.type(screen.getByTestId('tool-form-description'), 'Adds numbers up.');
    await user.selectOptions(screen.getByTestId('tool-form-type'), 'script');

    const box = await scriptBox();
    expect(box.value).toBe('');
    // The templates are open while the script is empty.
    expect(screen.getByTestId('script-templates').hasAttribute('open')).toBe(true);
    const compute = SCRIPT_TEMPLATES.find((t) => t.id === 'compute')!;
    await user.click(screen.getByRole('button', { name: `Use “${compute.title}”` }));
    expect(box.value).toBe(compute.source);
    expect(JSON.parse((screen.getByRole('textbox', { name: /^Argument schema/ }) as HTMLTextAreaElement).value)).toEqual(compute.argSchema);
    expect(screen.getByTestId('script-template-status').textContent).toBe(`Started from “${compute.title}”.`);

    expect(await screen.findByPlaceholderText('2500 (default)')).toBe(screen.getByTestId('script-limit-timeLimitMs'));
    expect(screen.getByTestId('script-limit-memoryLimitMb').getAttribute('placeholder')).toBe('48 (default)');
    expect(screen.getByTestId('script-limit-maxOutputBytes').getAttribute('placeholder')).toBe('2048 (default)');
    await user.type(screen.getByTestId('script-limit-timeLimitMs'), '800');

    await user.click(screen.getByTestId('tool-form-save'));
    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    const put = callsOf(fake.calls, 'tools.put')[0]!;
    expect(put.body).toMatchObject({ type: 'script', script: { source: compute.source, timeLimitMs: 800 } });
    expect(put.body.script).not.toHaveProperty('memoryLimitMb');
  });

  it('puts a limit out of its bounds on its own field and keeps it from the body', async () => {
    const user = userEvent.setup();
    const fake = fakeApi({ 'settings.get': ok(settings), 'tools.put': () => ok(sampleTool()) });
    renderWithApi(<ToolEditor mode={{ kind: 'new', bundleId }} onSaved={vi.fn()} onNewVersion={vi.fn()} onDiscard={vi.fn()} onDirtyChange={vi.fn()} />, fake.api);
    await user.type(screen.getByTestId('tool-form-slug'), 'big');
    await user.selectOptions(screen.getByTestId('tool-form-type'), 'script');
    const box = await scriptBox();
    fireEvent.change(box, { target: { value: 'function run() { return 1; }' } });
    const memory = screen.getByTestId('script-limit-memoryLimitMb');
    await user.type(memory, '4096');
    await user.click(screen.getByTestId('tool-form-save'));
    const error = await screen.findByTestId('field-error-scriptMemoryLimitMb');
    expect(error.textContent).toBe('must be between 8 and 1,024 MB');
    expect(memory.getAttribute('aria-invalid')).toBe('true');
    expect(memory.getAttribute('aria-describedby')).toContain(error.id);
    expect(callsOf(fake.calls, 'tools.put')).toEqual([]);
  });

  it('shows a saved script read-only, with its file’s problem', async () => {
    const tool: ToolView = sampleTool({ type: 'script', local: undefined, script: { sha256: 'c'.repeat(64), memoryLimitMb: 16 } });
    const fake = fakeApi({
      'settings.get': ok(settings),
      'tools.approval': ok(null),
      'tools.scriptSource': ok({ source: 'function run() { return 2; }', sha256: 'd'.repeat(64), problem: 'its script file was changed after it was saved' }),
    });
    renderWithApi(<ToolEditor mode={{ kind: 'view', tool, scriptSource: 'function run() { return 2; }' }} onSaved={vi.fn()} onNewVersion={vi.fn()} onDiscard={vi.fn()} onDirtyChange={vi.fn()} />, fake.api);
    const box = await scriptBox();
    expect(box.value).toBe('function run() { return 2; }');
    expect(box.readOnly).toBe(true);
    expect(screen.queryByTestId('script-templates')).toBeNull();
    expect((screen.getByTestId('script-limit-memoryLimitMb') as HTMLInputElement).value).toBe('16');
    expect((await screen.findByTestId('script-file-problem')).textContent).toMatch(/was changed after it was saved/);
  });
});

describe('the script’s problems beside Save', () => {
  const marker = (code: string, line = 3) => ({ line, column: 7, message: code === '1005' ? "';' expected." : "Property 'x' does not exist.", severity: 'error' as const, code });

  it('says Save is off for a syntax error, and only counts the others', () => {
    const { rerender } = render(<ScriptProblemsNote problems={NO_SCRIPT_PROBLEMS} />);
    expect(screen.queryByTestId('script-problems')).toBeNull();
    rerender(<ScriptProblemsNote problems={{ syntax: [marker('1005')], other: [marker('2339', 5)] }} />);
    expect(screen.getByTestId('script-problems').textContent).toBe("Save is off until the script parses: 1 syntax error. Show in the script: Line 3, column 7: ';' expected.");
    rerender(<ScriptProblemsNote problems={{ syntax: [], other: [marker('2339', 5), marker('2339', 6)] }} />);
    expect(screen.getByTestId('script-problems').textContent).toMatch(/^2 problems in the script \(it may still run\)\. Show in the script: Line 5/);
  });
});

describe('a script run in the tester', () => {
  const tool = { bundleId, slug: 'sum', version: '1' };

  it('shows the answer’s log lines under the result', () => {
    const { api } = fakeApi();
    renderWithApi(
      <ScriptRunDetails
        run={{ status: 'done', result: { invocationId: 'i1', value: 3, durationMs: 4, attempts: 1, logs: [{ level: 'warn', text: 'careful', atMs: 1.4 }, { level: 'log', text: 'sum 3', atMs: 2 }] } }}
        tool={tool}
        name="sum"
      />,
      api,
    );
    const lines = screen.getAllByRole('listitem');
    expect(lines.map((l) => l.textContent)).toEqual(['+1 mswarncareful', '+2 mslogsum 3']);
    expect(screen.getByRole('log', { name: /Logs/ })).toBeTruthy();
  });

  it('shows live lines while it runs, from this call’s events', async () => {
    type Handler = (e: { invocationId: string; kind: string; data: unknown }) => void;
    const handlers = new Set<Handler>();
    const base = fakeApi().api;
    const on = (name: string, h: Handler) => {
      if (name !== 'invocation.event') return () => undefined;
      handlers.add(h);
      return () => void handlers.delete(h);
    };
    const api: Api = { ...base, client: { ...base.client, on: on as Api['client']['on'] } };
    renderWithApi(<ScriptRunDetails run={{ status: 'running', invocationId: 'i2' }} tool={tool} name="sum" />, api);
    // The app's own listener (the query cache's) is one of them.
    await waitFor(() => expect(handlers.size).toBe(2));
    const send: Handler = (e) => handlers.forEach((h) => h(e));
    act(() => {
      send({ invocationId: 'other', kind: 'log', data: { level: 'log', text: 'not mine', atMs: 1 } });
      send({ invocationId: 'i2', kind: 'log', data: { level: 'info', text: 'step 1', atMs: 5 } });
    });
    expect(screen.getByRole('heading', { name: /Logs \(live\)/ })).toBeTruthy();
    expect(screen.getAllByRole('listitem').map((l) => l.textContent)).toEqual(['+5 msinfostep 1']);
  });

  it('says what a failure means, with the stack and the lines of a script that threw', () => {
    const { api } = fakeApi();
    renderWithApi(
      <ScriptRunDetails
        run={{ status: 'failed', error: { code: 'UNAVAILABLE', message: 'the script threw: boom', details: { toolError: true, stack: 'Error: boom\n    at run (script.js:3)', logs: [{ level: 'error', text: 'about to fail', atMs: 0 }] } } }}
        tool={tool}
        name="sum"
      />,
      api,
    );
    expect(screen.getByTestId('script-error-help').textContent).toMatch(/^The script threw an error\./);
    expect(screen.getByTestId('script-error-stack').textContent).toContain('at run (script.js:3)');
    expect(screen.getByTestId('script-log-lines').textContent).toContain('about to fail');
  });

  it('shows an untrusted script’s source, and trusts it before running it again', async () => {
    const user = userEvent.setup();
    const fake = fakeApi({
      'tools.scriptSource': ok({ source: 'function run() { return "hi"; }', sha256: 'e'.repeat(64) }),
      'tools.trustScript': ok({ trusted: true as const }),
    });
    const onTrusted = vi.fn();
    renderWithApi(
      <ScriptRunDetails run={{ status: 'failed', error: { code: 'FORBIDDEN', message: 'not trusted yet', details: { rule: 'script-not-trusted' } } }} tool={tool} name="sum" onTrusted={onTrusted} />,
      fake.api,
    );
    expect(screen.queryByTestId('script-error-help')).toBeNull();
    expect((await screen.findByRole('region', { name: 'Script of sum (read-only)' })).textContent).toBe('function run() { return "hi"; }');
    await user.click(screen.getByRole('button', { name: 'Trust and run' }));
    await waitFor(() => expect(onTrusted).toHaveBeenCalledTimes(1));
    // The SHA-256 that came with the source shown: the core trusts that source, or refuses.
    expect(callsOf(fake.calls, 'tools.trustScript')).toEqual([{ ...tool, sha256: 'e'.repeat(64) }]);
  });

  it('keeps "Trust and run" off while the source loads and when its file has a problem', async () => {
    type SourceAnswer = { ok: true; value: { source: string; sha256: string; problem?: string } };
    let answer: (v: SourceAnswer) => void = () => undefined;
    const fake = fakeApi({
      'tools.scriptSource': () => new Promise<SourceAnswer>((resolve) => (answer = resolve)),
      'tools.trustScript': ok({ trusted: true as const }),
    });
    renderWithApi(
      <ScriptRunDetails run={{ status: 'failed', error: { code: 'FORBIDDEN', message: 'not trusted yet', details: { rule: 'script-not-trusted' } } }} tool={tool} name="sum" onTrusted={() => undefined} />,
      fake.api,
    );
    const button = (await screen.findByRole('button', { name: 'Trust and run' })) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    act(() => answer({ ok: true, value: { source: 'function run() { return "other"; }', sha256: 'f'.repeat(64), problem: 'its script file x.js was changed after this version was saved' } }));
    expect((await screen.findByTestId('script-review-problem')).textContent).toContain('was changed after this version was saved');
    expect((screen.getByRole('button', { name: 'Trust and run' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Trust and run' }));
    expect(callsOf(fake.calls, 'tools.trustScript')).toEqual([]);
  });
});
