import { Controller, Delete, Get, HttpCode, Param, Post, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { NotFoundError, toStorableText, ValidationError } from '@loci/common';
import { openApiSchemaOf, ValidQuery, ZodValidationPipe } from '@loci/http';
import { DocumentsService } from '@loci/ingest';
import { tenantIdOf } from '../tenant-scope';
import {
  createDocumentBody,
  documentIdParam,
  documentListQuery,
  documentListResponse,
  documentResponse,
  submittedResponse,
  toDocumentResponse,
  uploadFields,
} from './documents.dto';

/** Uploads larger than this are refused with 413 before they are read into memory whole. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

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
  @ApiKeyAllowed({ scope: 'write' })
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } }))
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiBody({
    description:
      'JSON `{name, text, document_date?}`, or multipart with a `file` (.txt, .md, .html, .pdf) and optional `name`, `document_date`.',
    schema: openApiSchemaOf(createDocumentBody),
  })
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
  @ApiOkResponse({ schema: openApiSchemaOf(documentListResponse, 'output') })
  async list(@CurrentPrincipal() principal: Principal, @ValidQuery(documentListQuery) page: z.output<typeof documentListQuery>) {
    const views = await this.documents.list(tenantIdOf(principal), page);
    return { items: views.map(toDocumentResponse), limit: page.limit, offset: page.offset, status: page.status ?? null };
  }

  @Get(':documentId')
  @ApiOkResponse({ schema: openApiSchemaOf(documentResponse, 'output') })
  async get(@CurrentPrincipal() principal: Principal, @Param('documentId') documentId: string) {
    return toDocumentResponse(await this.documents.get(tenantIdOf(principal), parseDocumentId(documentId)));
  }

  @Delete(':documentId')
  @ApiKeyAllowed({ scope: 'write' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted with its chunks and every entity or fact no other document supports.' })
  async delete(@CurrentPrincipal() principal: Principal, @Param('documentId') documentId: string) {
    await this.documents.delete(tenantIdOf(principal), parseDocumentId(documentId));
  }

  @Post(':documentId/retry')
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

/** Document ids are integers; anything else names no document. */
function parseDocumentId(raw: string): number {
  if (!documentIdParam.safeParse(raw).success) throw new NotFoundError('No such document.');
  return Number(raw);
}
