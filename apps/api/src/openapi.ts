import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PUBLIC_OPERATION_EXTENSION } from '@loci/auth';
import { completeErrorResponses, openApiComponents } from '@loci/http';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Loci API')
    .setDescription(
      'Multi-tenant knowledge-graph memory. Dashboard users authenticate with a JWT from /v1/auth/login; ' +
        'tenant programs with an API key (Authorization: Bearer loci_... or X-API-Key). Errors come in three shapes: ' +
        '/v1/query answers FastAPI bodies (`{"detail": ...}`, validation 422), /v1/gb/* the gb contract\'s `{"error": "..."}`, ' +
        'every other route `{"error": {"code", "message"}, "request_id"}`.',
    )
    .setVersion('0.1.0')
    // Relative: the server this document is read from (each deployment serves its own).
    .addServer('/', 'The server that serves this document')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'jwt')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api_key')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'The operator-set LOCI_METRICS_TOKEN (GET /metrics only).' }, 'metrics_token')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  declarePublicOperations(document.paths as Record<string, Record<string, any>>);
  splitBodiesByMediaType(document.paths as Record<string, Record<string, any>>);
  completeErrorResponses(document.paths as Parameters<typeof completeErrorResponses>[0]);
  // After completing: the error shapes are registered as the responses are completed.
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...openApiComponents() } };
  return document;
}

/** Serves the document at /openapi.json and Swagger UI at /docs. */
export function mountOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
  });
}

/**
 * A route marked @Public() says it needs no credentials with `security: []`, unless it declared a
 * scheme of its own (/metrics: its bearer token). Every other operation names its schemes, so a
 * client generator or linter never has to guess which routes are open.
 */
function declarePublicOperations(paths: Record<string, Record<string, any>>): void {
  for (const operations of Object.values(paths)) {
    for (const op of Object.values(operations)) {
      if (!op[PUBLIC_OPERATION_EXTENSION]) continue;
      delete op[PUBLIC_OPERATION_EXTENSION];
      op.security ??= [];
    }
  }
}

/**
 * A body documented with a schema per media type (`x-loci-by-media-type`: the documents upload's
 * request, /v1/query's answer as JSON or events): Swagger repeats one schema under every media type.
 */
function splitBodiesByMediaType(paths: Record<string, Record<string, any>>): void {
  for (const operations of Object.values(paths)) {
    for (const op of Object.values(operations)) {
      const bodies = [op.requestBody, ...Object.values<Record<string, any>>(op.responses ?? {})];
      for (const body of bodies) {
        for (const [mediaType, content] of Object.entries<Record<string, any>>(body?.content ?? {})) {
          const byMediaType = content.schema?.['x-loci-by-media-type'];
          if (byMediaType) content.schema = byMediaType[mediaType];
        }
      }
    }
  }
}
