export { EmbeddingsClient, type EmbeddingsConnection } from './client';
export { RRF_K, SEMANTIC_CANDIDATES, cosine, fuse, nearest } from './fusion';
export { PALETTE_TIME_LIMIT_MS, SemanticSearch, TURN_TIME_LIMIT_MS, type SemanticAnswer, type SemanticDoc, type SemanticTarget } from './semantic';
export { embeddingText } from './tool-text';
export { VECTORS_FILE, VectorCache, vectorKey } from './vector-cache';
