/**
 * The extraction prompts (docs/design/tool-outputs.md, "Strategies"): the placeholders are filled
 * from the stored output's metadata and the request.
 */
import { closeTag, openTag } from './final-report';

export interface PromptSource {
  toolName: string;
  /** The call's arguments, verbatim JSON (decision 17). */
  argsJson: string;
}

export interface DocStats {
  bytes: number;
  lines: number;
  tokens: number;
}

function wrapper(nonce: string): string {
  return `${openTag(nonce)} ... ${closeTag(nonce)}`;
}

export function mapPrompt(p: PromptSource & { stats: DocStats; chunkIndex: number; chunkTotal: number; overlapPercent: number; extract: string; nonce: string }): string {
  return `You are an internal extraction agent. You must extract information from a document chunk.

SOURCE TOOL
- Name: ${p.toolName}
- Arguments (verbatim JSON): ${p.argsJson}

DOCUMENT STATS
- Bytes: ${p.stats.bytes}
- Lines: ${p.stats.lines}
- Tokens (estimate): ${p.stats.tokens}

CHUNK INFO
- Index: ${p.chunkIndex} of ${p.chunkTotal}
- Overlap: ${p.overlapPercent}%

WHAT TO EXTRACT
${p.extract}

OUTPUT FORMAT (required)
- Emit exactly one XML final-report wrapper:
  ${wrapper(p.nonce)}
- Put your extracted result inside the wrapper.
- If no relevant data exists, output:
  NO RELEVANT DATA FOUND
  <short description of what kind of information is available in this chunk>`;
}

export function reducePrompt(p: PromptSource & { extract: string; chunkOutputs: string[]; nonce: string }): string {
  const outputs = p.chunkOutputs.map((o, i) => `--- CHUNK ${i + 1} of ${p.chunkOutputs.length} ---\n${o}`).join('\n\n');
  return `You are an internal extraction agent. You must synthesize multiple chunk extractions into one final answer.

SOURCE TOOL
- Name: ${p.toolName}
- Arguments (verbatim JSON): ${p.argsJson}

WHAT TO EXTRACT
${p.extract}

CHUNK OUTPUTS
${outputs}

OUTPUT FORMAT (required)
- Emit exactly one XML final-report wrapper:
  ${wrapper(p.nonce)}
- If no relevant data exists, output:
  NO RELEVANT DATA FOUND
  <short description of what kind of information is available across the chunks>`;
}

export function readGrepPrompt(p: PromptSource & { handle: string; rootDir: string; extract: string; nonce: string }): string {
  return `You are an internal extraction agent. You can only use Read and Grep tools.

IMPORTANT: The handle is the filename.
Use the filename exactly as given when calling Read or Grep.

SOURCE TOOL
- Name: ${p.toolName}
- Arguments (verbatim JSON): ${p.argsJson}
- Handle/filename: ${p.handle}
- Root directory: ${p.rootDir}

WHAT TO EXTRACT
${p.extract}

OUTPUT FORMAT (required)
- Emit exactly one XML final-report wrapper:
  ${wrapper(p.nonce)}
- If no relevant data exists, output:
  NO RELEVANT DATA FOUND
  <short description of what kind of information is available in the file>`;
}
