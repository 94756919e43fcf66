/**
 * The exact texts and the schema of oversized tool outputs (docs/design/tool-outputs.md, "Exact
 * texts"). They are reproduced character for character: tests assert them as written here.
 */

export const TOOL_OUTPUT_NAME = 'tool_output';

export type ExtractionMode = 'auto' | 'full-chunked' | 'read-grep' | 'truncate';
export const EXTRACTION_MODES: readonly ExtractionMode[] = ['auto', 'full-chunked', 'read-grep', 'truncate'];

/** `tool_output`'s schema, exactly. */
export const TOOL_OUTPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['handle', 'extract'],
  properties: {
    handle: {
      type: 'string',
      minLength: 1,
      description: 'UUID handle of the stored tool output (provided in the tool-result message: tool_output(handle = "<uuid>", ...)).',
    },
    extract: {
      type: 'string',
      minLength: 1,
      description: 'Provide precise, detailed instructions about what you need from the tool output (be specific, include keys/fields/sections if known).',
    },
    mode: {
      type: 'string',
      enum: ['auto', 'full-chunked', 'read-grep', 'truncate'],
      description:
        'Optional override. auto=module decides; full-chunked=LLM chunk+reduce; read-grep=dynamic sub-agent with Read/Grep; truncate=keeps top and bottom, truncates in the middle.',
    },
  },
} as const;

export const TOOL_OUTPUT_DESCRIPTION =
  'Extracts what you need from a tool output that was too large to show you. Use the handle given in the tool result, and say precisely what to extract.';

/** What the model receives instead of an oversized result (exact). */
export function tooLargeMessage(stats: { bytes: number; lines: number; tokens: number }, handle: string): string {
  return (
    `Tool output is too large (${stats.bytes} bytes, ${stats.lines} lines, ${stats.tokens} tokens).\n` +
    `Call tool_output(handle = "${handle}", extract = "what to extract").\n` +
    'Provide precise and detailed instructions in `extract` about what you are looking for.'
  );
}

/** `tool_output`'s answer on success (exact). */
export function successText(toolName: string, handle: string, mode: string, abstract: string): string {
  return `ABSTRACT FROM TOOL OUTPUT ${toolName} WITH HANDLE ${handle}, STRATEGY:${mode}:\n\n${abstract}`;
}

/** `tool_output`'s answer on failure (exact). */
export function failureText(toolName: string, handle: string, mode: string, error: string): string {
  return `TOOL_OUTPUT FAILED FOR ${toolName} WITH HANDLE ${handle}, STRATEGY:${mode}:\n\n${error}`;
}

/** The explicit warning a truncate result starts with. */
export function truncateWarning(reason: string | undefined, keptBytes: number, totalBytes: number): string {
  const why = reason ? `the requested strategy could not run (${reason}), so ` : '';
  return `WARNING: ${why}this is a truncated view: the top and bottom of the output are kept and the middle is cut (${keptBytes} of ${totalBytes} bytes shown). Nothing was extracted by a model.`;
}

/** What the model is told of an oversized result the user's setting drops. */
export function droppedMessage(stats: { bytes: number; lines: number; tokens: number }): string {
  return `Tool output was too large (${stats.bytes} bytes, ${stats.lines} lines, ${stats.tokens} tokens) and was dropped by the user's setting for this tool: it is not available.`;
}

/** What the model is told when a stored output it should see whole is gone (its session ended). */
export function expiredMessage(handle: string): string {
  return `Tool output ${handle} is no longer stored (its conversation's session ended): run the tool again if you need it.`;
}
