/** The first-run checklist on an empty data folder (renderer/features/onboarding). */
import { isOne } from './plural';
export const onboardingStrings = {
  title: 'Get started',
  intro: 'Three steps to a working bench. Each takes one click to begin.',
  progress: (done: number, total: number) => `${done} of ${total} done`,
  done: 'Done',
  dismiss: 'Hide this checklist',
  model: {
    title: 'Add a model',
    body: 'Connect OpenAI, Anthropic, or a local server such as Ollama so a model can call your tools.',
    action: 'Add a model',
    alternative: 'Or run tools yourself with the + palette, no model needed',
    alternativeAction: 'Open the + palette',
    doneBody: (n: number) => `${n} model provider${isOne(n) ? '' : 's'} set up.`,
  },
  hosts: {
    title: 'Allow a host for HTTP tools',
    body: 'HTTP tools reach only the hosts you allow, such as api.example.com.',
    action: 'Allow a host',
    doneBody: (hosts: readonly string[]) => `Allowed: ${hosts.slice(0, 3).join(', ')}${hosts.length > 3 ? ` and ${hosts.length - 3} more` : ''}.`,
  },
  tool: {
    title: 'Try a built-in tool',
    body: 'Run time/now, a built-in tool, and see what a tool result looks like.',
    action: 'Run time/now',
    running: 'Running…',
    doneBody: 'A tool has run. The Tools screen lists every tool, with a tester beside each.',
    result: (iso: string, ms: number) => `time/now answered ${iso} in ${ms} ms.`,
    failed: (message: string) => `time/now failed: ${message}`,
  },
} as const;
