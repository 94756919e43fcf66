// @vitest-environment happy-dom
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import '../../../testing/render';
import { ArgsForm } from './ArgsForm';
import type { ArgIssue, Schema } from './schema-form';

const schema: Schema = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'Where to look.' },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    alerts: { type: 'boolean' },
  },
  required: ['city', 'days'],
};

/** The issues 'tools.checkArgs' would answer for this schema (ajv's wording): what is missing, and the bounds of `days`. */
function issuesOf(value: Record<string, unknown>): ArgIssue[] {
  const out: ArgIssue[] = [];
  for (const key of ['city', 'days']) if (value[key] === undefined) out.push({ path: '(root)', message: `must have required property '${key}'` });
  const days = value.days;
  if (typeof days === 'number' && days > 7) out.push({ path: '/days', message: 'must be <= 7' });
  return out;
}

/** ArgsForm as the tester uses it: it owns the value and passes the value's issues back. */
function Harness(props: { initial?: Record<string, unknown>; showMissing?: boolean; onChange?: (v: unknown) => void; onValidityChange?: (valid: boolean) => void; onSubmit?: () => void }) {
  const [value, setValue] = useState<Record<string, unknown>>(props.initial ?? {});
  return (
    <ArgsForm
      schema={schema}
      value={value}
      issues={issuesOf(value)}
      onChange={(v) => {
        setValue(v as Record<string, unknown>);
        props.onChange?.(v);
      }}
      showMissing={props.showMissing}
      onValidityChange={props.onValidityChange}
      onSubmit={props.onSubmit}
    />
  );
}

describe('ArgsForm', () => {
  it('renders a control for each property of the schema, marking the required ones', () => {
    render(<Harness />);
    const city = screen.getByRole('textbox', { name: /^city/ });
    expect(city).toHaveProperty('type', 'text');
    expect(city.getAttribute('aria-required')).toBe('true');
    expect(screen.getByText('Where to look.')).toBeTruthy();
    const days = screen.getByRole('textbox', { name: /^days/ });
    expect(days.getAttribute('inputmode')).toBe('decimal');
    expect(days.getAttribute('aria-required')).toBe('true');
    const units = screen.getByRole('combobox', { name: /^units/ });
    expect([...(units as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(['(not set)', 'metric', 'imperial']);
    expect(units.getAttribute('aria-required')).toBeNull();
    expect(screen.getByRole('checkbox', { name: /^alerts/ })).toBeTruthy();
    // The visible mark and its spoken word, on the required fields only.
    expect(screen.getByText('city', { exact: false, selector: 'label' }).textContent).toContain('*');
    expect(screen.getByText('units', { exact: false, selector: 'label' }).textContent).not.toContain('*');
  });

  it('passes each edit to onChange as the whole value, numbers as numbers', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(<Harness onChange={onChange} />);
    await user.type(screen.getByRole('textbox', { name: /^city/ }), 'Oslo');
    expect(onChange).toHaveBeenLastCalledWith({ city: 'Oslo' });
    await user.type(screen.getByRole('textbox', { name: /^days/ }), '3');
    expect(onChange).toHaveBeenLastCalledWith({ city: 'Oslo', days: 3 });
    await user.selectOptions(screen.getByRole('combobox', { name: /^units/ }), 'imperial');
    expect(onChange).toHaveBeenLastCalledWith({ city: 'Oslo', days: 3, units: 'imperial' });
    await user.click(screen.getByRole('checkbox', { name: /^alerts/ }));
    expect(onChange).toHaveBeenLastCalledWith({ city: 'Oslo', days: 3, units: 'imperial', alerts: true });
    // Emptying a box leaves the property out rather than sending "".
    await user.clear(screen.getByRole('textbox', { name: /^city/ }));
    expect(onChange).toHaveBeenLastCalledWith({ days: 3, units: 'imperial', alerts: true });
  });

  it('shows a number out of its bounds on its field', async () => {
    const user = userEvent.setup();
    render(<Harness initial={{ city: 'Oslo' }} />);
    const days = screen.getByRole('textbox', { name: /^days/ });
    await user.type(days, '9');
    expect(days.getAttribute('aria-invalid')).toBe('true');
    const issue = screen.getByTestId('field-issue');
    expect(issue.textContent).toBe('Must be <= 7.');
    expect(days.getAttribute('aria-describedby')?.split(' ')).toContain(issue.id);
    await user.clear(days);
    await user.type(days, '7');
    expect(screen.queryByTestId('field-issue')).toBeNull();
  });

  it('names the missing required fields once asked to (after a refused run), not before', () => {
    const { rerender } = render(<Harness initial={{ days: 2 }} />);
    expect(screen.queryByTestId('args-issues')).toBeNull();
    expect(screen.queryByTestId('field-issue')).toBeNull();
    rerender(<Harness initial={{ days: 2 }} showMissing />);
    expect(screen.getByTestId('args-issues').textContent).toContain('One argument needs fixing:');
    const city = screen.getByRole('textbox', { name: /^city/ });
    expect(city.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId('field-issue').textContent).toMatch(/required/i);
  });

  it('keeps text that is not a number, says so, and reports the form invalid until it is fixed', async () => {
    const user = userEvent.setup();
    const onValidityChange = vi.fn();
    const onChange = vi.fn();
    render(<Harness initial={{ city: 'Oslo', days: 2 }} onChange={onChange} onValidityChange={onValidityChange} />);
    expect(onValidityChange).toHaveBeenLastCalledWith(true);
    const days = screen.getByRole('textbox', { name: /^days/ });
    await user.clear(days);
    await user.type(days, 'two');
    expect((days as HTMLInputElement).value).toBe('two');
    expect(screen.getByRole('alert').textContent).toBe('“two” is not a number.');
    expect(days.getAttribute('aria-invalid')).toBe('true');
    expect(onValidityChange).toHaveBeenLastCalledWith(false);
    // The text that does not parse never reaches the value.
    expect(onChange).not.toHaveBeenCalledWith(expect.objectContaining({ days: expect.any(String) }));
    await user.clear(days);
    await user.type(days, '4');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(onValidityChange).toHaveBeenLastCalledWith(true);
    expect(onChange).toHaveBeenLastCalledWith({ city: 'Oslo', days: 4 });
  });

  it('submits on Enter in a one-line field, not on Shift+Enter', async () => {
    const user = userEvent.setup();
    const onSubmit = vi.fn();
    render(<Harness onSubmit={onSubmit} />);
    await user.type(screen.getByRole('textbox', { name: /^city/ }), 'Oslo{Shift>}{Enter}{/Shift}');
    expect(onSubmit).not.toHaveBeenCalled();
    await user.type(screen.getByRole('textbox', { name: /^days/ }), '2{Enter}');
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });

  it('edits properties whose names a path syntax would split (“a.b”, “0”, “target”) as plain keys', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    const odd: Schema = { type: 'object', properties: { 'a.b': { type: 'string' }, '0': { type: 'string' }, target: { type: 'string' } } };
    function Odd() {
      const [value, setValue] = useState<unknown>({});
      return (
        <ArgsForm
          schema={odd}
          value={value}
          onChange={(v) => {
            setValue(v);
            onChange(v);
          }}
        />
      );
    }
    render(<Odd />);
    await user.type(screen.getByRole('textbox', { name: /^a\.b/ }), 'x');
    await user.type(screen.getByRole('textbox', { name: /^0/ }), 'y');
    await user.type(screen.getByRole('textbox', { name: /^target/ }), 'z');
    expect(onChange).toHaveBeenLastCalledWith({ 'a.b': 'x', '0': 'y', target: 'z' });
  });

  it('edits the same value as JSON: text that does not parse is kept, said, and blocks going back to the form', async () => {
    const user = userEvent.setup();
    const onValidityChange = vi.fn();
    const onChange = vi.fn();
    render(<Harness initial={{ city: 'Oslo', days: 2 }} onChange={onChange} onValidityChange={onValidityChange} />);
    await user.click(screen.getByTestId('tester-json-toggle'));
    const box = screen.getByTestId('tester-json') as HTMLTextAreaElement;
    expect(JSON.parse(box.value)).toEqual({ city: 'Oslo', days: 2 });
    await user.clear(box);
    await user.type(box, '{{"city": "Bergen", "days": 3');
    expect(onValidityChange).toHaveBeenLastCalledWith(false);
    expect((screen.getByTestId('tester-json-toggle') as HTMLButtonElement).disabled).toBe(true);
    await user.type(box, '}');
    expect(onValidityChange).toHaveBeenLastCalledWith(true);
    expect(onChange).toHaveBeenLastCalledWith({ city: 'Bergen', days: 3 });
    await user.click(screen.getByTestId('tester-json-toggle'));
    expect((screen.getByRole('textbox', { name: /^city/ }) as HTMLInputElement).value).toBe('Bergen');
  });
});
