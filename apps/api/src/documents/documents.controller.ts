import { Controller, Delete, Get, HttpCode, Param, Post, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiSecurity,
  ApiTags, ApiOperation } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { toStorableText, ValidationError } from '@loci/common';
import { openApiSchemaOf, refTo, ValidQuery, ZodValidationPipe, ApiErrors, BoundedFileInterceptor, MultipartLimits } from '@loci/http';
import { DocumentsService } from '@loci/ingest';
import { tenantIdOf } from '../tenant-scope';
import { Metered } from '../limits/request-rate.interceptor';
import {
  createDocumentBody,
  documentListQuery,
  documentListResponse,
  documentResponse,
  parseDocumentId,
  submittedResponse,
  toDocumentResponse,
  uploadFields,
} from './documents.dto';

/**
 * The request body as it is read: JSON, or multipart with a binary `file` part. Swagger's
 * @ApiBody gives every media type one schema, so the document builder (documentUploadBody)
 * splits this placeholder into one schema per media type.
 */
const UPLOAD_BODY: Record<string, any> = { 'x-loci-by-media-type': {
  'application/json': openApiSchemaOf(createDocumentBody),
  'multipart/form-data': refTo('DocumentUpload', {
    type: 'object',
    required: ['file'],
    properties: {
      file: { type: 'string', format: 'binary', description: 'The document: .txt, .md, .html or .pdf, at most 20 MiB.' },
      name: { type: 'string', maxLength: 500, description: "The document's name; the file's name when left out." },
      document_date: { type: 'string', description: 'ISO-8601 date or date-time the text is about.' },
    },
  }, 'input'),
} };

/** Uploads larger than this are refused with 413 before they are read into memory whole. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/**
 * A multipart upload is one file beside `name` (at most 500 characters, 2000 bytes in UTF-8)
 * and `document_date`: room for a few more fields and parts, nothing like a body of fields.
 */
export const UPLOAD_LIMITS: MultipartLimits = {
  fileBytes: MAX_UPLOAD_BYTES,
  fields: 8,
  fieldBytes: 8 * 1024,
  fieldNameBytes: 100,
  parts: 10,
};

interface UploadedDocumentFile {
  buffer: Buffer;
  originalname: string;
  mimetype: string;
}

/** The tenant's documents (its default graph): what /v1/query answers from. */
@ApiTags('documents')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
// Keys with the read scope list and read; writes (upload, delete, retry) need the write scope.
@ApiKeyAllowed({ scope: 'read' })
@Roles('admin', 'member')
@Controller('v1/documents')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Post()
  @Metered()
  @ApiOperation({
    summary: 'Upload a document',
    description:
      'Adds a document to the tenant graph, as JSON (`name`, `text`) or as a multipart upload of a `file` (.txt, .md, .html, .pdf); answered at once (202) and ingested in the background. The same content uploaded again answers 200 with the earlier document.',
  })
  @ApiErrors({
    400: 'The request is not valid: each field problem is named; or the multipart body is malformed (a part\'s headers over 16 KiB, a field name with brackets, the file in a field other than `file`).',
    413: 'The body is larger than the route accepts: a JSON body over 1 MiB; or a multipart file over 20 MiB, a second file, more than 8 text fields, a text field over 8 KiB, a field name over 100 bytes, or more than 10 parts. The message names the limit. Or the tenant\'s stored text would pass its quota (`storage_quota_exceeded`, `limit_mb`), or the document alone is larger than a day\'s `daily_ingest_mb` (`daily_ingest_quota_exceeded`); no Retry-After.',
    415: 'The file is not .txt, .md, .html or .pdf, or the body is neither JSON nor multipart.',
    422: 'The file could not be read (a broken PDF).',
    429: 'The request rate of the tenant or the API key is spent (`rate_limit_exceeded`); or the day\'s documents or text are used up (`daily_document_quota_exceeded` with `limit`, `daily_ingest_quota_exceeded` with `limit_mb`): Retry-After says when the next request may come (the next UTC midnight for a daily quota). A deduplicated upload is not counted and is answered regardless.',
  })
  @ApiKeyAllowed({ scope: 'write' })
  @UseInterceptors(BoundedFileInterceptor('file', UPLOAD_LIMITS))
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiBody({ description: 'JSON, or a multipart upload of one `file`.', schema: UPLOAD_BODY })
  @ApiAcceptedResponse({ description: 'Queued for ingestion.', schema: openApiSchemaOf(submittedResponse, 'output') })
  @ApiOkResponse({ description: 'The same content was already uploaded: that document.', schema: openApiSchemaOf(submittedResponse, 'output') })
  async submit(
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @UploadedFile() file?: UploadedDocumentFile,
  ): Promise<z.infer<typeof submittedResponse>> {
    const submission = file ? await this.fromUpload(file, req.body) : this.fromJson(req.body);
    const { document, created } = await this.documents.submit(tenantIdOf(principal), submission);
    res.status(created ? 202 : 200);
    return { document_id: String(document.id), status: document.status };
  }

  @Get()
  @ApiOperation({
    summary: 'List documents',
    description:
      "A page of the tenant's documents, newest first (`limit`, `offset`), optionally only those in one `status`.",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(documentListResponse, 'output') })
  async list(@CurrentPrincipal() principal: Principal, @ValidQuery(documentListQuery) page: z.output<typeof documentListQuery>) {
    const views = await this.documents.list(tenantIdOf(principal), page);
    return { items: views.map(toDocumentResponse), limit: page.limit, offset: page.offset, status: page.status ?? null };
  }

  @Get(':documentId')
  @ApiOperation({
    summary: 'Get a document',
    description:
      "A document's status, progress and what it added (chunks, entities, facts).",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(documentResponse, 'output') })
  async get(@CurrentPrincipal() principal: Principal, @Param('documentId') documentId: string) {
    return toDocumentResponse(await this.documents.get(tenantIdOf(principal), parseDocumentId(documentId)));
  }

  @Delete(':documentId')
  @ApiOperation({
    summary: 'Delete a document',
    description:
      'Deletes the document with its chunks and every entity or fact no other document supports.',
  })
  @ApiKeyAllowed({ scope: 'write' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted with its chunks and every entity or fact no other document supports.' })
  async delete(@CurrentPrincipal() principal: Principal, @Param('documentId') documentId: string) {
    await this.documents.delete(tenantIdOf(principal), parseDocumentId(documentId));
  }

  @Post(':documentId/retry')
  @ApiOperation({
    summary: 'Retry a failed document',
    description:
      'Queues a failed document for ingestion again, from its stored text.',
  })
  @ApiErrors({ 409: 'The document is not failed.' })
  @ApiKeyAllowed({ scope: 'write' })
  @HttpCode(202)
  @ApiAcceptedResponse({ schema: openApiSchemaOf(submittedResponse, 'output') })
  async retry(@CurrentPrincipal() principal: Principal, @Param('documentId') documentId: string) {
    const document = await this.documents.retry(tenantIdOf(principal), parseDocumentId(documentId));
    return { document_id: String(document.id), status: document.status };
  }

  private fromJson(body: unknown) {
    const parsed = new ZodValidationPipe(createDocumentBody).transform(body, { type: 'body' });
    return { name: parsed.name, text: parsed.text, mimeType: 'text/plain', documentDate: parsed.document_date };
  }

  private async fromUpload(file: UploadedDocumentFile, fields: unknown) {
    const parsed = new ZodValidationPipe(uploadFields).transform(fields ?? {}, { type: 'body' });
    const name = parsed.name ?? fileNameAsDocumentName(file.originalname);
    const { text, mimeType } = await this.documents.readUpload({ buffer: file.buffer, originalName: file.originalname, mimeType: file.mimetype });
    // A file's text is free text: NULs (which some PDFs and binary-ish .txt files carry) are removed.
    return { name, text: toStorableText(text), mimeType, documentDate: parsed.document_date };
  }
}

/** The file's own name stands in for a missing `name`, so it is held to the same rules. */
function fileNameAsDocumentName(fileName: string): string {
  const checked = createDocumentBody.shape.name.safeParse(fileName);
  if (checked.success) return checked.data;
  const issues = [{ loc: ['body', 'file'], msg: 'the file name is no document name (1 to 500 characters, no control characters): send a `name`', type: 'custom' }];
  throw new ValidationError('file: the file name cannot name a document; send a `name`', issues);
}
