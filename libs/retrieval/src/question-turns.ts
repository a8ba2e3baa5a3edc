import { Inject, Injectable } from '@nestjs/common';
import { questionsInFlight, runInSteps, ThreadSlots } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';

/**
 * Questions take turns across tenants for the work they do on this machine (issue 34, found by
 * the noisy-neighbour bench): at most LOCI_QUESTIONS_AT_ONCE (one per core, and one more) at
 * once in a process, each tenant's wait in their own line, and a free slot goes to the tenant
 * served longest ago (the CPU pool's ThreadSlots, one lane). One tenant may hold all slots but
 * one: the last is kept for the others, so a question arriving beside another tenant's flood
 * starts at once, beside the flood's questions, instead of waiting for one of them to end; while
 * it runs, the flood's share is an equal one (one of three), so the two share the cores. A
 * client flooding API-key questions at concurrency 16 used to put another tenant's question
 * behind all 16 in the event loop, the pool and the database (p95 18-46x its quiet p95). The callers hold a turn for the offline keywords, a local embedder's vectors and the
 * retrieval; a model over the network (a dashboard question's keywords, a provider's
 * embeddings, an answer that may take seconds) is waited for outside it.
 */
@Injectable()
export class QuestionTurns {
  private readonly slots: ThreadSlots;
  /**
   * The statements of all questions at once (LOCI_QUESTION_STATEMENTS_AT_ONCE; none when 0):
   * tenants in turn, equal shares while several send. A question sends its paths' statements side
   * by side; many at once cost the database more CPU each than the same in fewer sessions.
   */
  private readonly statementSlots?: ThreadSlots;

  constructor(@Inject(SETTINGS) settings: Settings) {
    const slots = settings.query.questionsAtOnce;
    // One tenant may hold all slots but one: the last is kept for whoever else asks. Beside
    // another tenant's questions, each tenant's share is equal (sharedWhenBusy), also between
    // the other's questions for questionTurnLingerMs (a client asking a few a second is not gone
    // in the gaps; a flood that grew back into them ran beside its next question at twice its share).
    this.slots = new ThreadSlots(slots, {
      perTenant: Math.max(1, slots - 1),
      sharedWhenBusy: true,
      lingerMs: settings.query.questionTurnLingerMs,
      maxPauseMs: settings.query.questionPauseMaxMs,
    });
    const statements = settings.query.questionStatementsAtOnce;
    if (statements > 0) this.statementSlots = new ThreadSlots(statements, { sharedWhenBusy: true });
  }

  /** Runs `work` (a question's work on this machine) in `tenantId`'s turn. */
  async take<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    const release = await this.slots.acquire('other', tenantId);
    // Batch CPU work (any tenant's PDFs and chunks) steps aside while this runs (questions-in-flight.ts).
    const ended = questionsInFlight.begin();
    try {
      // Each statement (the read path hands it over, asStep) first pauses, for a tenant with more
      // waiting, while a lighter tenant's question runs (ThreadSlots.pauseForLighter); then takes
      // a statement slot, when they are bounded.
      return await runInSteps((step) => this.statement(tenantId, step), work);
    } finally {
      ended();
      release();
    }
  }

  private async statement<T>(tenantId: string, step: () => Promise<T>): Promise<T> {
    const pause = this.slots.pauseForLighter(tenantId);
    if (pause) await pause;
    if (!this.statementSlots) return step();
    const release = await this.statementSlots.acquire('other', tenantId);
    try {
      return await step();
    } finally {
      release();
    }
  }

  /** Statements of questions paused for a lighter tenant's question now. */
  get paused(): number {
    return this.slots.pausedSteps;
  }

  /** Retrievals waiting for a slot, of every tenant. */
  get waiting(): number {
    return this.slots.queued;
  }
}
