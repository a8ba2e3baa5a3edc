import { Readable } from 'node:stream';
import { HttpException, PayloadTooLargeException } from '@nestjs/common';
import { BoundedFileInterceptor, MultipartLimits, multipartRefusal } from './multipart-upload';

const LIMITS: MultipartLimits = { fileBytes: 20 * 1024 * 1024, fields: 8, fieldBytes: 8 * 1024, fieldNameBytes: 100, parts: 10 };

/** multer's errors as it raises them: a code, and the field when it knows one. */
const multerError = (code: string, field?: string) => Object.assign(new Error(code), { code, ...(field ? { field } : {}) });

describe('multipart refusals', () => {
  const refusalOf = (error: unknown) => {
    const refusal = multipartRefusal(error, 'file', LIMITS);
    return refusal && { status: refusal.getStatus(), message: (refusal.getResponse() as { message: string }).message };
  };

  it.each([
    ['LIMIT_FILE_SIZE', undefined, 413, 'The file is larger than 20 MiB (the limit for one file).'],
    ['LIMIT_FILE_COUNT', undefined, 413, 'The multipart body has more than 1 file (the limit); send one `file`.'],
    ['LIMIT_FIELD_COUNT', undefined, 413, 'The multipart body has more than 8 text fields (the limit).'],
    ['LIMIT_FIELD_VALUE', 'name', 413, 'The text field `name` is longer than 8 KiB (the limit for one field).'],
    ['LIMIT_FIELD_KEY', undefined, 413, 'A field name is longer than 100 bytes (the limit for one field name).'],
    ['LIMIT_PART_COUNT', undefined, 413, 'The multipart body has more than 10 parts (the limit).'],
    ['LIMIT_UNEXPECTED_FILE', 'upload', 400, 'The file must be sent as `file`, not `upload`.'],
    ['LIMIT_FIELD_NESTING', 'a[b]', 400, 'The field name `a[b]` is not a plain name (no brackets).'],
    ['MISSING_FIELD_NAME', undefined, 400, 'A part of the multipart body has no field name.'],
  ])('%s answers with a status and a message naming the limit', (code, field, status, message) => {
    expect(refusalOf(multerError(code, field))).toEqual({ status, message });
  });

  it("names busboy's bound on a part's headers", () => {
    expect(refusalOf(new Error('Malformed part header'))).toEqual({
      status: 400,
      message: "A part's headers are malformed or longer than 16 KiB (the limit for one part's headers).",
    });
  });

  it('echoes a client-chosen field name at 100 characters at most', () => {
    const message = refusalOf(multerError('LIMIT_FIELD_VALUE', 'n'.repeat(5000)))!.message;
    expect(message).toContain(`\`${'n'.repeat(100)}…\``);
    expect(message.length).toBeLessThan(200);
  });

  it('leaves errors that are no refusal to the exception filter', () => {
    expect(multipartRefusal(new Error('disk full'), 'file', LIMITS)).toBeUndefined();
    expect(multipartRefusal(multerError('STREAM_DESTROYED'), 'file', LIMITS)).toBeUndefined();
  });

  it("wraps the multer instance of Nest's FileInterceptor, so its errors reach Nest as refusals", async () => {
    type Middleware = (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
    const interceptor = new (BoundedFileInterceptor('file', LIMITS))() as unknown as { multer: { single(field: string): Middleware } };
    const fields = Array.from({ length: 9 }, (_, i) => `--x\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`).join('');
    const body = Buffer.from(`${fields}--x--\r\n`);
    const request = Object.assign(Readable.from([body]), {
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(body.length) },
    });
    const error = await new Promise((resolve) => interceptor.multer.single('file')(request, {}, resolve));
    expect(error).toBeInstanceOf(PayloadTooLargeException);
    expect((error as HttpException).message).toBe('The multipart body has more than 8 text fields (the limit).');
  });
});
