import { Module } from '@nestjs/common';
import { RetrievalService } from './retrieval.service';

/** Retrieval for `/v1/query`; needs the global DbModule (the DATABASE token). */
@Module({
  providers: [RetrievalService],
  exports: [RetrievalService],
})
export class RetrievalModule {}
