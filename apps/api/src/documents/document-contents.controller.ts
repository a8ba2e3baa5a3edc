import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { ApiErrors, openApiSchemaOf, ValidQuery } from '@loci/http';
import { tenantIdOf } from '../tenant-scope';
import { toEntityResponse, toFactResponse } from '../graph/graph-browse.dto';
import {
  chunkListResponse,
  chunkPageQuery,
  documentEntityListResponse,
  documentFactListResponse,
  ingestionJobListResponse,
  takenFromQuery,
  toChunkResponse,
  toIngestionJobResponse,
} from './document-contents.dto';
import { parseDocumentId } from './documents.dto';
import { DocumentContentsService } from './document-contents.service';

/**
 * A document opened: its passages, the entities and facts taken from it, and how it was
 * ingested. What the console's document page shows, and where an answer's source leads.
 */
@ApiTags('documents')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@ApiKeyAllowed({ scope: 'read' })
@Roles('admin', 'member')
@Controller('v1/documents/:documentId')
export class DocumentContentsController {
  constructor(private readonly contents: DocumentContentsService) {}

  @Get('chunks')
  @ApiOperation({
    summary: "List a document's passages",
    description:
      "The document's chunks in their order, a page at a time (`limit`, `offset`); or, with `page_of`, the page that holds that chunk (the `chunk_id` of an answer's source), its `offset` in the reply.",
  })
  @ApiErrors({ 404: 'No such document, or (`page_of`) no such chunk in it.' })
  @ApiOkResponse({ schema: openApiSchemaOf(chunkListResponse, 'output') })
  async chunks(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId') documentId: string,
    @ValidQuery(chunkPageQuery) query: z.output<typeof chunkPageQuery>,
  ) {
    const { chunks, offset } = await this.contents.chunks(tenantIdOf(principal), parseDocumentId(documentId), {
      limit: query.limit,
      offset: query.offset,
      pageOf: query.page_of,
    });
    return { items: chunks.map(toChunkResponse), limit: query.limit, offset };
  }

  @Get('entities')
  @ApiOperation({
    summary: 'List the entities taken from a document',
    description: 'The entities the document names, by name, a page at a time; with `chunk_id`, only those one of its passages names.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(documentEntityListResponse, 'output') })
  async entities(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId') documentId: string,
    @ValidQuery(takenFromQuery) query: z.output<typeof takenFromQuery>,
  ) {
    const from = { documentId: parseDocumentId(documentId), chunkId: query.chunk_id };
    const entities = await this.contents.entities(tenantIdOf(principal), from, query);
    return { items: entities.map(toEntityResponse), limit: query.limit, offset: query.offset, chunk_id: chunkIdOrNull(query.chunk_id) };
  }

  @Get('facts')
  @ApiOperation({
    summary: 'List the facts taken from a document',
    description:
      'The facts the document supports, in every state (live, ended, superseded), in the order they became true, a page at a time; with `chunk_id`, only those taken from that passage.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(documentFactListResponse, 'output') })
  async facts(
    @CurrentPrincipal() principal: Principal,
    @Param('documentId') documentId: string,
    @ValidQuery(takenFromQuery) query: z.output<typeof takenFromQuery>,
  ) {
    const from = { documentId: parseDocumentId(documentId), chunkId: query.chunk_id };
    const facts = await this.contents.facts(tenantIdOf(principal), from, query);
    return { items: facts.map(toFactResponse), limit: query.limit, offset: query.offset, chunk_id: chunkIdOrNull(query.chunk_id) };
  }

  @Get('jobs')
  @ApiOperation({
    summary: "List a document's ingestion jobs",
    description:
      "How the document was processed: the job its upload queued and one for each retry, oldest first, with their attempts, times and the latest error.",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(ingestionJobListResponse, 'output') })
  async jobs(@CurrentPrincipal() principal: Principal, @Param('documentId') documentId: string) {
    const jobs = await this.contents.jobs(tenantIdOf(principal), parseDocumentId(documentId));
    return { items: jobs.map(toIngestionJobResponse) };
  }
}

const chunkIdOrNull = (chunkId: number | undefined) => (chunkId === undefined ? null : String(chunkId));
