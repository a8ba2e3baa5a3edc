import { BadRequestException, HttpException, mixin, NestInterceptor, PayloadTooLargeException, Type } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * What one multipart upload may carry. multer bounds only what it is told to and keeps every
 * text field in memory, so a route that reads two small fields must say so: 200 fields of
 * 1 MiB beside a small file exhausted the API's heap (issue 33).
 */
export interface MultipartLimits {
  /** The one file, in bytes. */
  fileBytes: number;
  /** Text fields (parts without a file name). */
  fields: number;
  /** One text field's value, in bytes. */
  fieldBytes: number;
  /** One field's name, in bytes. */
  fieldNameBytes: number;
  /** Every part: fields, files, and parts that are neither (which multer skips but reads). */
  parts: number;
}

/**
 * busboy's own bound on one part's headers, which no option changes: past it the part is
 * malformed. It is also what bounds their number (busboy ignores `headerPairs` in multipart
 * bodies), and with `parts` what every part's headers weigh together.
 */
export const PART_HEADER_BYTES = 16 * 1024;

/** One upload field per request, as every multipart route here takes. */
const FILES_PER_UPLOAD = 1;

/**
 * Nest's FileInterceptor for `fileField`, bounded by `limits`, whose refusals name the limit a
 * request crossed: 413 for a size or count limit, 400 for a body that is malformed. multer stops
 * keeping the body at the first limit crossed and reads the rest without keeping it, so the
 * refusal costs no memory however large the body.
 */
export function BoundedFileInterceptor(fileField: string, limits: MultipartLimits): Type<NestInterceptor> {
  const NestFileInterceptor = FileInterceptor(fileField, {
    limits: {
      fileSize: limits.fileBytes,
      files: FILES_PER_UPLOAD,
      fields: limits.fields,
      fieldSize: limits.fieldBytes,
      fieldNameSize: limits.fieldNameBytes,
      parts: limits.parts,
      // The routes read flat fields: `a[b]` or `a[1000000]` would only build objects nobody reads.
      fieldNestingDepth: 0,
    } as Record<string, number>,
  }) as Type<NestInterceptor & { multer?: MulterInstance }>;

  class Bounded extends NestFileInterceptor {
    constructor(...args: unknown[]) {
      super(...args);
      namedRefusalsOf(this.multer, fileField, limits);
    }
  }
  return mixin(Bounded);
}

/** The part of Nest's interceptor this relies on: the multer instance it runs (`multer.single(field)`). */
interface MulterInstance {
  single(field: string): RequestHandler;
}

/**
 * Wraps the multer instance's middleware so its errors reach Nest already as the refusals
 * below: Nest maps the rest of multer's errors itself, but by then the error's `code` (which
 * limit) is gone, and most limits would be a 400 that does not say how much is allowed.
 */
function namedRefusalsOf(multer: MulterInstance | undefined, fileField: string, limits: MultipartLimits): void {
  if (typeof multer?.single !== 'function') {
    // A Nest release that no longer keeps `multer` would otherwise lose the bounds' messages silently.
    throw new Error('BoundedFileInterceptor: Nest\'s FileInterceptor has no `multer` instance to wrap');
  }
  const single = multer.single.bind(multer);
  multer.single = (field: string) => {
    const middleware = single(field);
    return (req: Request, res: Response, next: NextFunction) =>
      middleware(req, res, (error?: unknown) => next(error ? (multipartRefusal(error, fileField, limits) ?? error) : undefined));
  };
}

/** The refusal for one of multer's (or busboy's) errors, or undefined for an error that is no refusal. */
export function multipartRefusal(error: unknown, fileField: string, limits: MultipartLimits): HttpException | undefined {
  const { code, field, message } = error as { code?: unknown; field?: unknown; message?: unknown };
  const named = typeof field === 'string' ? `\`${shortened(field)}\`` : undefined;
  switch (code) {
    case 'LIMIT_FILE_SIZE':
      return new PayloadTooLargeException(`The file is larger than ${bytes(limits.fileBytes)} (the limit for one file).`);
    case 'LIMIT_FILE_COUNT':
      return new PayloadTooLargeException(`The multipart body has more than ${FILES_PER_UPLOAD} file (the limit); send one \`${fileField}\`.`);
    case 'LIMIT_FIELD_COUNT':
      return new PayloadTooLargeException(`The multipart body has more than ${limits.fields} text fields (the limit).`);
    case 'LIMIT_FIELD_VALUE':
      return new PayloadTooLargeException(`${named ? `The text field ${named}` : 'A text field'} is longer than ${bytes(limits.fieldBytes)} (the limit for one field).`);
    case 'LIMIT_FIELD_KEY':
      return new PayloadTooLargeException(`A field name is longer than ${limits.fieldNameBytes} bytes (the limit for one field name).`);
    case 'LIMIT_PART_COUNT':
      return new PayloadTooLargeException(`The multipart body has more than ${limits.parts} parts (the limit).`);
    case 'LIMIT_UNEXPECTED_FILE':
      return new BadRequestException(`The file must be sent as \`${fileField}\`${named ? `, not ${named}` : ''}.`);
    case 'MISSING_FIELD_NAME':
      return new BadRequestException('A part of the multipart body has no field name.');
    case 'LIMIT_FIELD_NESTING':
    case 'LIMIT_FIELD_ARRAY_INDEX':
    case 'INVALID_FIELD_NAME':
      return new BadRequestException(`${named ? `The field name ${named}` : 'A field name'} is not a plain name (no brackets).`);
  }
  // busboy's errors carry a message only.
  if (message === 'Malformed part header') {
    return new BadRequestException(`A part's headers are malformed or longer than ${bytes(PART_HEADER_BYTES)} (the limit for one part's headers).`);
  }
  return undefined;
}

/** Client-chosen names are echoed, never at any length. */
function shortened(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

function bytes(count: number): string {
  if (count % (1024 * 1024) === 0) return `${count / (1024 * 1024)} MiB`;
  if (count % 1024 === 0) return `${count / 1024} KiB`;
  return `${count} bytes`;
}
