// @vitest-environment happy-dom
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import '../testing/render';
import { Field, FieldError, NumberField } from './Field';

describe('FieldError', () => {
  it('is the one element with the field-error class, in the tag and with the attributes given', () => {
    render(
      <>
        <FieldError role="alert" data-testid="a">
          Saving failed.
        </FieldError>
        <FieldError as="span" className="extra" id="b">
          Bad.
        </FieldError>
      </>,
    );
    const a = screen.getByTestId('a');
    expect(a.tagName).toBe('P');
    expect(a.className).toBe('field-error');
    expect(screen.getByRole('alert').textContent).toBe('Saving failed.');
    const b = document.getElementById('b')!;
    expect(b.tagName).toBe('SPAN');
    expect(b.className).toBe('field-error extra');
  });
});

describe('Field', () => {
  it('labels the control and describes it by its hint alone while it has no error', () => {
    render(
      <Field id="slug" label="Slug" hint="Letters, digits and '-'.">
        {(control) => <input {...control} />}
      </Field>,
    );
    const input = screen.getByRole('textbox', { name: 'Slug' });
    expect(input.id).toBe('slug');
    expect(input.getAttribute('aria-invalid')).toBe('false');
    expect(input.getAttribute('aria-describedby')).toBe('slug-help');
    expect(screen.getByText("Letters, digits and '-'.").id).toBe('slug-help');
    expect(document.querySelector('.field-error')).toBeNull();
  });

  it('shows an error under the control, marks it invalid and describes it by hint, note and error', () => {
    render(
      <Field id="t" label="Temperature" hint="0 to 2." describedBy="t-note" error={['Too hot.', 'Way too hot.']} errorTestId="t-error">
        {(control) => <input {...control} />}
      </Field>,
    );
    const input = screen.getByRole('textbox', { name: 'Temperature' });
    const error = screen.getByTestId('t-error');
    expect(error.textContent).toBe('Too hot. Way too hot.');
    expect(error.className).toBe('field-error');
    // A field's error is read when the typing pauses, not at once.
    expect(error.getAttribute('aria-live')).toBe('polite');
    expect(error.getAttribute('role')).toBeNull();
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toBe(`t-help t-note ${error.id}`);
  });

  it('announces an error at once when asked (a save’s refusal), and wraps the parts when given a class', () => {
    const { container } = render(
      <Field id="w" label="Workspace" error="must be an absolute path" announce="alert" className="field" labelHidden>
        {(control) => <input {...control} />}
      </Field>,
    );
    expect(screen.getByRole('alert').textContent).toBe('must be an absolute path');
    expect(container.firstElementChild!.className).toBe('field');
    expect(container.querySelector('label')!.className).toBe('visually-hidden');
    expect(screen.getByRole('textbox', { name: 'Workspace' })).toBeTruthy();
  });

  it('lets a label click reach a control that has no element of that id', async () => {
    const onLabelClick = vi.fn();
    render(
      <Field id="schema" label="Schema" onLabelClick={onLabelClick}>
        {() => <div />}
      </Field>,
    );
    await userEvent.setup().click(screen.getByText('Schema'));
    expect(onLabelClick).toHaveBeenCalledTimes(1);
  });
});

function NumberHarness({ initial = '', error }: { initial?: string; error?: string }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <NumberField id="n" label="Max tokens" hint="Empty: the model's own." min={1} max={100} step={1} value={value} onChange={setValue} error={error} errorTestId="n-error" testId="n" />
      <output data-testid="value">{JSON.stringify(value)}</output>
    </>
  );
}

describe('NumberField', () => {
  it('is a number input with its bounds, and keeps empty apart from 0', async () => {
    const user = userEvent.setup();
    render(<NumberHarness initial="5" />);
    const input = screen.getByRole('spinbutton', { name: 'Max tokens' }) as HTMLInputElement;
    expect(input.type).toBe('number');
    expect([input.min, input.max, input.step, input.inputMode]).toEqual(['1', '100', '1', 'numeric']);
    await user.clear(input);
    expect(screen.getByTestId('value').textContent).toBe('""');
    // Empty is allowed (not required): no error.
    expect(screen.queryByTestId('n-error')).toBeNull();
    await user.type(input, '0');
    expect(screen.getByTestId('value').textContent).toBe('"0"');
  });

  it('says what to type once edited out of bounds, and stops when it is fixed', async () => {
    const user = userEvent.setup();
    render(<NumberHarness initial="500" />);
    // What came from outside is not judged until it is edited.
    expect(screen.queryByTestId('n-error')).toBeNull();
    const input = screen.getByRole('spinbutton', { name: 'Max tokens' });
    await user.type(input, '0');
    const error = screen.getByTestId('n-error');
    expect(error.textContent).toBe('Enter a number from 1 to 100: got 5000.');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toBe(`n-help ${error.id}`);
    await user.clear(input);
    await user.type(input, '50');
    expect(screen.queryByTestId('n-error')).toBeNull();
  });

  it('shows the error it is given (the server’s) over its own', async () => {
    const user = userEvent.setup();
    render(<NumberHarness initial="5" error="max tokens is above this model's limit" />);
    await user.type(screen.getByRole('spinbutton'), '000');
    expect(screen.getByTestId('n-error').textContent).toBe("max tokens is above this model's limit");
  });
});
