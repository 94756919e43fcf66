export { actionFactor, needAction, toolAction, type Action } from './action';
export { FIELDS, searchableTool, toolFields, type FieldName, type SearchableTool, type ToolFields, type ToolOfBundle } from './document';
export { AnalysisCache, DEFAULT_FIELD_WEIGHTS, ToolRanker, queryTerms, type FieldWeight, type RankOptions, type RankedTool, type ToolSource } from './ranker';
export { argsSummary, shortDescription } from './summary';
export { terms } from './text';
export * from './embeddings';
