import { Module } from '@nestjs/common';
import { QuestionTurns } from './question-turns';
import { RetrievalService } from './retrieval.service';

/** Retrieval for `/v1/query`, and the turns every question's retrieval takes; needs the global DbModule (the DATABASE token). */
@Module({
  providers: [RetrievalService, QuestionTurns],
  exports: [RetrievalService, QuestionTurns],
})
export class RetrievalModule {}
