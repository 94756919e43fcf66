/**
 * The directive language (docs/design/routing.md), as parsed. One parser (./parser.ts) serves
 * chat messages, workflow steps and context sections, in the core and in the composer (where its
 * spans colour the text as it is typed and its errors show before sending).
 */
import type { Destination, WriteMode } from '../model/routing';

/** A place in the text: [start, end) in UTF-16 offsets, with the 1-based line and column of start. */
export interface Span {
  start: number;
  end: number;
  line: number;
  column: number;
}

export interface DirectiveError extends Span {
  message: string;
}

/** Per-tool or per-input routing parameters: `output=...`, `write-mode=...`. */
export interface RouteParams {
  output?: Destination;
  writeMode?: WriteMode;
}

export interface ToolToken extends RouteParams {
  /** The tool's slug as written (`readfile`), or `bundle/slug` to pick a bundle. */
  name: string;
  span: Span;
}

export type Directive =
  | { kind: 'tools'; tools: ToolToken[]; span: Span; raw: string }
  | {
      kind: 'input';
      source: InputSourceValue;
      params: RouteParams;
      span: Span;
      raw: string;
    }
  | { kind: 'model'; model: string; span: Span; raw: string };

/** The source of an `@input`: `SCHEME:VALUE`. */
export interface InputSourceValue {
  /** `file`, `variable`, `url`, or any other scheme (an unknown one is reported by the runner, not the parser). */
  scheme: string;
  /** Unquoted. */
  value: string;
  /** Ranges [start, end) of `value` that were written inside double quotes: a `file:` path reads them as they are, never as a pattern. */
  quoted?: [number, number][];
}

/** A tool after aggregating every `@tools` line: the last output=/write-mode= given for it wins. */
export interface AggregatedTool extends RouteParams {
  name: string;
}

/** What the composer colours. */
export interface HighlightSpan {
  start: number;
  end: number;
  kind: 'directive' | 'tool' | 'param' | 'destination' | 'source' | 'error';
}

export interface ParsedText {
  directives: Directive[];
  /** The text with directive lines removed: what is left for the model. */
  prompt: string;
  /** Aggregated over every `@tools` directive, in first-seen order. */
  tools: AggregatedTool[];
  /** `@model none` was given (the last `@model` wins). */
  modelNone: boolean;
  /** The model named by the last `@model`, when not `none`. */
  model?: string;
  errors: DirectiveError[];
  highlights: HighlightSpan[];
}
