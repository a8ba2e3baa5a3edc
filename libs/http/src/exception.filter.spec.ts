import { ArgumentsHost, BadRequestException } from '@nestjs/common';
import { ConflictError, NotFoundError, ValidationError } from '@loci/common';
import { HttpExceptionFilter } from './exception.filter';

function hostFor(path: string) {
  const response = {
    statusCode: 0,
    body: undefined as unknown,
    headers: {} as Record<string, string>,
    headersSent: false,
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    json(body: unknown) {
      this.body = body;
      return this;
    },
    setHeader(name: string, value: string) {
      this.headers[name] = value;
    },
  };
  const request = { path, url: path, id: 'req-1' };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  return { host, response };
}

describe('HttpExceptionFilter', () => {
  const filter = new HttpExceptionFilter();
  // The filter logs 500s; keep the test output clean.
  beforeAll(() => jest.spyOn((filter as any).logger, 'error').mockImplementation(() => undefined));

  it('turns an unknown error into a 500 with no stack or message leaked', () => {
    const { host, response } = hostFor('/v1/admin/tenants');
    const secret = new Error('connection string postgres://user:hunter2@db failed');
    filter.catch(secret, host);
    expect(response.statusCode).toBe(500);
    expect(response.body).toEqual({
      error: { code: 'internal_error', message: 'Internal server error.' },
      request_id: 'req-1',
    });
    expect(JSON.stringify(response.body)).not.toContain('hunter2');
  });

  it('maps domain errors to statuses', () => {
    for (const [error, status] of [
      [new NotFoundError('gone'), 404],
      [new ConflictError('taken'), 409],
      [new ValidationError('bad', []), 400],
    ] as const) {
      const { host, response } = hostFor('/v1/api-keys');
      filter.catch(error, host);
      expect(response.statusCode).toBe(status);
    }
  });

  it('speaks FastAPI on /v1/query: validation is 422 with detail[]', () => {
    const { host, response } = hostFor('/v1/query');
    filter.catch(new ValidationError('bad', [{ loc: ['body', 'query'], msg: 'Field required', type: 'missing' }]), host);
    expect(response.statusCode).toBe(422);
    expect(response.body).toEqual({ detail: [{ loc: ['body', 'query'], msg: 'Field required', type: 'missing' }] });
  });

  it('speaks the gb dialect on /v1/gb/*: {"error": "..."}', () => {
    const { host, response } = hostFor('/v1/gb/query');
    filter.catch(new BadRequestException('query is required'), host);
    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual({ error: 'query is required' });
  });
});
