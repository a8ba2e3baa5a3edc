import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Loci API')
    .setDescription(
      'Multi-tenant knowledge-graph memory. Dashboard users authenticate with a JWT from /v1/auth/login; ' +
        'tenant programs with an API key (Authorization: Bearer loci_... or X-API-Key).',
    )
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'jwt')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api_key')
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Serves the document at /openapi.json and Swagger UI at /docs. */
export function mountOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
  });
}
