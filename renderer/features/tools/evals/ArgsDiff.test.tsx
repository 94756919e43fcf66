// @vitest-environment happy-dom
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { EvalExpect } from '../../../../shared/model/evals';
import { fakeApi, renderWithApi } from '../../../testing/render';
import { ArgsDiff } from './ArgsDiff';
import { argsComparisons } from './eval-report';
import { attempt, call } from './testing/eval-samples';

const expectWeather: EvalExpect = {
  kind: 'tools',
  tools: [{ tool: 'get-weather', args: [{ kind: 'jsonPathEquals', path: "$['city']", value: 'Paris' }, { kind: 'contains', text: 'Paris' }] }],
};

const lines = () => [...screen.getByTestId('eval-args-diff-lines').querySelectorAll('[data-kind]')].map((l) => `${l.getAttribute('data-kind')}:${l.textContent!.trimEnd()}`);

describe('the arguments against what the case expects', () => {
  it('marks the value the model got wrong as expected against actual, and lists the checks it cannot draw', () => {
    const [c] = argsComparisons(
      expectWeather,
      attempt({
        outcome: 'fail',
        calls: [call({ name: 'get_weather', tool: 'weather/get-weather@1', args: { city: 'Lyon', units: 'metric' } })],
        checks: [{ part: 'args', tool: 'weather/get-weather', passed: false, message: 'expected Paris' }],
      }),
      'weather',
    );
    renderWithApi(<ArgsDiff comparison={c!} />, fakeApi().api);
    expect(screen.getByText('Arguments of weather/get-weather against what the case expects')).toBeTruthy();
    expect(screen.getByLabelText('Arguments of weather/get-weather: lines starting with - are expected, + are what the model gave')).toBeTruthy();
    expect(lines().filter((l) => !l.startsWith('header') && !l.startsWith('hunk'))).toEqual(['same: {', 'remove:-  "city": "Paris",', 'add:+  "city": "Lyon",', 'same:   "units": "metric"', 'same: }']);
    expect(screen.getByText('Text contains: “Paris”')).toBeTruthy();
  });

  it('says which tool was called instead, with its arguments against the expected values', () => {
    const [c] = argsComparisons(expectWeather, attempt({ outcome: 'fail', calls: [call({ name: 'get_forecast', tool: 'weather/get-forecast@2', args: { town: 'Paris' } })] }), 'weather');
    renderWithApi(<ArgsDiff comparison={c!} />, fakeApi().api);
    expect(screen.getByText('weather/get-forecast was called instead of weather/get-weather: its arguments against what weather/get-weather should get')).toBeTruthy();
    expect(lines().filter((l) => l.startsWith('remove') || l.startsWith('add'))).toEqual(['remove:-  "city": "Paris",']);
  });

  it('says so when the model called no tool, or gave every value the case checks', () => {
    const [none] = argsComparisons(expectWeather, attempt({ outcome: 'fail' }), 'weather');
    const { unmount } = renderWithApi(<ArgsDiff comparison={none!} />, fakeApi().api);
    expect(screen.getByText('The model did not call weather/get-weather.')).toBeTruthy();
    unmount();
    const [good] = argsComparisons(expectWeather, attempt({ calls: [call({ name: 'get_weather', tool: 'weather/get-weather@1', args: { city: 'Paris' } })] }), 'weather');
    renderWithApi(<ArgsDiff comparison={good!} />, fakeApi().api);
    expect(screen.getByText('The arguments match every value the case checks.')).toBeTruthy();
  });
});
