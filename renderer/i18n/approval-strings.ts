/** Every user-visible string of why a call waits for approval (the chat's approval card, the app's prompt for served calls, the tool editor). */
export const approvalStrings = {
  title: 'Why it asks',
  reason: {
    tool: 'This tool is set to ask before it runs.',
    fn: (functionId: string) => `It runs ${functionId}, which asks before it runs wherever it is used.`,
    step: (step: string, tool: string) => `Its step ${step} calls ${tool}, which asks before it runs.`,
    script: 'Its script comes from outside this app (an imported bundle or the drop-in folder) and has not been trusted yet: read it before it runs.',
  },
  hintsLabel: 'What the MCP server says of it',
  hints: {
    readOnlyHint: { yes: 'read-only', no: 'changes things' },
    destructiveHint: { yes: 'destructive', no: 'not destructive' },
    idempotentHint: { yes: 'idempotent', no: 'not idempotent' },
    openWorldHint: { yes: 'reaches the outside world', no: 'closed world' },
  },
  noHints: 'No hints given: treated as possibly destructive.',
  /** The tool editor: a tool that asks through what it runs, whatever its own box says. */
  inherited: 'Asks anyway:',
} as const;
