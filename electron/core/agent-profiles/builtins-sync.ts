/** The shipped agent profiles read synchronously (for generated docs); invalid ones throw, as at load. */
import fs from 'node:fs';
import path from 'node:path';
import { AgentProfileSchema, type AgentProfile } from '../../../shared/model/agent-profile';

export function loadBuiltInsSync(dir: string): AgentProfile[] {
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => AgentProfileSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8'))));
}
