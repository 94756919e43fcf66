import { randomUUID } from 'node:crypto';
import type { Problem } from '../../shared/model/app-info';
import type { EventBus } from './events';

/** Things found wrong in the data folder, kept so the UI can list them. */
export class ProblemLog {
  private readonly items: Problem[] = [];
  constructor(
    private readonly events: EventBus,
    private readonly now: () => Date,
  ) {}

  report(p: Omit<Problem, 'id' | 'at'>): Problem {
    const problem: Problem = { ...p, id: randomUUID(), at: this.now().toISOString() };
    this.items.push(problem);
    if (this.items.length > 1000) this.items.shift();
    console.warn(`problem: ${problem.kind} at ${problem.path}: ${problem.message}`);
    this.events.emit('app.problem', problem);
    return problem;
  }

  list(): Problem[] {
    return [...this.items];
  }
}
