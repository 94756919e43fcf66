/**
 * For tests of evals: a `weather` bundle of tools a model chooses among (its `count-words` and
 * `guarded` run the built-in text.count for real; `forecast` and `alerts` are meant to be
 * answered by canned results), and a case body with the defaults filled in.
 */
import { v7 as uuidv7 } from 'uuid';
import type { EvalCaseBodyInput } from '../../../shared/model/evals';
import type { Core } from '../app';

const textArgs = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };

export const FORECAST_ARGS = {
  type: 'object',
  properties: { city: { type: 'string', description: 'The city' }, days: { type: 'integer', minimum: 1, maximum: 14 } },
  required: ['city'],
  additionalProperties: false,
};

const tool = (displayName: string, description: string, argSchema: object, extra: object = {}) => ({
  displayName,
  description,
  tags: ['weather'],
  type: 'local' as const,
  argSchema,
  outputSchema: {},
  local: { functionId: 'text.count' },
  isEnabled: true,
  ...extra,
});

/** The bundle `weather` (its id answered) with forecast, alerts, count-words and guarded (which asks for approval). */
export async function weatherBundle(core: Core, slug = 'weather'): Promise<string> {
  const bundleId = uuidv7();
  const store = core.registry.store;
  await store.putBundle(bundleId, { slug, displayName: 'Weather', description: 'Weather tools for tests', isEnabled: true });
  await store.putTool(bundleId, 'forecast', '1', tool('Forecast', 'The weather forecast of a city for the next days.', FORECAST_ARGS));
  await store.putTool(bundleId, 'alerts', '1', tool('Alerts', 'Severe weather alerts of a region.', { type: 'object', properties: { region: { type: 'string' } }, required: ['region'] }));
  await store.putTool(bundleId, 'count-words', '1', tool('Count words', 'Counts the words of a text.', textArgs));
  await store.putTool(bundleId, 'guarded', '1', tool('Guarded', 'Counts words, after asking.', textArgs, { requiresApproval: true }));
  return bundleId;
}

/** A case: expects forecast of Paris (answered by a canned result) among the bundle's tools. */
export function forecastCase(over: Partial<EvalCaseBodyInput> = {}): EvalCaseBodyInput {
  return {
    name: 'forecast for Paris',
    prompt: 'What will the weather be in Paris for the next 3 days?',
    expect: { kind: 'tools', tools: [{ tool: 'forecast', args: [{ kind: 'jsonPathEquals', path: '$.city', value: 'Paris' }, { kind: 'schema' }] }] },
    scope: { tools: 'bundle', toolSearch: 'off' },
    results: [{ tool: 'forecast', value: { city: 'Paris', days: [{ day: 1, sky: 'sunny' }] } }],
    ...over,
  };
}
