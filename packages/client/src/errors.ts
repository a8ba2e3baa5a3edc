/** An error answer of the API, with the message its body carries. */
export class LociApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    message = errorMessage(body) ?? `HTTP ${status}`,
  ) {
    super(message);
    this.name = 'LociApiError';
  }

  /** The error's code where the body has one (`not_found`, `cost_cap_exceeded`, ...). */
  get code(): string | undefined {
    return errorCode(this.body);
  }
}

/**
 * The message of an error body in any of Loci's three shapes: `{"error": {"code", "message"}}`
 * (most routes), `{"error": "..."}` (/v1/gb/*), `{"detail": ...}` (/v1/query: a message, a
 * refusal object, or FastAPI's list of field problems).
 */
export function errorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const { error, detail } = body as { error?: unknown; detail?: unknown };
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') {
    const { message, details } = error as { message?: unknown; details?: { field: string; message: string }[] };
    if (Array.isArray(details) && details.length > 0) return details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ');
    if (typeof message === 'string') return message;
  }
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail.map((d: { loc?: unknown[]; msg?: string }) => [d.loc?.slice(1).join('.'), d.msg].filter(Boolean).join(': ')).join('; ');
  }
  if (detail && typeof detail === 'object' && typeof (detail as { error?: unknown }).error === 'string') return (detail as { error: string }).error;
  return undefined;
}

export function errorCode(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { error, detail } = body as { error?: unknown; detail?: unknown };
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string') return (error as { code: string }).code;
  if (detail && typeof detail === 'object' && !Array.isArray(detail) && typeof (detail as { error?: unknown }).error === 'string') return (detail as { error: string }).error;
  if (typeof error === 'string' && /^[a-z_]+$/.test(error)) return error;
  return undefined;
}

/** The data of a result, or its error thrown as a LociApiError. */
export async function unwrap<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new LociApiError(response.status, error);
  return data as T;
}
